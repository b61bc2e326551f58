import { describe, expect, it } from 'vitest';
import { fields, PDF, uid, withCapabilities, type ErrorReply } from '../helpers/receivables';
import { useHarness } from '../helpers/harness';

const ctx = useHarness({ api: true });
type Invoice = Record<string, unknown> & {
  amount_cents: number;
  owing_cents: number;
  status: string;
  line_item_attributes: Array<{ number: string; amount_cents: number; balance_cents: number; extended_attributes: Record<string, unknown> }>;
  payments?: Array<Record<string, unknown> & { line_item_transactional_amounts?: unknown[] }>;
};
type Reply = ErrorReply & { identifier: string; message: string; pay_url?: string; pay_urls?: Record<string, string> };

const importInvoice = (body: Record<string, unknown>) => ctx.api.post<Reply>('/api/imports/invoice', body);
const view = async (key: string, query = '') => (await ctx.api.get<Invoice>(`/api/exports/invoice/${encodeURIComponent(key)}${query}`)).body;

describe('invoice import', () => {
  it('computes the amount from line items and taxes (adjustments shown beside it), and keeps extra attributes', async () => {
    const number = uid('INV');
    const res = await importInvoice({
      number,
      customer_identifier: uid('C'),
      amount: 1,
      subtotal_tax1: 130,
      subtotal_tax2: 70,
      adjustments_attributes: [{ label: 'Fuel', amount: 50 }],
      line_item_attributes: [{ number: '1', amount: 1000, item_number: 'A39' }, { number: '2', quantity: 3, unit_cost_cents: 250 }],
      lease_type: 'LS',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ identifier: number, message: '1 invoice 2 line items' });
    const v = await view(number);
    expect(v.amount_cents).toBe(1000 + 750 + 130 + 70);
    expect(v.adjustments_attributes).toEqual([expect.objectContaining({ label: 'Fuel', amount_cents: 50 })]);
    expect(v.owing_cents).toBe(v.amount_cents);
    expect(v.subtotal_tax1).toBe('$1.30');
    expect(v.extended_attributes).toEqual({ lease_type: 'LS' });
    expect(v.line_item_attributes[0]!.extended_attributes).toEqual({ item_number: 'A39' });
    expect(v.status).toBe('CURRENT');
    expect(v.delivery_status).toBe('not_sent');
  });

  it('ignores the read-only watermark a client sends back with what it read, never keeping it as an extended attribute', async () => {
    const number = uid('INV');
    const customer = uid('C');
    await importInvoice({ number, customer_identifier: customer, amount: 1000, lease_type: 'LS' });
    const read = await view(number);
    const again = await importInvoice({ number, customer_identifier: customer, amount: 1200, lease_type: 'LT', watermark: read.watermark });
    expect(again.status).toBe(201);
    const after = await view(number);
    expect(after.amount_cents).toBe(1200);
    expect(after.extended_attributes).toEqual({ lease_type: 'LT' });
    expect(after.watermark).toBeGreaterThan(read.watermark as number);
  });

  it('rounds a line of quantity × unit cost half away from zero: a credit memo mirrors its invoice to the cent', async () => {
    const customer = uid('C');
    const invoice = uid('INV');
    const memo = uid('CM');
    // 1.5 × 3.33 = 4.995: 5.00 on the invoice, so -5.00 on the credit memo that cancels it (not -4.99).
    await importInvoice({ number: invoice, customer_identifier: customer, line_item_attributes: [{ quantity: 1.5, unit_cost_cents: 333 }] });
    await importInvoice({ number: memo, customer_identifier: customer, line_item_attributes: [{ quantity: 1.5, unit_cost_cents: -333 }] });
    expect([(await view(invoice)).amount_cents, (await view(memo)).amount_cents]).toEqual([500, -500]);
    const c = (await ctx.api.get<{ balance: string; credit: string }>(`/api/exports/customer/${customer}`)).body;
    expect([c.balance, c.credit]).toEqual(['$5.00', '-$5.00']);
  });

  it('rounds the quantity as it was written, not its binary float: 0.285 × $1.00 is $0.29 (the float product is 28.4999...)', async () => {
    const number = uid('INV');
    await importInvoice({ number, customer_identifier: uid('C'), line_item_attributes: [{ quantity: 0.285, unit_cost_cents: 100 }, { quantity: '0.145', unit_cost_cents: -100 }, { quantity: 3, unit_cost_cents: 333 }, { quantity: 1e-7, unit_cost_cents: 5_000_000 }] });
    expect((await view(number)).line_item_attributes.map((l) => l.amount_cents)).toEqual([29, -15, 999, 1]);
  });

  it('amount_override keeps the amount sent; replace_line_items drops absent lines, else lines merge by number', async () => {
    const number = uid('INV');
    const customer = uid('C');
    await importInvoice({ number, customer_identifier: customer, line_item_attributes: [{ number: '1', amount: 1000 }, { number: '2', amount: 2000 }] });
    await importInvoice({ number, customer_identifier: customer, line_item_attributes: [{ number: '2', amount: 2500 }, { number: '3', amount: 100 }] });
    let v = await view(number);
    expect(v.line_item_attributes.map((l) => [l.number, l.amount_cents])).toEqual([['1', 1000], ['2', 2500], ['3', 100]]);
    expect(v.amount_cents).toBe(3600);
    await importInvoice({ number, customer_identifier: customer, replace_line_items: true, line_item_attributes: [{ number: '3', amount: 100 }] });
    v = await view(number);
    expect(v.line_item_attributes.map((l) => l.number)).toEqual(['3']);
    expect(v.amount_cents).toBe(100);
    // Every line replaced by none: the amount is the taxes left, not the old lines' sum.
    await importInvoice({ number, customer_identifier: customer, replace_line_items: true, line_item_attributes: [], subtotal_tax1: 30 });
    v = await view(number);
    expect([v.line_item_attributes.length, v.amount_cents]).toEqual([0, 30]);
    await importInvoice({ number, customer_identifier: customer, amount: 9999, amount_override: true });
    expect((await view(number)).amount_cents).toBe(9999);
    const missing = await importInvoice({ number, customer_identifier: customer, amount_override: true });
    expect(missing.status).toBe(412);
    expect(fields(missing.body)).toContain('amount');
  });

  it('the same invoice sent again with unnumbered line items updates them, by position, instead of adding them twice', async () => {
    const number = uid('INV');
    const customer = uid('C');
    const payload = { number, customer_identifier: customer, line_item_attributes: [{ description: 'Widgets', amount: 1000 }, { description: 'Freight', amount: 500 }] };
    await importInvoice(payload);
    await importInvoice(payload);
    let v = await view(number);
    expect(v.line_item_attributes.map((l) => [l.number, l.amount_cents])).toEqual([['1', 1000], ['2', 500]]);
    expect(v.amount_cents).toBe(1500);
    // Changed and sent again: the lines in those places change.
    await importInvoice({ ...payload, line_item_attributes: [{ description: 'Widgets', amount: 1200 }, { description: 'Freight', amount: 500 }] });
    v = await view(number);
    expect(v.amount_cents).toBe(1700);
    // Beside numbered ones, an unnumbered line still takes the next free number.
    await importInvoice({ number, customer_identifier: customer, line_item_attributes: [{ number: '7', amount: 10 }, { amount: 20 }] });
    expect((await view(number)).line_item_attributes.map((l) => l.number)).toEqual(['1', '2', '7', '3']);
  });

  it('refuses two line items with the same number in one request (the first would be dropped and the invoice billed short); an update still matches the stored line', async () => {
    const number = uid('INV');
    const customer = uid('C');
    const twice = await importInvoice({ number, customer_identifier: customer, line_item_attributes: [{ number: '1', amount: 100 }, { number: '1', amount: 200 }] });
    expect(twice.status).toBe(412);
    expect(twice.body.code).toBe('duplicate_line_number');
    expect(twice.body.details).toEqual([expect.objectContaining({ field: 'line_item_attributes.1.number', code: 'duplicate_line_number' })]);
    expect(twice.body.error).toContain('1 appears twice in the invoice');
    expect((await ctx.api.get(`/api/exports/invoice/${number}`)).status).toBe(404);

    // Stored lines 1 and 2: an update naming line 2 once changes that line; naming it twice is refused and changes nothing.
    await importInvoice({ number, customer_identifier: customer, line_item_attributes: [{ number: '1', amount: 1000 }, { number: '2', amount: 2000 }] });
    expect((await importInvoice({ number, customer_identifier: customer, line_item_attributes: [{ number: '2', amount: 2500 }] })).status).toBe(201);
    const again = await importInvoice({ number, customer_identifier: customer, line_item_attributes: [{ number: '2', amount: 1 }, { number: '3', amount: 5 }, { number: '2', amount: 2 }] });
    expect([again.status, again.body.code, fields(again.body)]).toEqual([412, 'duplicate_line_number', ['line_item_attributes.2.number']]);
    const v = await view(number);
    expect(v.line_item_attributes.map((l) => [l.number, l.amount_cents])).toEqual([['1', 1000], ['2', 2500]]);
    expect(v.amount_cents).toBe(3500);
  });

  it('gives an unnumbered line item a number no item of the same request names, so a numbered item after it does not overwrite it', async () => {
    const number = uid('INV');
    const customer = uid('C');
    expect((await importInvoice({ number, customer_identifier: customer, line_item_attributes: [{ number: '1', amount: 1000 }, { number: '2', amount: 2000 }] })).status).toBe(201);
    // The free number was 3, which the next item names: the unnumbered line was merged into it and its 40 lost.
    expect((await importInvoice({ number, customer_identifier: customer, line_item_attributes: [{ amount: 40 }, { number: '3', amount: 30 }] })).status).toBe(201);
    const v = await view(number);
    expect(v.line_item_attributes.map((l) => [l.number, l.amount_cents])).toEqual([['1', 1000], ['2', 2000], ['4', 40], ['3', 30]]);
    expect(v.amount_cents).toBe(3070);
    // On a new invoice too.
    const fresh = uid('INV');
    expect((await importInvoice({ number: fresh, customer_identifier: customer, line_item_attributes: [{ amount: 100 }, { number: '1', amount: 200 }] })).status).toBe(201);
    expect((await view(fresh)).line_item_attributes.map((l) => [l.number, l.amount_cents])).toEqual([['2', 100], ['1', 200]]);
  });

  it("reads a quantity sent as text only as digits with a '.' decimal point: 0x10, 1E3, Infinity, 1,5 and blanks are refused, never guessed", async () => {
    const customer = uid('C');
    for (const quantity of ['0x10', '1E3', '1e3', 'Infinity', '-Infinity', 'NaN', '1,5', '1 000', ' ', '+2', '0b11', '2.']) {
      const res = await importInvoice({ number: uid('INV'), customer_identifier: customer, line_item_attributes: [{ quantity, unit_cost_cents: 100 }] });
      // The body's coercion (shared/number-text.ts, as the import rule reads a file's cell) leaves it text: refused by the schema.
      expect([quantity, res.status, fields(res.body)]).toEqual([quantity, 412, ['line_item_attributes.0.quantity']]);
    }
    const number = uid('INV');
    const lines = [{ quantity: '2', unit_cost_cents: 100 }, { quantity: '2.5', unit_cost_cents: 100 }, { quantity: '0.125', unit_cost_cents: 800 }, { quantity: '-1', unit_cost_cents: 100 }, { quantity: 2.5, unit_cost_cents: 10 }];
    expect((await importInvoice({ number, customer_identifier: customer, line_item_attributes: lines })).status).toBe(201);
    expect((await view(number)).line_item_attributes.map((l) => l.amount_cents)).toEqual([200, 250, 100, -100, 25]);
  });

  it('creates the customer from customer_* attributes, or updates it', async () => {
    const customer = uid('C');
    await importInvoice({ number: uid('INV'), customer_identifier: customer, amount: 500, customer_name: 'Made By Invoice', customer_email: 'ap@made.test', customer_country: 'US', customer_province: 'NY' });
    let c = (await ctx.api.get<Record<string, string>>(`/api/exports/customer/${customer}`)).body;
    expect([c.name, c.email, c.country, c.province, c.balance]).toEqual(['Made By Invoice', 'ap@made.test', 'US', 'NY', '$5.00']);
    await importInvoice({ number: uid('INV'), customer_identifier: customer, amount: 500, customer_name: 'Renamed' });
    c = (await ctx.api.get<Record<string, string>>(`/api/exports/customer/${customer}`)).body;
    expect([c.name, c.balance]).toEqual(['Renamed', '$10.00']);
    const bad = await importInvoice({ number: uid('INV'), customer_identifier: customer, amount: 500, customer_email: 'nope' });
    expect(bad.status).toBe(412);
    expect(fields(bad.body)).toContain('customer_email');
    const bare = uid('C');
    await importInvoice({ number: uid('INV'), customer_identifier: bare, amount: 1 });
    expect((await ctx.api.get<Record<string, string>>(`/api/exports/customer/${bare}`)).body.name).toBe(bare);
  });

  it('refuses bad fields with 412 naming them, writing nothing', async () => {
    const before = ctx.t.engine.core.currentWatermark();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ customer_identifier: 'C1', amount: 1 }, 'number'],
      [{ number: uid('I'), amount: 1 }, 'customer_identifier'],
      [{ number: 'a\u0007b', customer_identifier: 'C1', amount: 1 }, 'number'],
      [{ number: uid('I'), customer_identifier: 'C1' }, 'amount'],
      [{ number: uid('I'), customer_identifier: 'C1', amount: 1, currency: 'XYZ' }, 'currency'],
      [{ number: uid('I'), customer_identifier: 'C1', amount: 1, date: '2026-02-30' }, 'date'],
      [{ number: uid('I'), customer_identifier: 'C1', amount: 1, shipping_country: 'US', shipping_province: 'ON' }, 'shipping_province'],
      [{ number: uid('I'), customer_identifier: 'C1', amount: 1, notes_text: 'x'.repeat(65537) }, 'notes_text'],
      [{ number: uid('I'), customer_identifier: 'C1', amount: 1, division: 'NOWHERE' }, 'division'],
      [{ number: uid('I'), customer_identifier: 'C1', amount: 1, annualized_amount_cents: 120000 }, 'annualized_effective_date'],
      [{ number: uid('I'), customer_identifier: 'C1', line_item_attributes: [{ description: 'no amount' }] }, 'line_item_attributes.0.amount'],
      [{ number: uid('I'), customer_identifier: 'C1', amount: 1, summary_invoice_number: 'NOPE' }, 'summary_invoice_number'],
    ];
    for (const [body, field] of cases) {
      const res = await importInvoice(body);
      expect(res.status, JSON.stringify(body).slice(0, 90)).toBe(412);
      expect(fields(res.body), JSON.stringify(body).slice(0, 90)).toContain(field);
    }
    expect(ctx.t.engine.core.currentWatermark()).toBe(before);
  });

  it('holds a computed amount (a line\'s quantity x unit cost, the lines\' total with taxes, a pro-rated amount) to the bound a sent amount has', async () => {
    const max = Number.MAX_SAFE_INTEGER;
    const c = uid('C');
    const before = ctx.t.engine.core.currentWatermark();
    const sent = await importInvoice({ number: uid('I'), customer_identifier: c, amount: 2 ** 53 });
    expect([sent.status, sent.body.code, fields(sent.body)]).toEqual([412, 'invalid_amount', ['amount']]);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ line_item_attributes: [{ quantity: 1e300, unit_cost_cents: 100 }] }, 'line_item_attributes.0.amount'],
      [{ line_item_attributes: [{ quantity: 2, unit_cost_cents: 4503599627370497 }] }, 'line_item_attributes.0.amount'],
      [{ line_item_attributes: [{ amount: 1 }, { quantity: -1, unit_cost_cents: 1 }, { quantity: 3, unit_cost_cents: 3002399751580333 }] }, 'line_item_attributes.2.amount'],
      // Each line within the bound, their sum (or the sum with taxes) beyond it.
      [{ line_item_attributes: [{ amount: max }, { amount: max }] }, 'amount'],
      [{ line_item_attributes: [{ quantity: 1, unit_cost_cents: max - 10 }], subtotal_tax1: 6, subtotal_tax2: 5 }, 'amount'],
      [{ annualized_amount_cents: max, annualized_effective_date: '2026-01-01', annualized_expiry_date: '2027-12-31' }, 'amount'],
    ];
    for (const [body, field] of cases) {
      const res = await importInvoice({ number: uid('I'), customer_identifier: c, ...body });
      expect([res.status, res.body.code], JSON.stringify(body).slice(0, 120)).toEqual([412, 'invalid_amount']);
      expect(fields(res.body), JSON.stringify(body).slice(0, 120)).toEqual([field]);
    }
    expect(ctx.t.engine.core.currentWatermark()).toBe(before);
    // The bound itself is an amount.
    const edge = uid('INV');
    expect((await importInvoice({ number: edge, customer_identifier: c, subtotal_tax1: 10, line_item_attributes: [{ quantity: 1, unit_cost_cents: max - 10 }] })).status).toBe(201);
    expect((await view(edge)).amount_cents).toBe(max);
  });

  it('create_only refuses a number already used, naming that invoice, and changes nothing (the back office\'s New invoice)', async () => {
    const [a, b] = [uid('C'), uid('C')];
    const number = uid('INV');
    const first = await ctx.api.post<Reply>('/api/imports/invoice?create_only=true', { number, customer_identifier: a, date: '2026-03-02', line_item_attributes: [{ description: 'Bolts', quantity: 2, unit_cost_cents: 1250 }] });
    expect(first.status).toBe(201);
    const again = await ctx.api.post<Reply>('/api/imports/invoice?create_only=true', { number, customer_identifier: b, amount: 99 });
    expect(again.status).toBe(412);
    expect(fields(again.body)).toEqual(['number']);
    expect(JSON.stringify(again.body)).toContain('invoice_exists');
    expect(JSON.stringify(again.body)).toContain(`${number} is already an invoice: $25.00 to ${a} dated 2026-03-02`);
    expect(await view(number)).toMatchObject({ customer_identifier: a, amount_cents: 2500 });
    expect((await ctx.api.get(`/api/exports/customer/${b}`)).status).toBe(404);
    // Without it, the reference's import updates the invoice, as ERPs expect.
    expect((await importInvoice({ number, customer_identifier: a, amount: 4000, amount_override: true })).status).toBe(201);
    expect((await view(number)).amount_cents).toBe(4000);
  });

  it('customer_on_file refuses an unknown customer beside its field instead of creating it', async () => {
    const [known, unknown] = [uid('C'), uid('C')];
    await ctx.api.post('/api/imports/customer', { identifier: known, name: 'Known' });
    const number = uid('INV');
    const refused = await ctx.api.post<Reply>('/api/imports/invoice?create_only=true&customer_on_file=true', { number, customer_identifier: unknown, amount: 500 });
    expect(refused.status).toBe(412);
    expect(fields(refused.body)).toEqual(['customer_identifier']);
    expect(JSON.stringify(refused.body)).toContain('customer_not_found');
    expect((await ctx.api.get(`/api/exports/customer/${unknown}`)).status).toBe(404);
    expect((await ctx.api.get(`/api/exports/invoice/${number}`)).status).toBe(404);
    expect((await ctx.api.post<Reply>('/api/imports/invoice?create_only=true&customer_on_file=true', { number, customer_identifier: known, amount: 500 })).status).toBe(201);
  });

  it('sets the due date from the customer terms when none is given', async () => {
    const c1 = uid('C');
    await ctx.api.post('/api/imports/customer', { identifier: c1, name: 'Net 30', terms_type: 'day', terms_value: 30 });
    const a = uid('INV');
    await importInvoice({ number: a, customer_identifier: c1, amount: 1, date: '2026-03-02' });
    expect((await view(a)).due_date).toBe('2026-04-01');
    const c2 = uid('C');
    await ctx.api.post('/api/imports/customer', { identifier: c2, name: 'EOM', terms_type: 'date', terms_value: -1 });
    const b = uid('INV');
    await importInvoice({ number: b, customer_identifier: c2, amount: 1, date: '2026-01-20' });
    expect((await view(b)).due_date).toBe('2026-02-28');
  });
});

