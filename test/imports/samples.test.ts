import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../helpers/harness';
import { importCsv } from './upload';

// Its own engine: the reconciliation sample closes the open invoices it leaves out.
const ctx = useHarness({ api: true });
const sample = (name: string) => readFileSync(join('resources', 'samples', `${name}.csv`), 'utf8');

describe('the sample files of docs/csv-imports.md', () => {
  it('import without an error, in the order an ERP sends them', async () => {
    const expected: Array<[string, string]> = [
      ['customers', '2 customers'],
      ['divisions', '2 divisions'],
      ['invoices', '2 invoices'],
      ['payments', '1 payment'],
      ['credit_cards', '2 credit cards'],
      ['payment_recon', '1 payment reconciled'],
      ['invoice_recon', '2 invoices reconciled; 1 open invoice it leaves out was closed'],
    ];
    for (const [name, message] of expected) {
      const batch = await importCsv(ctx.api, sample(name), { filename: `${name}.csv` });
      const errors = await ctx.api.get<{ message: unknown[] }>(`/api/imports/${batch.id}/errors`);
      expect([name, batch.kind, batch.result_message, errors.body.message]).toEqual([name, name, message, []]);
    }
    const owing = async (n: string) => (await ctx.api.get<{ owing_cents: number; deleted?: boolean }>(`/api/exports/invoice/${n}`)).body;
    expect((await owing('INV-5001')).owing_cents).toBe(0);
    expect(await owing('INV-5002')).toMatchObject({ owing_cents: 23990, deleted: true });
    const recon = await ctx.api.get<{ reconciliation_invoices: Array<{ number: string; discrepancy_message: string }> }>('/api/exports/invoice_recon?list=true');
    expect(recon.body.reconciliation_invoices.map((r) => [r.number, r.discrepancy_message])).toEqual([
      ['INV-4999', 'Invoice Not Present in Laneway'],
      ['INV-5002', 'Invoice Not Present in Source System; closed'],
    ]);
    expect((await ctx.api.get<{ reconciliation_payments: unknown[] }>('/api/exports/payment_recon?list=true')).body.reconciliation_payments).toEqual([]);
  });
});
