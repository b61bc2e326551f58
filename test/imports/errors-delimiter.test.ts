import { describe, expect, it } from 'vitest';
import { useHarness } from '../helpers/harness';
import { uid } from '../helpers/receivables';
import { importCsv } from './upload';

/**
 * A file from a spreadsheet where the decimal mark is a comma comes separated by ';' (or tabs): its
 * errors file is written the same way, so the same spreadsheet opens it in columns, and a line with
 * one value too many names the file's own separator as the likely cause, not a comma.
 */
const ctx = useHarness({ api: true });

type Err = { line_number: number; field: string; code: string; error: string };
const errors = async (id: number) => (await ctx.api.get<{ message: Err[] }>(`/api/imports/${id}/errors`)).body.message;
const errorsCsv = async (id: number) => {
  const res = await ctx.api.get<string>(`/api/imports/${id}/errors.csv`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/csv');
  return res.body.trim().split('\r\n');
};

describe('the errors file of a batch', () => {
  it("is separated by ';' when the upload was", async () => {
    const c = uid('C');
    const [ok, bad, extra] = [uid('INV'), uid('INV'), uid('INV')];
    const csv = ['number;customer_identifier;date;amount', `${ok};${c};2026-04-01;100`, `${bad};${c};2026-02-30;100`, `${extra};${c};2026-04-01;100;extra`].join('\r\n');
    const batch = await importCsv(ctx.api, `${csv}\r\n`);
    expect(batch).toMatchObject({ status: 'completed', result_message: '1 invoice', file_errors_count: 2 });
    const lines = await errorsCsv(batch.id);
    // The reference's columns, in its order.
    expect(lines[0]).toBe('line_number;field;code;error');
    expect(lines[1]).toMatch(/^3;date;invalid_date;date must be a date YYYY-MM-DD/);
    expect(lines[2]).toMatch(/^4;[^;]*;too_many_values;/);
  });

  it('is separated by tabs when the upload was, and by commas otherwise', async () => {
    const tab = await importCsv(ctx.api, `code\tname\n${uid('D')}\tBranch\n\tNo code\n`);
    expect(tab.file_errors_count).toBe(1);
    expect((await errorsCsv(tab.id))[0]).toBe('line_number\tfield\tcode\terror');
    const comma = await importCsv(ctx.api, `code,name\n${uid('D')},Branch\n,No code\n`);
    expect(comma.file_errors_count).toBe(1);
    expect((await errorsCsv(comma.id))[0]).toBe('line_number,field,code,error');
  });
});

describe('a line with more values than the header has columns', () => {
  it("names the file's separator as what likely split a field", async () => {
    const c = uid('C');
    const semi = await importCsv(ctx.api, `number;customer_identifier;date;amount\n${uid('INV')};${c};2026-04-01;100;extra\n`);
    const [s] = await errors(semi.id);
    expect(s!.code).toBe('too_many_values');
    expect(s!.error).toContain('a semicolon inside a field that is not quoted?');
    expect(s!.error).not.toContain('comma');
    const tab = await importCsv(ctx.api, `code\tname\n${uid('D')}\tBranch\textra\n`);
    expect((await errors(tab.id))[0]!.error).toContain('a tab inside a field that is not quoted?');
    const comma = await importCsv(ctx.api, `code,name\n${uid('D')},Branch,extra\n`);
    expect((await errors(comma.id))[0]!.error).toContain('a comma inside a field that is not quoted?');
  });
});
