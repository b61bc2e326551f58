import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../helpers/harness';
import { uid } from '../helpers/receivables';
import { importCsv, upload } from './upload';

/**
 * What a careless ERP sends (the imports QA review): a line without its key that carries values
 * of its own, a stray or unclosed quote, more values than the header, a field's name in other
 * letters, a reconciliation file with nothing usable. Each bad line is an error line and changes
 * nothing; the lines around it go on; nothing of a card number reaches the log.
 */
const ctx = useHarness({ api: true });

type Err = { line_number: number; field: string; code: string; error: string };
const errors = async (id: number) => (await ctx.api.get<{ message: Err[] }>(`/api/imports/${id}/errors`)).body.message;
const invoice = (n: string) => ctx.api.get<{ amount_cents: number; customer_identifier: string; due_date: string; deleted?: boolean; owing_cents: number }>(`/api/exports/invoice/${n}`);

describe('lines a careless ERP writes', () => {
  it('refuses a line without its key that gives values of its own, rather than add it to the record above', async () => {
    const [a, b, other] = [uid('C'), uid('C'), uid('INV')];
    const ek = uid('INV');
    const csv = [
      'number,customer_identifier,date,line_item_attributes.description,line_item_attributes.amount',
      `${ek},${a},2026-04-01,Item A,100`,
      `,${b},2026-05-01,Item B,99900`,
      `,,,Item C,5`,
      `${other},${a},2026-04-01,Item D,700`,
      `${other},${a},2026-04-01,Item E,300`,
    ].join('\n');
    const batch = await importCsv(ctx.api, csv);
    expect(batch).toMatchObject({ status: 'completed', result_message: '2 invoices', file_errors_count: 1 });
    // The record above keeps its own line only; the line for another customer changed nothing.
    expect((await invoice(ek)).body).toMatchObject({ amount_cents: 100, customer_identifier: a });
    // A row repeating its record's own values (an ERP that writes them on every line) still continues it.
    expect((await invoice(other)).body.amount_cents).toBe(1000);
    expect((await errors(batch.id)).map((e) => [e.line_number, e.field, e.code])).toEqual([[3, 'customer_identifier', 'continuation_not_nested']]);

    const customers = await importCsv(ctx.api, `identifier,name,contacts.email\n${uid('CU')},One,one@x.example\n,Other Name,two@x.example\n`);
    expect(customers).toMatchObject({ result_message: '1 customer', file_errors_count: 1 });
    expect((await errors(customers.id)).map((e) => [e.line_number, e.field, e.code])).toEqual([[3, 'name', 'continuation_not_nested']]);
  });

  it("a contact e-mail that is not one address is refused as the API's JSON check refuses it: the mail would go elsewhere", async () => {
    const [one, two, three] = [uid('CU'), uid('CU'), uid('CU')];
    const csv = `identifier,name,contacts.email,contacts.bulk_activate\n${one},One,ann@cust.test,true\n${two},Two,"root,ann4@cust.test",true\n${three},Three,victim.test>x<bob@evil.test,true\n`;
    const batch = await importCsv(ctx.api, csv);
    expect(batch).toMatchObject({ result_message: '1 customer', file_errors_count: 2 });
    expect((await errors(batch.id)).map((e) => [e.line_number, e.field])).toEqual([[3, 'contacts.email'], [4, 'contacts.email']]);
    expect((await ctx.api.get(`/api/exports/customer/${three}`)).status).toBe(404);
  });

  it('a stray quote mid-file is an error on its line; the lines before and after it are imported', async () => {
    const c = uid('C');
    const [one, two, three] = [uid('INV'), uid('INV'), uid('INV')];
    const rows = [`${one},${c},2026-04-01,100,Plain`, `${two},${c},2026-04-01,200,5" pipe`, `${three},${c},2026-04-01,300,"Quoted, fine"`];
    const batch = await importCsv(ctx.api, `number,customer_identifier,date,amount,notes_text\n${rows.join('\n')}\n`);
    expect(batch).toMatchObject({ status: 'completed', result_message: '2 invoices', file_errors_count: 1 });
    expect((await invoice(one)).status).toBe(200);
    expect((await invoice(two)).status).toBe(404);
    expect((await invoice(three)).body.amount_cents).toBe(300);
    expect((await errors(batch.id)).map((e) => [e.line_number, e.code])).toEqual([[3, 'unreadable_line']]);
  });

  it('a line with several stray quotes is one error on its line, and the errors after it keep their lines', async () => {
    const c = uid('C');
    const [one, two, three, four] = [uid('INV'), uid('INV'), uid('INV'), uid('INV')];
    const rows = [`${one},${c},2026-04-01,100,Plain`, `${two},${c},2026-04-01,200,"ab"c"d"`, `${three},${c},2026-04-01,abc,Bad amount`, `${four},${c},2026-04-01,400,Fine`];
    const batch = await importCsv(ctx.api, `number,customer_identifier,date,amount,notes_text\n${rows.join('\n')}\n`);
    expect(batch).toMatchObject({ status: 'completed', result_message: '2 invoices', file_errors_count: 2 });
    expect((await errors(batch.id)).map((e) => [e.line_number, e.code === 'unreadable_line' ? e.code : e.field])).toEqual([[3, 'unreadable_line'], [4, 'amount']]);
    expect((await invoice(four)).body.amount_cents).toBe(400);
  });

  it('an unclosed quote keeps the lines before it and says the rest could not be read', async () => {
    const c = uid('C');
    const [one, two, three] = [uid('INV'), uid('INV'), uid('INV')];
    const csv = `number,customer_identifier,date,amount,notes_text\n${one},${c},2026-04-01,100,Plain\n${two},${c},2026-04-01,200,"never closed\n${three},${c},2026-04-01,300,Lost\n`;
    const batch = await importCsv(ctx.api, csv);
    expect(batch).toMatchObject({ status: 'completed', result_message: '1 invoice', file_errors_count: 1 });
    expect((await invoice(one)).status).toBe(200);
    const [e] = await errors(batch.id);
    expect([e!.line_number, e!.code]).toEqual([3, 'unreadable_line']);
    expect(e!.error).toContain('not closed');
  });

  it('never writes the digits of a card number in a line it cannot read to the log or the errors', async () => {
    const good = Array.from({ length: 40 }, () => `${uid('C')},Ann Lee,Ann,Lee,4895281000000006,1230,K1A0B1,N,`);
    const csv = `customer_identifier,name,first_name,last_name,number,expiry,postal_code,create_debit_agreement,auto_debit_reference\n${good.join('\n')}\nC1001,N,Ann,Lee,554103200000"4422,1230,K1A0B1,N,\n`;
    const batch = await importCsv(ctx.api, csv);
    expect(batch).toMatchObject({ status: 'completed', file_errors_count: 1 });
    expect(JSON.stringify(await errors(batch.id))).not.toContain('5541032');
    const logs = join(ctx.t.dir, 'logs');
    for (const f of readdirSync(logs)) expect(readFileSync(join(logs, f), 'utf8'), f).not.toContain('5541032');
  });

  it('refuses at upload a file whose first lines cannot be read or that is binary, saying where and what to save it as', async () => {
    const quote = await upload(ctx.api.url, 'number,customer_identifier,date,amount\nINV-Q1,C1,2026-04-01,"100\nINV-Q2,C1,2026-04-01,200\n', { force: true });
    expect([quote.status, quote.body.code]).toEqual([415, 'not_csv']);
    expect(quote.body.error).toMatch(/line \d+ cannot be read/);
    expect(quote.body.error).toContain('CSV UTF-8');
    const binary = await upload(ctx.api.url, Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0x14, 0]), { force: true });
    expect([binary.status, binary.body.code]).toEqual([415, 'not_csv']);
    expect(binary.body.error).toContain('CSV UTF-8');
  });

  it("words a card's impossible expiry month in the file's own column", async () => {
    const batch = await importCsv(ctx.api, `customer_identifier,name,number,expiry\n${uid('C')},Ann Lee,4895281000000006,1330\n`);
    const [e] = await errors(batch.id);
    expect([e!.line_number, e!.field, e!.code]).toEqual([2, 'expiry', 'invalid_expiry']);
    expect(e!.error).toContain('expiry must be MMYY with a month from 01 to 12');
  });

  it('refuses a line with more values than the header has columns', async () => {
    const c = uid('C');
    const [ok, extra] = [uid('INV'), uid('INV')];
    const batch = await importCsv(ctx.api, `number,customer_identifier,date,amount\n${ok},${c},2026-04-01,100\n${extra},${c},2026-04-01,100,extra\n`);
    expect(batch).toMatchObject({ result_message: '1 invoice', file_errors_count: 1 });
    expect((await errors(batch.id)).map((e) => [e.line_number, e.code])).toEqual([[3, 'too_many_values']]);
    expect((await invoice(extra)).status).toBe(404);
  });

  it("refuses a header that writes a field's name in other letters, rather than keep it as an extra attribute", async () => {
    for (const header of ['number,customer_identifier,date,amount,Due_Date', 'number,customer_identifier,date,amount,Line_Item_Attributes.amount']) {
      const res = await upload(ctx.api.url, `${header}\n${uid('INV')},${uid('C')},2026-04-01,100,2026-12-31\n`, { force: true });
      expect([res.status, res.body.code], header).toEqual([412, 'unknown_header']);
      expect(res.body.error).toContain(header.split(',').pop()!);
    }
  });
});

