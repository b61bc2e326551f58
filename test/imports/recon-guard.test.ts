import { afterEach, describe, expect, it } from 'vitest';
import { openHarness, type Harness } from '../helpers/harness';
import { settled, upload, type Batch } from './upload';

/**
 * A reconciliation file closes the open invoices it leaves out, and a closed invoice cannot be
 * imported again: a file that would close most of a shop's open invoices (a sample, another
 * shop's list, an ERP export cut short) closes none until its upload confirms it. Each test has
 * its own shop, so the count of open invoices is the test's own.
 */
const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

async function shopWith(invoices: number): Promise<{ h: Harness; numbers: string[] }> {
  const h = await openHarness({ api: true });
  open.push(h);
  const numbers = Array.from({ length: invoices }, (_, i) => `G-${1001 + i}`);
  const csv = `number,customer_identifier,date,amount\n${numbers.map((n, i) => `${n},CUST${i % 4},2026-03-01,${1000 + i}`).join('\n')}\n`;
  const res = await upload(h.api.url, csv, { filename: 'open-invoices.csv' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(await settled(h.api, res.body.id)).toMatchObject({ status: 'completed', result_message: `${invoices} invoices` });
  return { h, numbers };
}

const recon = (numbers: string[], extra = '') => `number,customer_number,balance_in_source_system\n${numbers.map((n) => `${n},CUST,${1000 + Number(n.slice(2)) - 1001}`).join('\n')}\n${extra}`;

async function reconcile(h: Harness, csv: string, options: { force?: boolean; confirmClose?: boolean } = {}): Promise<Batch> {
  const res = await upload(h.api.url, csv, { filename: 'open-invoices-erp.csv', ...options });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return settled(h.api, res.body.id);
}

/** The shop's invoices still open, of `numbers`. */
async function stillOpen(h: Harness, numbers: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const n of numbers) {
    const res = await h.api.get<{ deleted?: boolean }>(`/api/exports/invoice/${n}`);
    expect(res.status).toBe(200);
    if (!res.body.deleted) out.push(n);
  }
  return out;
}

const HELD = 'The file leaves out 28 of 30 open invoices; none were closed. If it is the complete list of open invoices, upload it again with confirm_close=true to close them.';

describe('a reconciliation file that would close most of the open invoices', { timeout: 60_000 }, () => {
  it('closes none of them and says so; force does not confirm; confirm_close closes them', async () => {
    const { h, numbers } = await shopWith(30);
    const file = recon(numbers.slice(0, 2));
    const held = await reconcile(h, file);
    expect(held).toMatchObject({
      status: 'completed',
      kind: 'invoice_recon',
      file_errors_count: 0,
      held_back: { open_invoices: 30, unlisted: 28 },
      error: HELD,
      result_message: `2 invoices reconciled; ${HELD.charAt(0).toLowerCase()}${HELD.slice(1)}`,
    });
    expect(await stillOpen(h, numbers)).toEqual(numbers);
    // No record says an invoice was closed.
    const records = await h.api.get<{ reconciliation_invoices: Array<{ discrepancy_message: string }> }>(`/api/exports/invoice_recon/${held.id}?list=true`);
    expect(records.body.reconciliation_invoices.filter((r) => r.discrepancy_message.includes('closed'))).toEqual([]);

    // The same file again, as is: the duplicate notice names the way to confirm.
    const again = await upload(h.api.url, file);
    expect([again.status, again.body.code]).toEqual([409, 'duplicate_file']);
    expect(again.body.error).toContain('confirm_close=true');
    // force lets the same file in again (its one meaning) but confirms nothing: an ERP that always sends it is still guarded.
    const forced = await reconcile(h, file, { force: true });
    expect(forced).toMatchObject({ status: 'completed', held_back: { open_invoices: 30, unlisted: 28 }, error: HELD });
    expect(await stillOpen(h, numbers)).toEqual(numbers);

    // Confirmed (a form part): the 28 it leaves out are closed; the same file within 24 hours needs no force.
    const confirmed = await reconcile(h, file, { confirmClose: true });
    expect(confirmed).toMatchObject({ status: 'completed', held_back: null, error: '', result_message: '2 invoices reconciled; 28 open invoices it leaves out were closed' });
    expect(await stillOpen(h, numbers)).toEqual(numbers.slice(0, 2));
  });

  it('closes the few it leaves out without confirmation: 5 of 30, or all but one of a small shop\'s 8', async () => {
    const { h, numbers } = await shopWith(30);
    const batch = await reconcile(h, recon(numbers.slice(0, 25)));
    expect(batch).toMatchObject({ status: 'completed', held_back: null, error: '', result_message: '25 invoices reconciled; 5 open invoices it leaves out were closed' });
    expect(await stillOpen(h, numbers)).toEqual(numbers.slice(0, 25));

    const small = await shopWith(8);
    const one = await reconcile(small.h, recon(small.numbers.slice(0, 1)));
    expect(one).toMatchObject({ status: 'completed', held_back: null, result_message: '1 invoice reconciled; 7 open invoices it leaves out were closed' });
    expect(await stillOpen(small.h, small.numbers)).toEqual(small.numbers.slice(0, 1));
  });

  it('holds them back across a restart mid-batch, and a confirmed file closes them across one', async () => {
    const { h, numbers } = await shopWith(30);
    // Invoices the ERP lists that are unknown here make the file long: the run is stopped between two of its units.
    const unknown = Array.from({ length: 3000 }, (_, i) => `ERP-${i},CUST,100`).join('\n');
    const file = recon(numbers.slice(0, 2), `${unknown}\n`);
    for (const confirmClose of [false, true]) {
      const res = await upload(h.api.url, file, { force: true, confirmClose });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      await h.restart();
      expect((await h.t.engine.imports.view(res.body.id)).status, 'stopped mid-batch by the restart').toBe('processing');
      await h.t.engine.imports.idle();
      const batch = await settled(h.api, res.body.id);
      if (!confirmClose) {
        expect(batch).toMatchObject({ status: 'completed', held_back: { open_invoices: 30, unlisted: 28 }, error: HELD, result_message: `3002 invoices reconciled; ${HELD.charAt(0).toLowerCase()}${HELD.slice(1)}` });
        expect(await stillOpen(h, numbers)).toEqual(numbers);
      } else {
        expect(batch).toMatchObject({ status: 'completed', held_back: null, error: '', result_message: '3002 invoices reconciled; 28 open invoices it leaves out were closed' });
        expect(await stillOpen(h, numbers)).toEqual(numbers.slice(0, 2));
      }
    }
  });
});
