import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { storeLayouts } from '../../src/engine';
import { encodeInvoice } from '../../src/engine/receivables/invoice-codec';
import { INVOICE_EXPORT_FIELDS, INVOICE_VIEW_PATH, invoiceLayout } from '../../src/engine/receivables/invoice-layout';
import { DATA_FILE } from '../../src/store';
import { allCollections } from '../../src/store/collection-registry';
import { withLayouts } from '../../src/store/schema';
import { openTestEngine, type TestEngine } from '../helpers/harness';

/**
 * The invoice row layout has one home (engine/receivables/invoice-layout.ts): the store is given
 * it when the invoices collection is created, and the codec writes the fields it names.
 */
describe('invoice row layout', () => {
  let t: TestEngine | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('names fields the codec writes', () => {
    const row = encodeInvoice(
      {
        id: 'INV-1', watermark: 7, display_number: 'INV-1', customer: 'c1', feed: 'open', division: '', iid: 7,
        data: {
          number: 'INV-1', display_number: 'INV-1', iid: 7, customer_identifier: 'C1', currency: 'usd', amount_cents: 100, owing_cents: 100, applied_cents: 0,
          date: '2026-03-01', line_items: [], adjustments: [], auto_debit: false, summary_invoice_parent: false, suppress_notifications: false, deleted: false,
          attachments: [], pay_token: 'P', extra: {}, created_at: 'x', updated_at: 'x', updated_ms: 5,
        },
      },
      'S',
    ) as unknown as Record<string, unknown>;
    const at = (p: string) => p.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], row);
    expect(typeof at(INVOICE_VIEW_PATH)).toBe('string');
    for (const field of INVOICE_EXPORT_FIELDS) expect(at(field), field).not.toBeUndefined();
  });

  it('is what the store lays the invoices table out with: the rendering in its own column, the export fields projected', async () => {
    t = await openTestEngine({ keep: true });
    await t.engine.receivables.importInvoice({ number: 'LAYOUT-1', customer_identifier: 'CLAYOUT', customer_name: 'Layout', date: '2026-03-01', line_item_attributes: [{ number: '1', amount: 1234 }] });
    const dir = t.dir;
    await t.close();
    t = undefined;
    const db = new Database(path.join(dir, DATA_FILE), { readonly: true });
    try {
      const reg = db.prepare("SELECT id, text_columns, projections FROM laneway_rx_collections WHERE collection_name = 'invoices'").get() as { id: number; text_columns: string; projections: string };
      expect(JSON.parse(reg.text_columns)).toEqual([INVOICE_VIEW_PATH]);
      expect(JSON.parse(reg.projections)).toEqual([[...INVOICE_EXPORT_FIELDS]]);
      const row = db.prepare(`SELECT data, t0 FROM rxc_${reg.id} LIMIT 1`).get() as { data: string; t0: string };
      expect(JSON.parse(row.t0)).toMatchObject({ number: 'LAYOUT-1', customer_identifier: 'CLAYOUT' });
      expect(JSON.parse(row.data).data.view ?? null).toBeNull();
    } finally {
      db.close();
    }
  });

  it('is configuration: the store definitions name none of its fields, and a layout for no collection fails', () => {
    const invoices = allCollections.find((c) => c.name === 'invoices')!;
    expect(invoices.textColumns).toBeUndefined();
    expect(invoices.projections).toBeUndefined();
    expect(withLayouts(allCollections, storeLayouts).find((c) => c.name === 'invoices')).toMatchObject(invoiceLayout);
    expect(() => withLayouts(allCollections, { invoice: invoiceLayout })).toThrow(/unknown collection invoice/);
  });
});