describe('capability rules', () => {
  it('divisions: required when the account requires them; created on the fly with dynamic creation', async () => {
    await withCapabilities(ctx, { divisions_required: true }, async () => {
      const res = await importInvoice({ number: uid('INV'), customer_identifier: uid('C'), amount: 1 });
      expect(res.status).toBe(412);
      expect(res.body.code).toBe('missing_division');
    });
    await withCapabilities(ctx, { divisions_required: true, dynamic_division_creation: true }, async () => {
      const code = uid('D');
      const number = uid('INV');
      expect((await importInvoice({ number, customer_identifier: uid('C'), amount: 1, division: code, division_name: 'Atlantic' })).status).toBe(201);
      expect((await view(number)).division).toBe(code);
      const who = await ctx.api.get<{ whoami: Record<string, { divisions: Array<{ division_code: string; division_name: string }> }> }>('/api/whoami');
      expect(Object.values(who.body.whoami)[0]!.divisions).toContainEqual(expect.objectContaining({ division_code: code, division_name: 'Atlantic' }));
    });
  });

  it('payment plans: plan fields required; the annualized amount is pro-rated over the inclusive span', async () => {
    await withCapabilities(ctx, { payment_plans: true }, async () => {
      const missing = await importInvoice({ number: uid('INV'), customer_identifier: uid('C'), amount: 1 });
      expect(missing.status).toBe(412);
      expect(fields(missing.body)).toEqual(expect.arrayContaining(['plan_identifier', 'plan_start_date', 'plan_end_date', 'plan_payment_cents', 'annualized_amount_cents']));
      const number = uid('INV');
      const plan = { plan_identifier: 'MONTHLY', plan_start_date: '2026-01-01', plan_end_date: '2026-12-31', plan_payment_cents: 10000 };
      const ok = await importInvoice({ number, customer_identifier: uid('C'), ...plan, annualized_amount_cents: 365000, annualized_effective_date: '2026-01-01', annualized_expiry_date: '2026-01-31' });
      expect(ok.status).toBe(201);
      const v = await view(number);
      expect(v.amount_cents).toBe(31000);
      expect(v.plan_identifier).toBe('MONTHLY');
      const full = uid('INV');
      await importInvoice({ number: full, customer_identifier: uid('C'), ...plan, annualized_amount_cents: 120000, annualized_effective_date: '2028-01-01', annualized_expiry_date: '2028-12-31' });
      expect((await view(full)).amount_cents).toBe(120000);
    });
  });

  it('annualized: each whole year of the span bills exactly the annual amount; only the part-year rest is pro-rated, over the days of its own year', async () => {
    const c = uid('C');
    const cases: Array<[number, string, string, number]> = [
      // Whole years, leap or not, whichever day they start on.
      [100000, '2027-01-01', '2028-12-31', 200000],
      [100000, '2028-01-01', '2029-12-31', 200000],
      [100000, '2026-01-01', '2030-12-31', 500000],
      [100000, '2028-02-29', '2029-02-28', 100000],
      [100000, '2027-03-01', '2028-02-29', 100000],
      // A whole year and a rest: 181 days of 2029 (365), 182 days of 2028 (366).
      [100000, '2028-01-01', '2029-06-30', 100000 + 49589],
      [100000, '2027-01-01', '2028-06-30', 100000 + 49727],
      [-100000, '2027-01-01', '2028-06-30', -(100000 + 49727)],
      // The rest alone: 182/366 of 100000 is 49726.78, rounded half away from zero.
      [100000, '2028-01-01', '2028-06-30', 49727],
      [365000, '2026-01-01', '2026-01-31', 31000],
    ];
    for (const [annual, effective, expiry, amount] of cases) {
      const number = uid('INV');
      const res = await importInvoice({ number, customer_identifier: c, annualized_amount_cents: annual, annualized_effective_date: effective, annualized_expiry_date: expiry });
      expect(res.status).toBe(201);
      expect((await view(number)).amount_cents, `${annual} ${effective}..${expiry}`).toBe(amount);
    }
  });

  it('balance sync: owing_cents is required and kept as the ERP sent it', async () => {
    await withCapabilities(ctx, { balance_sync: true }, async () => {
      const number = uid('INV');
      const missing = await importInvoice({ number, customer_identifier: uid('C'), amount: 1000 });
      expect(missing.status).toBe(412);
      expect(fields(missing.body)).toContain('owing_cents');
      await importInvoice({ number, customer_identifier: uid('C'), amount: 1000, owing_cents: 300 });
      const v = await view(number);
      expect([v.amount_cents, v.owing_cents, v.status]).toEqual([1000, 300, 'PARTIAL']);
    });
    const number = uid('INV');
    await importInvoice({ number, customer_identifier: uid('C'), amount: 1000, owing_cents: 300 });
    expect((await view(number)).owing_cents).toBe(1000);
  });

  it('balance sync: an invoice never owes more than its amount, nor a credit memo gives more credit than its own', async () => {
    await withCapabilities(ctx, { balance_sync: true }, async () => {
      const c = uid('C');
      const before = ctx.t.engine.core.currentWatermark();
      const fresh = uid('INV');
      const over = await importInvoice({ number: fresh, customer_identifier: c, amount: 1000, owing_cents: 1001 });
      expect([over.status, over.body.code, fields(over.body)]).toEqual([412, 'owing_exceeds_amount', ['owing_cents']]);
      expect(over.body.error).toContain('1001');
      const memo = await importInvoice({ number: uid('INV'), customer_identifier: c, amount: -500, owing_cents: -600 });
      expect([memo.status, memo.body.code]).toEqual([412, 'owing_exceeds_amount']);
      expect(ctx.t.engine.core.currentWatermark()).toBe(before);
      expect((await ctx.api.get(`/api/exports/invoice/${fresh}`)).status).toBe(404);

      // An update that sends only the balance is checked against the amount kept.
      const number = uid('INV');
      expect((await importInvoice({ number, customer_identifier: c, amount: 1000, owing_cents: 1000 })).status).toBe(201);
      const raised = await importInvoice({ number, customer_identifier: c, owing_cents: 5000 });
      expect([raised.status, raised.body.code]).toEqual([412, 'owing_exceeds_amount']);
      expect((await view(number)).owing_cents).toBe(1000);
      // A new amount sent beside it is what the balance is checked against.
      expect((await importInvoice({ number, customer_identifier: c, amount: 5000, owing_cents: 5000 })).status).toBe(201);
      expect((await importInvoice({ number: uid('INV'), customer_identifier: c, amount: -500, owing_cents: -200 })).status).toBe(201);
    });
  });

  it('balance sync: owing lies from 0 to the amount, on the amount\'s side: a credit memo never owes, an invoice never owes less than nothing', async () => {
    await withCapabilities(ctx, { balance_sync: true }, async () => {
      const c = uid('C');
      const before = ctx.t.engine.core.currentWatermark();
      // A credit memo owing a positive balance would be charged to a card through its pay link.
      const memo = uid('CM');
      const owes = await importInvoice({ number: memo, customer_identifier: c, amount: -5000, owing_cents: 3000 });
      expect([owes.status, owes.body.code, fields(owes.body)]).toEqual([412, 'owing_exceeds_amount', ['owing_cents']]);
      expect(owes.body.error).toContain('3000');
      // An invoice owing less than nothing would be credit no payment stands for.
      const invoice = uid('INV');
      const credit = await importInvoice({ number: invoice, customer_identifier: c, amount: 10000, owing_cents: -100 });
      expect([credit.status, credit.body.code, fields(credit.body)]).toEqual([412, 'owing_exceeds_amount', ['owing_cents']]);
      expect(ctx.t.engine.core.currentWatermark()).toBe(before);
      for (const n of [memo, invoice]) expect((await ctx.api.get(`/api/exports/invoice/${n}`)).status).toBe(404);
      expect((await ctx.api.get(`/api/exports/customer/${c}`)).status).toBe(404);

      // Both ends of the range are taken, on either side of zero.
      for (const [amount, owing] of [[-5000, 0], [-5000, -5000], [10000, 0], [10000, 10000], [0, 0]] as const) {
        const n = uid('INV');
        expect((await importInvoice({ number: n, customer_identifier: c, amount, owing_cents: owing })).status).toBe(201);
        expect((await view(n)).owing_cents).toBe(owing);
      }
      // A memo's kept amount is what a balance sent alone is checked against.
      const kept = uid('CM');
      expect((await importInvoice({ number: kept, customer_identifier: c, amount: -5000, owing_cents: -5000 })).status).toBe(201);
      const raised = await importInvoice({ number: kept, customer_identifier: c, owing_cents: 1 });
      expect([raised.status, raised.body.code]).toEqual([412, 'owing_exceeds_amount']);
      expect((await view(kept)).owing_cents).toBe(-5000);
    });
  });

  it('discounts: a rate always decides the discount amount, from the invoice amount', async () => {
    await withCapabilities(ctx, { discounts: true }, async () => {
      const number = uid('INV');
      await importInvoice({ number, customer_identifier: uid('C'), amount: 40000, discount_amount_cents: 39999, discount_rate: 0.05, discount_expiry_date: '2026-03-15' });
      const v = await view(number);
      expect([v.discount_amount_cents, v.discount_rate, v.discount_expiry_date]).toEqual([2000, 0.05, '2026-03-15']);
      // The stored rate still decides when the amount changes, even beside an amount sent.
      await importInvoice({ number, customer_identifier: v.customer_identifier, amount: 60000, discount_amount_cents: 10 });
      expect((await view(number)).discount_amount_cents).toBe(3000);
      // 1.8% of $17.50 is 31.5 cents, which rounds to 32 (the float product is 31.4999...).
      const half = uid('INV');
      await importInvoice({ number: half, customer_identifier: uid('C'), amount: 1750, discount_rate: 0.018, discount_expiry_date: '2026-03-15' });
      expect((await view(half)).discount_amount_cents).toBe(32);
      const plain = uid('INV');
      await importInvoice({ number: plain, customer_identifier: uid('C'), amount: 40000, discount_amount_cents: 1234 });
      expect((await view(plain)).discount_amount_cents).toBe(1234);
      const bad = await importInvoice({ number: uid('INV'), customer_identifier: uid('C'), amount: 1, discount_rate: 1.5 });
      expect(fields(bad.body)).toContain('discount_rate');
      // A discount of the whole invoice or more would never be given: refused, nothing kept.
      const whole = uid('INV');
      const over = await importInvoice({ number: whole, customer_identifier: uid('C'), amount: 330, discount_amount_cents: 1000 });
      expect([over.status, fields(over.body)]).toEqual([412, ['discount_amount_cents']]);
      expect((await ctx.api.get(`/api/exports/invoice/${whole}`)).status).toBe(404);
    });
    // Without the discount configuration the fields are ignored (as the reference's example sends them).
    const off = uid('INV');
    expect((await importInvoice({ number: off, customer_identifier: uid('C'), amount: 40000, discount_rate: 0.05 })).status).toBe(201);
    expect((await view(off)).discount_amount_cents).toBe(0);
  });

  it('a change the customer\'s balance does not see leaves the customer as it is (no new version of it)', async () => {
    const number = uid('INV');
    const customer = uid('C');
    const start = ctx.t.engine.core.currentWatermark();
    await importInvoice({ number, customer_identifier: customer, amount: 4200 });
    const customerMark = async () => (await ctx.api.get<{ customers: Array<{ watermark: number; identifier: string }> }>(`/api/exports/customers?list=true&limit=2500&watermark=${start}`)).body.customers.find((c) => c.identifier === customer)?.watermark;
    const first = await customerMark();
    expect(first).toBeGreaterThan(0);
    await importInvoice({ number, customer_identifier: customer, notes_text: 'Delivered to the back door' });
    expect(await customerMark()).toBe(first);
    await importInvoice({ number, customer_identifier: customer, amount: 5000 });
    expect(await customerMark()).toBeGreaterThan(first!);
  });

  it('takes ERP invoice numbers with slashes and such, found again by their URL-encoded number', async () => {
    const number = uid('INV/2026/001#');
    const customer = uid('C');
    expect((await importInvoice({ number, customer_identifier: customer, amount: 4200 })).status).toBe(201);
    expect((await view(number)).number).toBe(number);
    expect((await ctx.api.post('/api/imports/payment', { identifier: uid('P'), invoice_number: number, amount_cents: 200, customer_identifier: customer })).status).toBe(201);
    expect((await view(number)).owing_cents).toBe(4000);
    for (const bad of ['tab\there', ' lead', 'x'.repeat(65)]) expect(fields((await importInvoice({ number: bad, customer_identifier: customer, amount: 1 })).body), bad).toContain('number');
  });

  it('accepts the reference\'s own invoice example as it is', async () => {
    const res = await importInvoice({
      number: uid('sh763-'), display_number: 'INV1234', customer_identifier: uid('CUS'), purchase_order_number: 'PO-3847', amount: 40000, currency: 'usd',
      date: '2017-11-01', due_date: '2017-12-15', notes_text: 'Thank you for your business', shipping_name: 'Acme Inc.', shipping_address_1: '1 Main Street',
      shipping_address_2: 'Suite 600', shipping_postal_code: '90210', shipping_city: 'New York', shipping_province: 'NY', owing_cents: 30000,
      discount_amount_cents: 39999, discount_expiry_date: '2017-11-15', replace_line_items: false, amount_override: false,
      line_item_attributes: [{ number: '1', item_number: 'A3947C9878', description: 'Modems', quantity: 40, unit_cost_cents: 1000, amount: 40000 }], echo: 'pay_urls',
    });
    expect(res.status).toBe(201);
    expect(res.body.message).toBe('1 invoice 1 line items');
  });
});

