import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../helpers/harness';
import type { CustomerPage, InvoicePage, OrderPage, PaymentPage, SearchResult, AgingSummary, TransactionPage } from '../../src/shared/schemas/backoffice';
import { card, MASTERCARD, VISA } from '../helpers/cards';
import { inUnitOfWork } from '../../src/engine/receivables/unit-of-work';
import { deleteInvoice } from '../../src/engine/receivables/invoices';

/** The back office's list queries over HTTP: filters, newest first, cursor paging, search, aging. */
const h = useHarness({ api: true });
const invoices = async (qs: string) => (await h.api.get<InvoicePage>(`/api/backoffice/invoices?${qs}`)).body;

describe('back-office lists', () => {
  beforeAll(async () => {
    for (const c of ['BL-ACME', 'BL-BETA', 'BL-GAMMA']) expect((await h.api.post('/api/imports/customer', { identifier: c, name: `${c} Inc` })).status).toBeLessThan(300);
    // Today is 2026-03-02 (the harness clock): BL-1 and BL-3 are overdue, BL-2 not yet due.
    const rows = [
      ['BL-1', 'BL-ACME', 10000, '2026-01-10', '2026-02-10'],
      ['BL-2', 'BL-ACME', 25000, '2026-02-20', '2026-03-20'],
      ['BL-3', 'BL-BETA', 5000, '2026-01-05', '2026-02-05'],
      ['BL-4', 'BL-GAMMA', 7000, '2026-02-01', '2026-03-01'],
    ] as const;
    for (const [number, customer, amount, date, due] of rows) {
      expect((await h.api.post('/api/imports/invoice', { number, customer_identifier: customer, amount, date, due_date: due })).status).toBeLessThan(300);
    }
    expect((await h.api.post('/api/imports/payment', { identifier: 'BL-CHQ-1', invoice_number: 'BL-4', amount_cents: 7000, customer_identifier: 'BL-GAMMA', external_payment_type: 'cheque' })).status).toBe(201);
  });

  it('lists invoices newest first and filters by status, customer and amount', async () => {
    expect((await invoices('')).items.map((i) => i.number)).toEqual(['BL-4', 'BL-3', 'BL-2', 'BL-1']);
    expect((await invoices('status=overdue')).items.map((i) => i.number)).toEqual(['BL-3', 'BL-1']);
    expect((await invoices('status=paid')).items.map((i) => [i.number, i.status])).toEqual([['BL-4', 'PAID']]);
    expect((await invoices('customer=BL-ACME')).items.map((i) => i.number)).toEqual(['BL-2', 'BL-1']);
    expect((await invoices('amount_min=6000&amount_max=20000')).items.map((i) => i.number)).toEqual(['BL-4', 'BL-1']);
    expect((await invoices('date_from=2026-02-01&status=open')).items.map((i) => i.number)).toEqual(['BL-2']);
    expect((await invoices('due_to=2026-02-28')).items.map((i) => i.number)).toEqual(['BL-3', 'BL-1']);
    expect((await invoices('customer=NOBODY')).items).toEqual([]);
    // The customer typed as a clerk types it: in lower case, or by the one customer of that name.
    expect((await invoices('customer=bl-acme')).items.map((i) => i.number)).toEqual(['BL-2', 'BL-1']);
    expect((await invoices('customer=ACME%20inc')).items.map((i) => i.number)).toEqual(['BL-2', 'BL-1']);
    // A name several customers have names none of them.
    expect((await invoices('customer=inc')).items).toEqual([]);
  });

  it('pages with the cursor without repeating or skipping', async () => {
    const first = await invoices('limit=3');
    expect(first.items).toHaveLength(3);
    expect(first.next).not.toBeNull();
    const second = await invoices(`limit=3&before=${first.next}`);
    expect([...first.items, ...second.items].map((i) => i.number)).toEqual(['BL-4', 'BL-3', 'BL-2', 'BL-1']);
    expect(second.next).toBeNull();
  });

  it('lists customers by identifier with balances, searches by prefix', async () => {
    const page = (await h.api.get<CustomerPage>('/api/backoffice/customers?q=BL-')).body;
    expect(page.items.map((c) => [c.identifier, c.balance_cents])).toEqual([['BL-ACME', 35000], ['BL-BETA', 5000], ['BL-GAMMA', 0]]);
    const paged = (await h.api.get<CustomerPage>('/api/backoffice/customers?q=BL-&limit=2')).body;
    expect(paged.next).toBe('BL-BETA');
    expect((await h.api.get<CustomerPage>(`/api/backoffice/customers?q=BL-&after=${paged.next}`)).body.items.map((c) => c.identifier)).toEqual(['BL-GAMMA']);
    // Typed in lower case, then by name, as a clerk types: "bl-b", "gamma inc".
    const ids = async (q: string) => (await h.api.get<CustomerPage>(`/api/backoffice/customers?q=${encodeURIComponent(q)}`)).body.items.map((c) => c.identifier);
    expect(await ids('bl-b')).toEqual(['BL-BETA']);
    expect(await ids('gamma inc')).toEqual(['BL-GAMMA']);
    expect(await ids('nobody at all')).toEqual([]);
  });

  it('lists payments with what is unapplied, and sums aging', async () => {
    const p = (await h.api.get<PaymentPage>('/api/backoffice/payments?customer=BL-GAMMA')).body.items;
    expect(p.map((x) => [x.reference, x.amount_cents, x.unapplied_cents, x.method])).toEqual([['BL-CHQ-1', 7000, 0, 'cheque']]);
    const aging = (await h.api.get<AgingSummary>('/api/backoffice/aging')).body;
    expect(aging.balance_cents).toBe(40000);
    expect(aging.buckets.find((b) => b.bucket === 'current')!.cents).toBe(25000);
    expect(aging.buckets.find((b) => b.bucket === '1-30')!.cents).toBe(15000);
    expect(aging.currencies).toEqual([{ currency: 'usd', balance_cents: 40000, customers_owing: 2 }]);
  });

  it('sums aging in each currency owed: the shop\'s by default, another asked for, each listed', async () => {
    expect((await h.api.post('/api/imports/customer', { identifier: 'BL-YEN', name: 'Tanaka Coffee' })).status).toBeLessThan(300);
    expect((await h.api.post('/api/imports/invoice', { number: 'BL-YEN-1', customer_identifier: 'BL-YEN', amount: 123456, currency: 'JPY', date: '2026-01-12', due_date: '2026-01-12' })).status).toBe(201);
    const usd = (await h.api.get<AgingSummary>('/api/backoffice/aging')).body;
    expect([usd.currency, usd.balance_cents]).toEqual(['usd', 40000]);
    expect(usd.currencies).toEqual([{ currency: 'usd', balance_cents: 40000, customers_owing: 2 }, { currency: 'jpy', balance_cents: 123456, customers_owing: 1 }]);
    const yen = (await h.api.get<AgingSummary>('/api/backoffice/aging?currency=JPY')).body;
    expect([yen.currency, yen.balance_cents, yen.customers_owing]).toEqual(['jpy', 123456, 1]);
    expect(yen.buckets.reduce((sum, b) => sum + b.cents, 0)).toBe(123456);
    expect((await h.api.get('/api/backoffice/aging?currency=yen!')).status).toBe(400);
  });

  it("shows an imported payment's method by its payment_code (as the CSV sample sends it), not the channel it came by", async () => {
    expect((await h.api.post('/api/imports/customer', { identifier: 'PC-ONE', name: 'Code Only Ltd' })).status).toBeLessThan(300);
    expect((await h.api.post('/api/imports/payment', { identifier: 'PC-CHQ-1', customer_identifier: 'PC-ONE', amount_cents: 100, payment_code: 'cheque' })).status).toBe(201);
    const p = (await h.api.get<PaymentPage>('/api/backoffice/payments?customer=PC-ONE')).body.items;
    expect(p.map((x) => [x.reference, x.method])).toEqual([['PC-CHQ-1', 'cheque']]);
  });

  it('lists the card sales made without an order, newest first, naming the card; sales on an order are the orders list\'s', async () => {
    const sale = async (number: string, order?: string) => (await h.api.post<{ transactions: Array<{ token: string }> }>('/api/gateway/v1/orders/sale', { amount_cents: 1_234, credit_card: card(number), ...(order ? { order: { identifier: order } } : {}) })).body.transactions[0]!.token;
    const first = await sale(VISA);
    await sale(VISA, 'BL-ORDER-1');
    const second = await sale(MASTERCARD);
    const page = (await h.api.get<TransactionPage>('/api/backoffice/transactions')).body;
    expect(page.items.map((t) => [t.token, t.method, t.amount_cents, t.action])).toEqual([
      [second, 'Mastercard •••• 4422', 1_234, 'sale'],
      [first, 'Visa •••• 0006', 1_234, 'sale'],
    ]);
    // The orders list has the sale on an order, and an order's own number (a register sale's receipt number).
    expect((await h.api.post('/api/imports/order', { identifier: 'BL-ORDER-2', number: '1-000003', amount_cents: 500 })).status).toBe(201);
    const orders = (await h.api.get<OrderPage>('/api/backoffice/orders')).body.items;
    expect(orders.map((o) => [o.identifier, o.number, o.state])).toEqual([['BL-ORDER-2', '1-000003', 'open'], ['BL-ORDER-1', null, 'open']]);
    const one = (await h.api.get<TransactionPage>('/api/backoffice/transactions?limit=1')).body;
    expect(one.items.map((t) => t.token)).toEqual([second]);
    expect((await h.api.get<TransactionPage>(`/api/backoffice/transactions?limit=1&before=${one.next}`)).body.items.map((t) => t.token)).toEqual([first]);
  });

  it('finds a customer, an invoice and a payment from one box', async () => {
    const kinds = async (q: string) => (await h.api.get<SearchResult>(`/api/backoffice/search?q=${encodeURIComponent(q)}`)).body.hits.map((x) => `${x.kind}:${x.key}`);
    expect(await kinds('BL-ACME')).toEqual(['customer:BL-ACME']);
    expect(await kinds('BL-2')).toEqual(['invoice:BL-2']);
    expect(await kinds('BL-CHQ-1')).toEqual(['payment:BL-CHQ-1']);
    expect(await kinds('ZZZ-nothing')).toEqual([]);
    // Typed in lower case, as a clerk often does: found in upper case when nothing matches as typed.
    expect(await kinds('bl-2')).toEqual(['invoice:BL-2']);
    expect(await kinds('bl-ac')).toEqual(['customer:BL-ACME']);
    // By the words of a name, as a clerk types it: any case, with or without accents, in any order.
    expect((await h.api.post('/api/imports/customer', { identifier: 'C-7731', name: 'Quincaillerie Étienne & Fils' })).status).toBeLessThan(300);
    for (const q of ['quincaillerie', 'etienne QUINC', 'Étienne', 'fils']) expect(await kinds(q), q).toEqual(['customer:C-7731']);
    expect(await kinds('etienne zinc')).toEqual([]);
    const [hit] = (await h.api.get<SearchResult>('/api/backoffice/search?q=etienne')).body.hits;
    expect(hit!.label).toBe('C-7731 · Quincaillerie Étienne & Fils');
  });

  it("filters by the invoice's own date, whatever its other fields hold", async () => {
    // The date filter reads the date from the stored rendering without parsing it: notes and a
    // shipping name that look like a date key must not fool it.
    const tricky = 'BL-DELTA';
    const made = await h.api.post('/api/imports/invoice', { number: 'BL-Q', customer_identifier: tricky, notes_text: '"date":"2099-12-31"', shipping_name: '","date":"2099-12-31', amount: 100, date: '2026-01-20', due_date: '2026-02-20' });
    expect(made.status, JSON.stringify(made.body)).toBeLessThan(300);
    expect((await invoices('date_from=2099-01-01')).items).toEqual([]);
    expect((await invoices('date_from=2026-01-15&date_to=2026-01-25')).items.map((i) => [i.number, i.customer_identifier, i.date])).toEqual([['BL-Q', tricky, '2026-01-20']]);
    expect((await invoices('date_to=2026-01-09')).items.map((i) => i.number)).toEqual(['BL-3']);
  });

  it('keeps an invoice a reconciliation closed in All and Closed (and only there); Closed is not Paid', async () => {
    expect((await h.api.post('/api/imports/invoice', { number: 'BL-GONE', customer_identifier: 'BL-BETA', amount: 23990, date: '2026-02-25', due_date: '2026-03-25' })).status).toBeLessThan(300);
    await inUnitOfWork(h.t.engine.core, h.t.engine.account, (unit) => deleteInvoice(unit, 'BL-GONE'));
    const all = (await invoices('')).items;
    expect(all.find((i) => i.number === 'BL-GONE')?.status).toBe('CLOSED');
    expect((await invoices('status=closed')).items.map((i) => [i.number, i.status])).toEqual([['BL-GONE', 'CLOSED']]);
    for (const status of ['open', 'overdue', 'paid']) expect((await invoices(`status=${status}`)).items.map((i) => i.number)).not.toContain('BL-GONE');
  });
});