describe('a reconciliation file with nothing usable', () => {
  it('closes no invoice when a line was refused or no line names an invoice, and says so', async () => {
    const c = uid('C');
    const open = uid('INV');
    expect((await ctx.api.post('/api/imports/invoice', { number: open, customer_identifier: c, amount: 5000, date: '2026-03-01' })).status).toBe(201);
    for (const csv of ['number,balance_in_source_system\n"",""\n', 'number,balance_in_source_system\n,\n', `number,balance_in_source_system\n${uid('INV')},100\n,200\n`]) {
      const batch = await importCsv(ctx.api, csv);
      expect(batch.status).toBe('completed');
      expect(batch.result_message).toMatch(/not closed/);
      expect((await invoice(open)).body.deleted ?? false).toBe(false);
    }
  });

  it('answers 404 for the reconciliation of a batch of another kind', async () => {
    const batch = await importCsv(ctx.api, `number,customer_identifier,date,amount\n${uid('INV')},${uid('C')},2026-04-01,100\n`);
    for (const kind of ['invoice_recon', 'payment_recon']) {
      const res = await ctx.api.get<{ code: string }>(`/api/exports/${kind}/${batch.id}`);
      expect([res.status, res.body.code], kind).toEqual([404, 'recon_not_found']);
    }
  });
});