describe('echo, summary invoices, lookups', () => {
  it('echo=pay_urls returns pay_url and pay_urls per contact for an owing invoice', async () => {
    const customer = uid('C');
    await ctx.api.post('/api/imports/customer', { identifier: customer, name: 'X', email: 'ap@x.test' });
    const res = await importInvoice({ number: uid('INV'), customer_identifier: customer, amount: 500, echo: 'pay_urls' });
    expect(res.body.pay_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/pay\/[0-9]+-[A-Z0-9]+$/);
    expect(Object.keys(res.body.pay_urls ?? {})).toEqual(['ap@x.test']);
    const none = await importInvoice({ number: uid('INV'), customer_identifier: customer, amount: 500 });
    expect(none.body.pay_url).toBeUndefined();
  });

  it('links children to a summary invoice and refuses a child of a non-summary invoice', async () => {
    const customer = uid('C');
    const parent = uid('SUM');
    await importInvoice({ number: parent, customer_identifier: customer, amount: 0, summary_invoice_parent: '1' });
    const child = uid('CH');
    expect((await importInvoice({ number: child, customer_identifier: customer, amount: 100, summary_invoice_number: parent })).status).toBe(201);
    expect((await view(parent)).summary_invoice_parent).toBe('1');
    expect((await view(child)).summary_invoice_number).toBe(parent);
    const notSummary = await importInvoice({ number: uid('CH'), customer_identifier: customer, amount: 100, summary_invoice_number: child });
    expect(notSummary.body.code).toBe('not_a_summary_invoice');
  });

  it('finds an invoice by number, then display_number, then numeric id; 404 otherwise', async () => {
    const number = uid('INV');
    await importInvoice({ number, display_number: `D-${number}`, customer_identifier: uid('C'), amount: 100 });
    const byNumber = await view(number);
    expect((await view(`D-${number}`)).number).toBe(number);
    expect((await view(String(byNumber.id))).number).toBe(number);
    expect((await ctx.api.get(`/api/exports/invoice/NOPE${uid('x')}`)).status).toBe(404);
  });

  it('open invoices export: only owing invoices; deleted ones only with include_deleted_invoices, carrying deleted', async () => {
    const customer = uid('C');
    const [open, paid, gone] = [uid('O'), uid('P'), uid('G')];
    const start = ctx.t.engine.core.currentWatermark();
    await importInvoice({ number: open, customer_identifier: customer, amount: 100 });
    await importInvoice({ number: paid, customer_identifier: customer, amount: 100 });
    await ctx.api.post('/api/imports/payment', { identifier: uid('PAY'), invoice_number: paid, amount_cents: 100 });
    await importInvoice({ number: gone, customer_identifier: customer, amount: 100 });
    await ctx.t.engine.receivables.deleteInvoice(gone);
    const plain = await ctx.api.get<{ invoices: Record<string, Invoice> }>(`/api/exports/open_invoices?watermark=${start}`);
    const numbers = Object.values(plain.body.invoices).map((i) => i.number);
    expect(numbers).toEqual([open]);
    expect(Object.values(plain.body.invoices)[0]!.deleted).toBeUndefined();
    const withDeleted = await ctx.api.get<{ invoices: Invoice[] }>(`/api/exports/open_invoices?watermark=${start}&list=true&options[include_deleted_invoices]=true`);
    expect(withDeleted.body.invoices.map((i) => [i.number, i.deleted])).toEqual([[open, false], [gone, true]]);
    const customerOpen = await ctx.api.get<{ open_invoices: Array<{ number: string }> }>(`/api/exports/customer/${customer}/open_invoices?list=true`);
    expect(customerOpen.body.open_invoices.map((i) => i.number)).toEqual([open]);
    expect((await ctx.api.get(`/api/exports/customer/NOPE${uid('x')}/open_invoices`)).status).toBe(404);
  });

  it('options[payments]=true appends the invoice\'s payments, with line amounts under line-item short pay', async () => {
    const number = uid('INV');
    await withCapabilities(ctx, { line_item_short_pay: true }, async () => {
      await importInvoice({ number, customer_identifier: uid('C'), line_item_attributes: [{ number: 'A', amount: 600 }, { number: 'B', amount: 400 }] });
      await ctx.api.post('/api/imports/payment', { identifier: uid('PAY'), payment_amounts_attributes: [{ invoice_number: number, amount: 500, line_number: 'B' }] });
      const v = await view(number, '?options[payments]=true');
      expect(v.payments).toHaveLength(1);
      expect(v.payments![0]!.amount).toBe('5.00');
      expect(v.payments![0]!.line_item_transactional_amounts).toEqual([
        expect.objectContaining({ line_item_number: 'B', line_item_payment_amount: '4.00', line_item_balance: '0.00' }),
        expect.objectContaining({ line_item_number: 'A', line_item_payment_amount: '1.00', line_item_balance: '5.00' }),
      ]);
      expect(v.line_item_attributes.map((l) => l.balance_cents)).toEqual([500, 0]);
      expect((await view(number)).payments).toBeUndefined();
      // The reference's other form: `options` as an array of option names.
      for (const query of ['?options[]=payments', '?options=payments']) expect((await view(number, query)).payments, query).toHaveLength(1);
      expect((await view(number, '?options[]=other')).payments).toBeUndefined();
    });
    // With line-item short pay turned off since, the nested lines are not shown; turned on again, they are.
    const off = await view(number, '?options[payments]=true');
    expect(off.payments).toHaveLength(1);
    expect(off.payments![0]!.line_item_transactional_amounts).toBeUndefined();
    await withCapabilities(ctx, { line_item_short_pay: true }, async () => {
      expect((await view(number, '?options[payments]=true')).payments![0]!.line_item_transactional_amounts).toHaveLength(2);
    });
  });
});

