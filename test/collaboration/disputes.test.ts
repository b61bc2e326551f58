import { describe, expect, it } from 'vitest';
import { useHarness } from '../helpers/harness';
import { uid } from '../helpers/receivables';

const h = useHarness({ api: true, timezone: 'America/Toronto' });

type Msg = { identifier: string; message: string; code?: string };
type DisputeRow = Record<string, unknown> & { invoice_number: string; watermark?: number };

async function invoice(amount = 12_000) {
  const customer = uid('C');
  const number = uid('INV');
  await h.api.post('/api/imports/customer', { identifier: customer, name: 'Acme Inc.' });
  expect((await h.api.post('/api/imports/invoice', { number, customer_identifier: customer, amount })).status).toBe(201);
  return { customer, number };
}

describe('disputes', () => {
  it('opens (ours) and closes a dispute; closing none is "0 disputes closed"; an unknown invoice is 412', async () => {
    const { number } = await invoice();
    const opened = await h.api.post<Msg & { dispute_id: number }>(`/api/invoices/${number}/disputes`, { opener: 'ap@acme.test', comment: 'Damaged goods.' });
    expect(opened.status).toBe(201);
    expect((await h.api.post<Msg>(`/api/invoices/${number}/disputes`, { opener: 'ap@acme.test', comment: 'Again' })).body.code).toBe('dispute_already_open');
    const closed = await h.api.post<Msg>(`/api/invoices/${number}/disputes/close`, { closer: 'ar@store.test', comment: 'Credited.' });
    expect([closed.status, closed.body]).toEqual([201, { identifier: number, message: '1 dispute closed' }]);
    const again = await h.api.post<Msg>(`/api/invoices/${number}/disputes/close`, {});
    expect([again.status, again.body]).toEqual([201, { identifier: number, message: '0 disputes closed' }]);
    expect((await h.api.post<Msg>('/api/invoices/NO-SUCH-INVOICE/disputes/close', {})).status).toBe(412);
  });

  it('exports open and closed disputes since a date or datetime, keyed by dispute id, in the reference shape', async () => {
    h.t.clock.set('2026-04-10T14:00:00Z'); // 10:00 in Toronto (EDT)
    const a = await invoice(12_000);
    const b = await invoice(5_000);
    const openedA = (await h.api.post<{ dispute_id: number }>(`/api/invoices/${a.number}/disputes`, { opener: 'ap@acme.test', comment: 'Damaged goods. Please correct the amount.' })).body.dispute_id;
    const openedB = (await h.api.post<{ dispute_id: number }>(`/api/invoices/${b.number}/disputes`, { opener: 'Jane Buyer', comment: 'Wrong price' })).body.dispute_id;
    h.t.clock.set('2026-04-12T18:30:00Z');
    await h.api.post(`/api/invoices/${a.number}/disputes/close`, { closer: 'supplier@store.test', comment: 'Invoice will be credited. Please pay the rest.' });

    const page = (await h.api.get<{ disputes: Record<string, DisputeRow> }>('/api/exports/disputes?watermark=2026-04-10')).body.disputes;
    expect(Object.keys(page)).toEqual([String(openedA), String(openedB)]);
    expect(page[String(openedA)]).toMatchObject({
      opened_at: '2026-04-10T10:00:00-04:00',
      closed_at: '2026-04-12T14:30:00-04:00',
      opener: 'ap@acme.test',
      closer: 'supplier@store.test',
      opening_comment_text: 'Damaged goods. Please correct the amount.',
      closing_comment_text: 'Invoice will be credited. Please pay the rest.',
      invoice_number: a.number,
      invoice_balance: { usd: 12_000 },
      invoice_amount_paid: '0.00',
      invoice_identifier: `${h.t.engine.account.profile().sender_identifier}|${a.number}`,
      opening_comment_users_notified: [],
      closing_comment_user_notified: [],
      creator_business_name: 'Acme Inc.',
    });
    expect(page[String(openedB)]).toMatchObject({ closed_at: null, closer: null, closing_comment_user_notified: '' });

    // A datetime after B was opened: B (open) is left out, A (closed later) stays.
    const later = (await h.api.get<{ disputes: DisputeRow[] }>('/api/exports/disputes?watermark=2026-04-11T09:00:00&list=true')).body.disputes;
    expect(later.map((d) => [d.invoice_number, d.watermark])).toEqual([[a.number, openedA]]);
    expect((await h.api.get<{ disputes: DisputeRow[] }>('/api/exports/disputes?watermark=2026-04-13&list=true')).body.disputes).toEqual([]);
    expect((await h.api.get('/api/exports/disputes?watermark=12345')).status).toBe(400);
    expect((await h.api.get('/api/exports/disputes?watermark=2026-02-30')).status).toBe(400);
    expect((await h.api.get('/api/exports/disputes?watermark=2026-13-01')).status).toBe(400);
    expect((await h.api.get('/api/exports/disputes?watermark=2026-04-10T24:00:00')).status).toBe(400);
  });

  it('answers at most 100 open and 100 closed disputes', async () => {
    h.t.clock.set('2026-05-01T12:00:00Z');
    const numbers: string[] = [];
    for (let i = 0; i < 103; i++) {
      const { number } = await invoice(1_000);
      await h.api.post(`/api/invoices/${number}/disputes`, { opener: 'ap@acme.test', comment: `Dispute ${i}` });
      numbers.push(number);
    }
    const open = (await h.api.get<{ disputes: DisputeRow[] }>('/api/exports/disputes?watermark=2026-05-01&list=true')).body.disputes;
    expect(open).toHaveLength(100);
    expect(open.map((d) => d.invoice_number)).toEqual(numbers.slice(0, 100));
    h.t.clock.set('2026-05-02T12:00:00Z');
    for (const n of numbers.slice(0, 101)) await h.api.post(`/api/invoices/${n}/disputes/close`, {});
    const both = (await h.api.get<{ disputes: DisputeRow[] }>('/api/exports/disputes?watermark=2026-05-01&list=true')).body.disputes;
    expect(both.filter((d) => d.closed_at === null).map((d) => d.invoice_number)).toEqual(numbers.slice(101));
    expect(both.filter((d) => d.closed_at !== null)).toHaveLength(100);
  });
});

