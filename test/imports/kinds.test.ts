import { describe, expect, it } from 'vitest';
import { useHarness } from '../helpers/harness';
import { uid, withCapabilities } from '../helpers/receivables';
import { importCsv } from './upload';

const ctx = useHarness({ api: true });

type Invoice = { number: string; amount_cents: number; owing_cents: number; line_item_attributes: Array<{ number: string; amount_cents: number; description: string }> };
const invoice = async (n: string) => (await ctx.api.get<Invoice>(`/api/exports/invoice/${encodeURIComponent(n)}`)).body;

describe('CSV imports: each file kind through the rules of its JSON import', () => {
  it('imports customers with their contacts on following rows (BOM, CRLF, quoted commas)', async () => {
    const c = uid('C');
    const csv = `\ufeffidentifier,name,email,contacts.email,contacts.first_name\r\n${c},"Acme, Inc.",ap@acme.test,ann@acme.test,Ann\r\n,,,bob@acme.test,Bob\r\n`;
    const batch = await importCsv(ctx.api, csv);
    // error is a string, empty when nothing went wrong, as the reference's FileImport example has it.
    expect(batch).toMatchObject({ status: 'completed', kind: 'customers', result_message: '1 customer', error: '', file_errors_count: 0, lines_done: 3 });
    const view = await ctx.api.get<{ name: string; contacts: Array<{ email: string }> }>(`/api/exports/customer/${c}`);
    expect(view.body.name).toBe('Acme, Inc.');
    expect(view.body.contacts.map((x) => x.email).sort()).toEqual(['ann@acme.test', 'ap@acme.test', 'bob@acme.test']);
  });

  it('counts a completed file as read to its end, empty lines after the last record included', async () => {
    const csv = `identifier,name\n${uid('C')},Trailing\n\n\n\n`;
    const batch = await importCsv(ctx.api, csv);
    expect(batch).toMatchObject({ status: 'completed', result_message: '1 customer', lines_total: 5 });
    expect(batch.lines_done).toBe(batch.lines_total);
  });

  it('imports invoices with line items on the rows that follow (LF, a quoted line break)', async () => {
    const c = uid('C');
    const [a, b] = [uid('INV'), uid('INV')];
    const csv = [
      'number,customer_identifier,date,due_date,line_item_attributes.number,line_item_attributes.description,line_item_attributes.amount',
      `${a},${c},2026-03-01,2026-03-31,1,"Widgets,\nblue",1000`,
      `,,,,2,Bolts,250`,
      `${b},${c},2026-03-01,2026-03-31,1,Service,5000`,
      '',
    ].join('\n');
    const batch = await importCsv(ctx.api, csv.replace(`${b},${c},`, `${b},${c},`).replace('Service', 'Service paid by 4895 2810 0000 0006'));
    expect(batch).toMatchObject({ status: 'completed', kind: 'invoices', result_message: '2 invoices', file_errors_count: 0, lines_total: 5, lines_done: 5 });
    const first = await invoice(a);
    expect(first.amount_cents).toBe(1250);
    expect(first.line_item_attributes.map((l) => [l.number, l.description, l.amount_cents])).toEqual([
      ['1', 'Widgets,\nblue', 1000],
      ['2', 'Bolts', 250],
    ]);
    expect((await invoice(b)).amount_cents).toBe(5000);
    // A card number typed into free text is masked, as in a JSON body.
    expect((await invoice(b)).line_item_attributes[0]!.description).toBe('Service paid by 489528******0006');
  });

  it('balance sync: refuses a line whose owing_cents is outside 0..amount (a memo that owes, an invoice owing less than 0), the other lines go on', async () => {
    const c = uid('C');
    const [memo, negative, fine] = [uid('CM'), uid('INV'), uid('INV')];
    const csv = `number,customer_identifier,amount,owing_cents\n${memo},${c},-5000,3000\n${negative},${c},10000,-100\n${fine},${c},-5000,-2000\n`;
    const batch = await withCapabilities(ctx, { balance_sync: true }, () => importCsv(ctx.api, csv));
    expect(batch).toMatchObject({ status: 'completed', kind: 'invoices', result_message: '1 invoice', file_errors_count: 2 });
    const errors = await ctx.api.get<{ message: Array<{ line_number: number; field: string; code: string }> }>(`/api/imports/${batch.id}/errors`);
    expect(errors.body.message.map((e) => [e.line_number, e.field, e.code])).toEqual([
      [2, 'owing_cents', 'owing_exceeds_amount'],
      [3, 'owing_cents', 'owing_exceeds_amount'],
    ]);
    for (const n of [memo, negative]) expect((await ctx.api.get(`/api/exports/invoice/${n}`)).status).toBe(404);
    expect([(await invoice(fine)).amount_cents, (await invoice(fine)).owing_cents]).toEqual([-5000, -2000]);
  });

  it('refuses a line whose computed amount (quantity x unit cost), or an invoice whose total, is beyond the bound a sent amount has', async () => {
    const c = uid('C');
    const [huge, sum, fine] = [uid('INV'), uid('INV'), uid('INV')];
    const csv = [
      'number,customer_identifier,line_item_attributes.quantity,line_item_attributes.unit_cost_cents,line_item_attributes.amount',
      // A quantity written out in digits (1e300 is refused as text: see the next test).
      `${huge},${c},1${'0'.repeat(300)},100,`,
      `${sum},${c},,,${Number.MAX_SAFE_INTEGER}`,
      `,,,,${Number.MAX_SAFE_INTEGER}`,
      `${fine},${c},3,250,`,
      '',
    ].join('\n');
    const batch = await importCsv(ctx.api, csv);
    expect(batch).toMatchObject({ status: 'completed', kind: 'invoices', result_message: '1 invoice', file_errors_count: 2 });
    const errors = await ctx.api.get<{ message: Array<{ line_number: number; field: string; code: string }> }>(`/api/imports/${batch.id}/errors`);
    expect(errors.body.message.map((e) => [e.line_number, e.field, e.code])).toEqual([
      [2, 'line_item_attributes.amount', 'invalid_amount'],
      [3, 'amount', 'invalid_amount'],
    ]);
    for (const n of [huge, sum]) expect((await ctx.api.get(`/api/exports/invoice/${n}`)).status).toBe(404);
    expect((await invoice(fine)).amount_cents).toBe(750);
  });

  it("reads a quantity only as digits with a '.' decimal point: 0x10, 1E3, Infinity, 1,5 are refused on their line, never read as 16 or 1000", async () => {
    const c = uid('C');
    const bad = ['0x10', '1E3', '1e3', 'Infinity', '-Infinity', 'NaN', '"1,5"', '1 000', '" "', '+2', '0b11', '2.', '.5'];
    const numbers = bad.map(() => uid('INV'));
    const fine = uid('INV');
    const csv = [
      'number,customer_identifier,line_item_attributes.quantity,line_item_attributes.unit_cost_cents',
      ...bad.map((q, i) => `${numbers[i]},${c},${q},100`),
      `${fine},${c},2,100`,
      `,,2.5,100`,
      `,, 0.125 ,800`,
      `,,-1,100`,
      '',
    ].join('\n');
    const batch = await importCsv(ctx.api, csv);
    expect(batch).toMatchObject({ status: 'completed', kind: 'invoices', result_message: '1 invoice', file_errors_count: bad.length });
    const errors = await ctx.api.get<{ message: Array<{ line_number: number; field: string; code: string; error: string }> }>(`/api/imports/${batch.id}/errors`);
    expect(errors.body.message.map((e) => [e.line_number, e.field, e.code])).toEqual(bad.map((_, i) => [i + 2, 'line_item_attributes.quantity', 'invalid_number']));
    expect(errors.body.message[0]!.error).toMatch(/^line_item_attributes\.quantity must be a number written with digits and a '\.' as the decimal point/);
    for (const n of numbers) expect((await ctx.api.get(`/api/exports/invoice/${n}`)).status).toBe(404);
    expect((await invoice(fine)).line_item_attributes.map((l) => l.amount_cents)).toEqual([200, 250, 100, -100]);
  });

  it('refuses an invoice naming one line number twice (the first line would be dropped and the invoice billed short), naming the number; nothing is written', async () => {
    const c = uid('C');
    const [twice, fine] = [uid('INV'), uid('INV')];
    const csv = [
      'number,customer_identifier,line_item_attributes.number,line_item_attributes.amount',
      `${twice},${c},1,100`,
      `,,1,200`,
      `${fine},${c},1,100`,
      `${fine},${c},2,200`,
      '',
    ].join('\n');
    const batch = await importCsv(ctx.api, csv);
    expect(batch).toMatchObject({ status: 'completed', kind: 'invoices', result_message: '1 invoice', file_errors_count: 1 });
    const errors = await ctx.api.get<{ message: Array<{ line_number: number; field: string; code: string; error: string }> }>(`/api/imports/${batch.id}/errors`);
    expect(errors.body.message.map((e) => [e.line_number, e.field, e.code])).toEqual([[3, 'line_item_attributes.number', 'duplicate_line_number']]);
    expect(errors.body.message[0]!.error).toMatch(/^line_item_attributes\.number 1 appears twice in the invoice/);
    expect((await ctx.api.get(`/api/exports/invoice/${twice}`)).status).toBe(404);
    expect((await invoice(fine)).amount_cents).toBe(300);
    // The same file's numbers again update the stored lines they name (the invoice exists now).
    const again = await importCsv(ctx.api, csv.replace(`${fine},${c},2,200`, `${fine},${c},2,250`));
    expect(again).toMatchObject({ result_message: '1 invoice', file_errors_count: 1 });
    expect((await invoice(fine)).line_item_attributes.map((l) => [l.number, l.amount_cents])).toEqual([['1', 100], ['2', 250]]);
  });

  it('applies one payment to several invoices on several rows, with payment_total', async () => {
    const c = uid('C');
    const [a, b] = [uid('INV'), uid('INV')];
    await ctx.api.post('/api/imports/invoice', { number: a, customer_identifier: c, amount: 10000, date: '2026-03-01' });
    await ctx.api.post('/api/imports/invoice', { number: b, customer_identifier: c, amount: 4000, date: '2026-03-01' });
    const p = uid('CHQ');
    const csv = `identifier,customer_identifier,date,payment_total,payment_amounts_attributes.invoice_number,payment_amounts_attributes.amount\n${p},${c},2026-03-02,15000,${a},10000\n${p},,,,${b},4000\n`;
    const batch = await importCsv(ctx.api, csv);
    expect(batch).toMatchObject({ status: 'completed', kind: 'payments', result_message: '1 payment', file_errors_count: 0 });
    expect([(await invoice(a)).owing_cents, (await invoice(b)).owing_cents]).toEqual([0, 0]);
    const pay = await ctx.api.get<{ amount_cents?: number; amount?: string; unapplied_amount?: string }>(`/api/exports/payment/${p}`);
    expect(pay.status).toBe(200);
    expect(JSON.stringify(pay.body)).toContain('150.00');
  });

  it("refuses a payment line applying one customer's money to another customer's invoice, naming the invoice", async () => {
    const [a, b] = [uid('C'), uid('C')];
    const ofB = uid('INV');
    await ctx.api.post('/api/imports/customer', { identifier: a, name: 'Payer A' });
    await ctx.api.post('/api/imports/invoice', { number: ofB, customer_identifier: b, amount: 4000, date: '2026-03-01' });
    const p = uid('CHQ');
    const batch = await importCsv(ctx.api, `identifier,customer_identifier,date,payment_total,invoice_number\n${p},${a},2026-03-02,4000,${ofB}\n`);
    expect(batch).toMatchObject({ status: 'completed', kind: 'payments', file_errors_count: 1 });
    const errors = await ctx.api.get<{ message: Array<{ line_number: number; field: string; code: string; error: string }> }>(`/api/imports/${batch.id}/errors`);
    expect(errors.body.message.map((e) => [e.line_number, e.field, e.code])).toEqual([[2, 'invoice_number', 'invoice_of_another_customer']]);
    expect(errors.body.message[0]!.error).toContain(ofB);
    expect((await invoice(ofB)).owing_cents).toBe(4000);
    expect((await ctx.api.get(`/api/exports/payment/${p}`)).status).toBe(404);
  });

  it('imports divisions', async () => {
    const d = uid('D');
    const batch = await importCsv(ctx.api, `code,name,parent_code\n${d},Eastern,\n${d}-1,Ottawa,${d}\n`);
    expect(batch).toMatchObject({ status: 'completed', kind: 'divisions', result_message: '2 divisions' });
  });

  it('records a bad line with its line, column and message; the other lines go on; errors in JSON and CSV', async () => {
    const c = uid('C');
    const [a, b, bad] = [uid('INV'), uid('INV'), uid('INV')];
    const csv = [
      'number,customer_identifier,date,line_item_attributes.description,line_item_attributes.amount',
      `${a},${c},2026-03-01,One,100`,
      '',
      `${bad},${c},2026-03-01,Two,200`,
      `,,,Three,lots`,
      `${b},${c},2026-02-30,Four,400`,
      `${uid('INV')},${c},2026-03-01,Five,500`,
      `${uid('INV')},${c},2026-03-01,,`,
    ].join('\r\n');
    const batch = await importCsv(ctx.api, csv);
    expect(batch).toMatchObject({ status: 'completed', result_message: '2 invoices', file_errors_count: 3 });
    expect((await invoice(a)).amount_cents).toBe(100);
    expect((await ctx.api.get(`/api/exports/invoice/${bad}`)).status).toBe(404);
    expect((await ctx.api.get(`/api/exports/invoice/${b}`)).status).toBe(404);

    const json = await ctx.api.get<{ message: Array<{ line_number: number; field: string; code: string; error: string }> }>(`/api/imports/${batch.id}/errors`);
    expect(json.body.message.map((e) => [e.line_number, e.field, e.code])).toEqual([
      [5, 'line_item_attributes.amount', 'invalid_integer'],
      [6, 'date', 'invalid_date'],
      [8, 'amount', 'missing_amount'],
    ]);
    // Each entry names its record as the file does (the reference's errors carry the record): an ERP finds the invoice by its number.
    expect(json.body.message[0]).toMatchObject({ number: bad, customer_identifier: c });
    expect(json.body.message[1]).toMatchObject({ number: b, customer_identifier: c });
    expect((await ctx.api.get(`/api/imports/${batch.id}/errors.json`)).body).toEqual(json.body);
    const csvErrors = await ctx.api.get<string>(`/api/imports/${batch.id}/errors.csv`);
    expect(csvErrors.headers.get('content-type')).toContain('text/csv');
    const lines = csvErrors.body.trim().split('\r\n');
    expect(lines[0]).toBe('line_number,field,code,error');
    expect(lines[1]).toMatch(/^5,line_item_attributes\.amount,invalid_integer,/);
    expect(lines[2]).toMatch(/^6,date,invalid_date,date must be a date YYYY-MM-DD that exists \(2026-02-30 is not in the calendar\)/);
    // A line item's error names the file's column, not the rule's JSON path (line_item_attributes.1.amount).
    expect(json.body.message[0]!.error).toMatch(/^line_item_attributes\.amount /);
  });

  it('numbers lines as a text editor does, with quoted line breaks and empty lines, CRLF or LF', async () => {
    for (const eol of ['\r\n', '\n']) {
      const c = uid('C');
      const [q1, q2, q3, q4] = [uid('Q'), uid('Q'), uid('Q'), uid('Q')];
      const csv = [
        'number,customer_identifier,date,amount,notes_text',
        `${q1},${c},2026-03-01,100,"two`,
        'lines"',
        `${q2},${c},2026-03-01,abc,`,
        '',
        `${q3},,2026-03-01,100,"x`,
        'y',
        'z"',
        `${q4},${c},2026-03-01,zz,`,
      ].join(eol);
      const batch = await importCsv(ctx.api, `${csv}${eol}`);
      expect(batch, JSON.stringify(eol)).toMatchObject({ status: 'completed', result_message: '1 invoice', file_errors_count: 3, lines_total: 9, lines_done: 9 });
      const json = await ctx.api.get<{ message: Array<{ line_number: number; code: string }> }>(`/api/imports/${batch.id}/errors`);
      expect([...new Set(json.body.message.map((e) => e.line_number))], JSON.stringify(eol)).toEqual([4, 6, 9]);
    }
  });
});