describe('attachments', () => {
  const attach = (number: string, body: Record<string, unknown>) => ctx.api.post<ErrorReply & { identifier: string; message: string }>(`/api/imports/invoice/${encodeURIComponent(number)}/attachment`, body);

  it('stores a PDF as primary or supplementary, found by number or display_number', async () => {
    const number = uid('INV');
    await importInvoice({ number, display_number: `DN-${number}`, customer_identifier: uid('C'), amount: 100 });
    const primary = await attach(number, { find_by: 'number', file_name: 'invoice.pdf', content: PDF });
    expect(primary.status).toBe(200);
    expect(primary.body).toEqual({ identifier: 'invoice.pdf', message: `1 attachment for invoice ${number}` });
    const extra = await attach(`DN-${number}`, { find_by: 'display_number', invoice_display: false, file_name: 'terms.pdf', content: PDF });
    expect(extra.status).toBe(200);
    const v = await view(number);
    expect(v.attachments).toEqual([
      { file_name: 'invoice.pdf', invoice_display: true, size: Buffer.from(PDF, 'base64').length },
      { file_name: 'terms.pdf', invoice_display: false, size: Buffer.from(PDF, 'base64').length },
    ]);
    // The invoice document stays small: content lives beside it.
    expect(JSON.stringify(v)).not.toContain(PDF.slice(0, 20));
  });

  it('refuses non-PDF content, bad base64, bad names and unknown invoices; over 25 MB is 413', async () => {
    const number = uid('INV');
    await importInvoice({ number, customer_identifier: uid('C'), amount: 100 });
    const text = Buffer.from('hello, not a pdf').toString('base64');
    expect((await attach(number, { find_by: 'number', file_name: 'a.pdf', content: text })).body.code).toBe('not_a_pdf');
    expect((await attach(number, { find_by: 'number', file_name: 'a.pdf', content: '***' })).body.code).toBe('invalid_base64');
    expect((await attach(number, { find_by: 'number', file_name: 'a.pdf', content: 'QUJDR' })).body.code).toBe('invalid_base64');
    // What the content is decides, not the name's extension; base64 may come without its padding.
    const padded = Buffer.from('%PDF-1.4\n%%EOF').toString('base64');
    expect(padded.endsWith('=')).toBe(true);
    expect((await attach(number, { find_by: 'number', file_name: 'scan.tiff', content: padded.replace(/=+$/, '') })).status).toBe(200);
    expect((await attach(number, { find_by: 'number', file_name: 'noextension', content: PDF })).status).toBe(412);
    expect((await attach(number, { find_by: 'number', file_name: `${'x'.repeat(252)}.pdf`, content: PDF })).status).toBe(412);
    expect((await attach(number, { find_by: 'number', file_name: '../etc.pdf', content: PDF })).status).toBe(412);
    expect((await attach(number, { file_name: 'a.pdf', content: PDF })).status).toBe(412);
    expect((await attach(`NOPE${uid('x')}`, { find_by: 'number', file_name: 'a.pdf', content: PDF })).status).toBe(404);
    const big = Buffer.alloc(25 * 1024 * 1024 + 1, 32);
    big.write('%PDF-1.4');
    const tooBig = await attach(number, { find_by: 'number', file_name: 'big.pdf', content: big.toString('base64') });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.code).toBe('attachment_too_large');
    const inline = await importInvoice({ number: uid('INV'), customer_identifier: uid('C'), amount: 1, attachment: { file_name: 'x.pdf', content: text } });
    expect(inline.status).toBe(412);
    expect(fields(inline.body)).toContain('attachment.content');
  });
});

describe('invoice rules in the engine (the CSV import calls them without the JSON schema in front)', () => {
  it('refuses a too-long shipping name or postal code, naming the field, and writes nothing', async () => {
    const number = uid('SHIP');
    const customer = uid('C');
    const attempt = (extra: Record<string, unknown>) =>
      ctx.t.engine.receivables.importInvoice({ number, customer_identifier: customer, amount: 1000, ...extra }).then(
        () => null,
        (err: { code?: string; details?: Array<{ field: string }> }) => err,
      );
    const longName = await attempt({ shipping_name: 'N'.repeat(201) });
    expect(longName?.details?.map((d) => d.field)).toContain('shipping_name');
    const longZip = await attempt({ shipping_postal_code: '9'.repeat(31) });
    expect(longZip?.details?.map((d) => d.field)).toContain('shipping_postal_code');
    expect((await ctx.api.get(`/api/exports/invoice/${number}`)).status).toBe(404);
  });
});