describe('comments', () => {
  it('exports customer, invoice and dispute comments by watermark', async () => {
    const start = h.t.engine.core.currentWatermark();
    const { customer, number } = await invoice();
    const onCustomer = await h.api.post<{ identifier: string }>(`/api/customers/${customer}/comments`, { comment: 'Called about credit limit', user: 'Bob Smith', email: 'bob@store.test', internal: true });
    expect(onCustomer.status).toBe(201);
    await h.api.post(`/api/invoices/${number}/comments`, { comment: 'Will pay Friday', user: 'Jane Buyer', by_customer: true });
    await h.api.post(`/api/invoices/${number}/disputes`, { opener: 'ap@acme.test', comment: 'Short shipped' });
    expect((await h.api.post('/api/customers/NOBODY/comments', { comment: 'x' })).status).toBe(412);
    expect((await h.api.post('/api/invoices/NOPE/comments', { comment: 'x' })).status).toBe(412);

    const page = (await h.api.get<{ comments: Array<Record<string, unknown> & { watermark: number }> }>(`/api/exports/comments?watermark=${start}&list=true`)).body.comments;
    expect(page.map((c) => [c.regarding, c.dispute, c.internal, c.organization])).toEqual([
      [`Customer ${customer}`, 'N', 'Y', h.t.engine.account.profile().name],
      [`Invoice ${number}`, 'N', 'N', 'Acme Inc.'],
      [`Invoice ${number}`, 'Y', 'N', 'Acme Inc.'],
    ]);
    expect(page[0]).toMatchObject({ identifier: onCustomer.body.identifier, customer_identifier: customer, customer_name: 'Acme Inc.', user: 'Bob Smith', email: 'bob@store.test', target_users: '' });
    expect(String(page[0]!.timestamp)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
    const rest = (await h.api.get<{ comments: Record<string, unknown> }>(`/api/exports/comments?watermark=${page[1]!.watermark}`)).body.comments;
    expect(Object.keys(rest)).toEqual([String(page[2]!.watermark)]);
  });
});
