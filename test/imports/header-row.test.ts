import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kindOfFile } from '../../src/renderer/src/backoffice/import-file';
import { useHarness } from '../helpers/harness';
import { uid } from '../helpers/receivables';
import { settled, upload, type Batch } from './upload';

/**
 * What an upload is told by before anything is written: its header row. A column given twice is
 * refused (a line would have two values for one field, one silently winning), by the rule the
 * Imports screen reads a chosen file with; a first line longer than the start kept to read the
 * header by is no reason to refuse a file.
 */
const ctx = useHarness({ api: true });
const uploads = () => readdirSync(join(ctx.t.dir, 'imports'));

describe('a header row that gives a column twice', () => {
  it('is refused at upload (412 duplicate_header, the column named), for every kind, and nothing is written', async () => {
    const [inv, pay, cust, div, c] = [uid('INV'), uid('PAY'), uid('C'), uid('D'), uid('C')];
    const cases: Array<[string, string, string]> = [
      [`number,customer_identifier,amount,amount\n${inv},${c},100,10000\n`, 'amount', '3 and 4'],
      [`identifier,customer_identifier,payment_total,payment_amounts_attributes.invoice_number,payment_amounts_attributes.amount,payment_amounts_attributes.amount\n${pay},${c},100,${inv},100,0\n`, 'payment_amounts_attributes.amount', '5 and 6'],
      [`identifier,name,name\n${cust},Ann,Bob\n`, 'name', '2 and 3'],
      [`code,name,name\n${div},North,South\n`, 'name', '2 and 3'],
      // Compared as the kind is told: surrounding spaces are not part of a name.
      [`number,customer_identifier,amount, amount \n${inv},${c},100,10000\n`, 'amount', '3 and 4'],
      // A spreadsheet's semicolons: read by them, then checked the same.
      [`identifier;name;email;email\n${cust};Ann;a@example.com;b@example.com\n`, 'email', '3 and 4'],
    ];
    const before = ctx.t.engine.core.currentWatermark();
    for (const [csv, column, where] of cases) {
      const res = await upload(ctx.api.url, csv, { force: true });
      expect([res.status, res.body.code], csv.split('\n')[0]).toEqual([412, 'duplicate_header']);
      expect(res.body.error).toContain(`"${column}" (columns ${where}) more than once`);
      // The Imports screen reads the chosen file's header by the same rule and says the same, before sending it.
      const chosen = await kindOfFile(new Blob([csv]));
      expect(chosen.refusal).toEqual({ code: 'duplicate_header', message: res.body.error });
    }
    expect(ctx.t.engine.core.currentWatermark()).toBe(before);
    expect(uploads()).toEqual([]);
    expect((await ctx.api.get(`/api/exports/invoice/${inv}`)).status).toBe(404);
    expect((await ctx.api.get<Batch[]>('/api/imports')).body).toEqual([]);
  });

  it('names every column given twice; a header without one reads as before, on the screen too', async () => {
    const res = await upload(ctx.api.url, `number,customer_identifier,amount,notes_text,amount,notes_text,amount\n${uid('INV')},C1,1,a,2,b,3\n`, { force: true });
    expect([res.status, res.body.code]).toEqual([412, 'duplicate_header']);
    expect(res.body.error).toContain('"amount" (columns 3, 5 and 7), "notes_text" (columns 4 and 6) more than once');
    expect(await kindOfFile(new Blob([`number,customer_identifier,amount\n${uid('INV')},C1,100\n`]))).toEqual({ kind: 'invoices' });
  });
});

describe('a first line longer than the start of the file its kind is told from (64 KiB)', () => {
  it('imports a customer whose quoted notes run past it, as it does when that customer is the second line', async () => {
    // Notes may be 64K characters: 40,000 "é" are 80 KB of UTF-8, the field still open where the kept start ends.
    const notes = 'é'.repeat(40_000);
    const [first, second] = [uid('C'), uid('C')];
    const csv = `identifier,name,notes\n${first},Long Notes,"${notes}"\n${second},Short,"Plain, quoted"\n`;
    expect(Buffer.byteLength(csv)).toBeGreaterThan(64 * 1024);
    const res = await upload(ctx.api.url, csv);
    expect([res.status, res.body.code ?? '']).toEqual([201, '']);
    expect(await settled(ctx.api, res.body.id)).toMatchObject({ status: 'completed', kind: 'customers', result_message: '2 customers', file_errors_count: 0 });
    expect((await ctx.api.get<{ notes: string }>(`/api/exports/customer/${first}`)).body.notes).toBe(notes);
    expect((await ctx.api.get<{ name: string }>(`/api/exports/customer/${second}`)).body.name).toBe('Short');
  });

  it('still refuses what is not CSV there: a header that is not a record, a line unreadable within it, binary bytes', async () => {
    const long = 'x'.repeat(70 * 1024);
    const cases: Array<[string | Buffer, string]> = [
      // The header row's own quote is never closed (in the first 64 KiB, nor after): csv-parse gives up on line 2.
      [`identifier,"name\n${uid('C')},${long}\n`, 'line 2'],
      // A stray quote in the first line, within the kept start, the file longer than it.
      [`identifier,name,notes\n${uid('C')},Ann,"closed"then text\n${uid('C')},Bob,${long}\n`, 'line 2'],
      // A quote never closed in a file the kept start holds whole.
      [`identifier,name,notes\n${uid('C')},Ann,"never closed\n`, 'line 2'],
    ];
    for (const [csv, where] of cases) {
      const res = await upload(ctx.api.url, csv, { force: true });
      expect([res.status, res.body.code], where).toEqual([415, 'not_csv']);
      expect(res.body.error).toContain(where);
    }
    const binary = await upload(ctx.api.url, Buffer.concat([Buffer.from('identifier,name\n'), Buffer.from([0x50, 0x4b, 3, 4, 0, 0]), Buffer.from(long)]), { force: true });
    expect([binary.status, binary.body.code]).toEqual([415, 'not_csv']);
    expect(uploads()).toEqual([]);
  });
});
