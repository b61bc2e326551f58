import { afterAll, describe, expect, it } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/harness';
import { openDataStore } from '../../src/store';
import { storeLayouts } from '../../src/engine';
import { bodyOf } from '../../src/engine/sync/streams';
import { filesHolding } from '../helpers/data-folder';
import { tempDir } from '../helpers/tmp';
import { until } from '../e2e/processes';

/**
 * An install upgraded from a version that kept free-form values as sent: a card number and CVV an
 * ERP put under `card_number` and `cvv` rest in its customers, invoices (and their lines) and
 * orders (and their items). They are put there here as that version stored them, straight into
 * the closed install's store, without the record of the walk a new install starts with. The next
 * start masks them in place and rewrites the file, once.
 */
const PAN = '4895281000000006';
const OTHER_PAN = '5413330089099130';
const CVV = '9731';
const folder = tempDir();
let t: TestEngine | undefined;
afterAll(async () => {
  await t?.close();
  folder.cleanup();
});

type Raw = Record<string, unknown> & { data: Record<string, unknown> };

/** Rewrites stored records with the engine closed, as an earlier version would have left them. */
async function storeAsEarlierVersion(dir: string, edits: Array<{ collection: string; id: string; edit: (doc: Raw) => void }>): Promise<void> {
  const store = await openDataStore({ directory: dir, layouts: storeLayouts });
  try {
    for (const { collection, id, edit } of edits) {
      const previous = (await store.get(collection, id))!;
      const doc = structuredClone(bodyOf(previous as never)) as Raw;
      doc.watermark = (previous as unknown as Raw).watermark;
      edit(doc);
      await store.commit([{ collection, doc: doc as never, previous }]);
    }
    // An earlier version kept no record of this walk (this one marks a new install as needing none).
    const marker = await store.get('records', 'maintenance/free_form_card_data_2');
    if (marker) await store.commit([{ collection: 'records', doc: bodyOf(marker as never) as never, previous: marker, delete: true }]);
  } finally {
    await store.close();
  }
}

describe('card data an earlier version kept in free-form values', () => {
  it('is masked at the next start, everywhere it rested, and the file no longer holds it', async () => {
    t = await openTestEngine({ dir: folder.dir });
    await t.engine.receivables.importCustomer({ identifier: 'C-OLD', name: 'Old customer', loyalty: 'gold' } as never);
    await t.engine.receivables.importInvoice({ number: 'I-OLD', customer_identifier: 'C-OLD', date: '2026-03-01', po_ref: 'PO-1', line_item_attributes: [{ number: '1', amount: 1234, colour: 'red' }] } as never);
    await t.engine.orders.create({ identifier: 'O-OLD', amount_cents: 1234, attributes: { channel: 'web' }, order_items: [{ number: '1', description: 'Tea', gift: 'no' }] } as never);
    await t.close();
    t = undefined;

    await storeAsEarlierVersion(folder.dir, [
      { collection: 'customers', id: await idOf(folder.dir, 'customers', { identifier: 'C-OLD' }), edit: (d) => Object.assign(d.data.extra as object, { card_number: PAN, cvv: CVV, card_pin: '8642' }) },
      {
        collection: 'invoices',
        id: await idOf(folder.dir, 'invoices', { display_number: 'I-OLD' }),
        edit: (d) => {
          const view = JSON.parse(String(d.data.view)) as { extended_attributes: Record<string, unknown>; line_item_attributes: Array<{ extended_attributes: Record<string, unknown> }> };
          Object.assign(view.extended_attributes, { card_on_file: `${PAN.slice(0, 4)} ${PAN.slice(4, 8)} ${PAN.slice(8, 12)} ${PAN.slice(12)}` });
          Object.assign(view.line_item_attributes[0]!.extended_attributes, { paid_with: OTHER_PAN });
          d.data.view = JSON.stringify(view);
        },
      },
      {
        collection: 'orders',
        id: 'O-OLD',
        edit: (d) => {
          Object.assign(d.data.attributes as object, { pan: OTHER_PAN, cvc: CVV });
          Object.assign((d.data.order_items as Array<{ extra: Record<string, unknown> }>)[0]!.extra, { card: PAN });
        },
      },
    ]);
    expect(filesHolding(folder.dir, PAN).length).toBeGreaterThan(0);

    t = await openTestEngine({ dir: folder.dir, start: true });
    const engine = t.engine;
    await until(async () => filesHolding(folder.dir, PAN).length === 0 && filesHolding(folder.dir, OTHER_PAN).length === 0, 'the card numbers gone from the data folder', 20_000);

    const customer = (await engine.receivables.viewCustomer('C-OLD')) as unknown as { attributes_marshal: Record<string, unknown> };
    expect(customer.attributes_marshal).toMatchObject({ loyalty: 'gold', card_number: '489528******0006', cvv: '****', card_pin: '****' });
    expect(filesHolding(folder.dir, '"8642"')).toEqual([]);
    const inv = JSON.stringify(await engine.receivables.viewInvoice('I-OLD'));
    expect(inv).toContain('"card_on_file":"489528******0006"');
    expect(filesHolding(folder.dir, `${PAN.slice(0, 4)} ${PAN.slice(4, 8)}`)).toEqual([]);
    expect(inv).toContain('541333******9130');
    expect(inv).toContain('"po_ref":"PO-1"');
    const order = JSON.stringify(await engine.orders.view('O-OLD'));
    expect(order).not.toContain(OTHER_PAN);
    expect(order).not.toContain(PAN);
    expect(order).toContain('"cvc":"****"');
    expect(order).toContain('"channel":"web"');

  }, 60_000);
});

async function idOf(dir: string, collection: string, selector: Record<string, string>): Promise<string> {
  const store = await openDataStore({ directory: dir, layouts: storeLayouts });
  try {
    const [doc] = await store.find(collection, { selector, limit: 1 });
    return String(doc!.id);
  } finally {
    await store.close();
  }
}
