import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { basicAuth } from '../helpers/harness';
import { checkResponse } from '../helpers/openapi-check';
import type { AutopayPayment, DueInvoice, ReceivablesPort } from '../../src/engine/wallets/autopay-port';
import { card, startGateway, type Harness } from '../helpers/gateway';

/**
 * A stand-in for the receivables domain (not merged yet): customers, open invoices and the payments
 * recorded against them, behind the port autopay defines.
 */
class FakeReceivables implements ReceivablesPort {
  customers = new Set<string>(['C1', 'C2']);
  invoices: DueInvoice[] = [];
  payments: AutopayPayment[] = [];
  failNextRecord = false;

  async customerExists(identifier: string) {
    return this.customers.has(identifier);
  }
  async customerName(identifier: string) {
    return this.customers.has(identifier) ? null : undefined;
  }
  async dueInvoices(customer: string, asOf: string) {
    return this.invoices.filter((i) => i.customer_identifier === customer && i.due_date <= asOf && i.owing_cents > 0).map((i) => ({ ...i }));
  }
  async recordPayment(payment: AutopayPayment) {
    if (this.failNextRecord) {
      this.failNextRecord = false;
      throw new Error('receivables store unavailable');
    }
    if (!this.payments.some((p) => p.identifier === payment.identifier)) {
      this.payments.push(payment);
      for (const line of payment.invoices) {
        const inv = this.invoices.find((i) => i.number === line.number)!;
        inv.owing_cents -= line.amount_cents;
      }
    }
    return { identifier: payment.identifier };
  }
  async viewPayment(reference: string, options: { tree?: boolean } = {}) {
    const p = this.payments.find((x) => x.identifier === reference);
    if (!p) return undefined;
    const amount = (p.amount_cents / 100).toFixed(2);
    // The reference's PaymentResponse, as the receivables domain answers it (the route answers it as it is).
    return {
      payment_reference: p.identifier, date: p.date, currency: p.currency, payment_amount: amount, payment_transaction_amount: amount, unapplied_amount: '0.00',
      payment_method: p.payment_method, auto_debit_indicator: 'Y', payment_timestamp: `${p.date}T00:00:00.000Z`, payment_transaction_token: p.transaction_token,
      customer_identifier: p.customer_identifier, customer_name: p.customer_identifier, status: p.status, status_reason: '', payment_source: 'ARC', payment_code: null,
      payment_description: null, gateway_authorization_code: p.authorization_code, pay_to_bank_account: null, pay_to_bank_account_name: null, display_identifier: p.identifier,
      external_payment_type: null, external_payment_number: null, payor_name: null, payor_bank_branch_number: null, payor_bank_account_number: null, settlement_date: null,
      external_id: null, fx_rate: null, fx_amount: null, fx_amount_cents: null, payment_amounts: [], batch_number: null, batch_amount: '', watermark: 1, received_amount: amount, refunds: [],
      ...(options.tree ? { payment_tree: { root: p.identifier, children: [] as string[] } } : {}),
    };
  }
}

/** fetch refuses a GET with a body; the reference's retrieve sends one. */
function getWithBody(url: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', headers: { Authorization: basicAuth(), 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

let h: Harness;
afterEach(async () => {
  await h.close();
});

const invoice = (number: string, due: string, owing: number, ref: string | null = null, customer = 'C1'): DueInvoice => ({
  number,
  customer_identifier: customer,
  currency: 'USD',
  owing_cents: owing,
  due_date: due,
  auto_debit: true,
  auto_debit_reference: ref,
});

async function customerFund(customer: string, number?: string) {
  const w = await h.api.post<{ fund_token: string }>('/api/gateway/v1/wallets', { customer: { identifier: customer, name: customer }, credit_card: card(number) });
  return w.body.fund_token;
}

describe('autopay agreements', () => {
  it('creates, retrieves, updates and revokes', async () => {
    const port = new FakeReceivables();
    h = await startGateway({ receivables: port });
    const fund = await customerFund('C1');
    const created = await h.api.post<{ token: string }>('/api/autopay', { customer_identifier: 'C1', fund_token: fund });
    expect(created.status).toBe(201);
    const dup = await h.api.post<{ code: string }>('/api/autopay', { customer_identifier: 'C1', fund_token: fund });
    expect(dup.status).toBe(412);
    expect(dup.body.code).toBe('autopay_exists');
    const specific = await h.api.post<{ token: string }>('/api/autopay', { customer_identifier: 'C1', fund_token: fund, autopay_reference: ['POL-1', 'POL-2'] });
    expect(specific.status).toBe(201);

    const got = await h.api.get<{ agreement_token: string; fund_token: string; timing: string; autopays: Array<{ agreement_token: string }> }>('/api/autopay?customer_identifier=C1');
    expect(got.status).toBe(201);
    expect(got.body).toMatchObject({ fund_token: fund, timing: 'AutoPay on Due Date' });
    expect(got.body.autopays.map((a) => a.agreement_token).sort()).toEqual([created.body.token, specific.body.token].sort());
    // The reference sends the customer in a GET body.
    const viaBody = await getWithBody(`${h.api.url}/api/autopay`, { customer_identifier: 'C1' });
    expect(viaBody.status).toBe(201);
    expect(checkResponse('GET', '/api/autopay', viaBody.status, viaBody.body)).toEqual([]);
    expect((viaBody.body as { autopays: unknown[] }).autopays).toHaveLength(2);
    // A mistyped customer is a 412, not an empty list that reads as "no autopay".
    const unknown = await h.api.get<{ code: string }>('/api/autopay?customer_identifier=C1X');
    expect(unknown.status).toBe(412);
    expect(unknown.body.code).toBe('customer_not_found');

    const other = await customerFund('C1', '5541032000004422');
    const moved = await h.api.put<{ token: string }>('/api/autopay', { customer_identifier: 'C1', fund_token: other, token: fund });
    expect(moved.status).toBe(201);
    expect(moved.body.token).toBe(other);
    const revoked = await h.api.post('/api/autopay/revoke', { customer_identifier: 'C1', token: specific.body.token });
    expect(revoked.status).toBe(200);
    const after = await h.api.get<{ autopays: Array<{ fund_token: string }> }>('/api/autopay?customer_identifier=C1');
    expect(after.body.autopays.map((a) => a.fund_token)).toEqual([other]);
  });

  it('refuses a fund outside the customer\'s wallets, an unknown customer or fund', async () => {
    const port = new FakeReceivables();
    h = await startGateway({ receivables: port });
    const theirs = await customerFund('C2');
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ customer_identifier: 'C1', fund_token: theirs }, 'fund_not_authorized'],
      [{ customer_identifier: 'NOBODY', fund_token: theirs }, 'customer_not_found'],
      [{ customer_identifier: 'C2', fund_token: 'CCNOPE' }, 'payment_method_not_found'],
      [{ customer_identifier: 'C2' }, 'validation_failed'],
    ];
    for (const [body, code] of cases) {
      const res = await h.api.post<{ code: string }>('/api/autopay', body);
      expect(res.status, code).toBe(412);
      expect(res.body.code, code).toBe(code);
    }
    const revoke = await h.api.post<{ code: string }>('/api/autopay/revoke', { customer_identifier: 'C2', token: 'NOPE' });
    expect(revoke.body.code).toBe('autopay_not_found');
  });
});

describe('autopay charging on due dates', () => {
  it('charges the due invoices once per day with the fund, records the payment, and never charges twice', async () => {
    const port = new FakeReceivables();
    h = await startGateway({ receivables: port });
    const fund = await customerFund('C1');
    const general = await h.api.post<{ token: string }>('/api/autopay', { customer_identifier: 'C1', fund_token: fund });
    const specificFund = await customerFund('C1', '6011000990911111');
    await h.api.post('/api/autopay', { customer_identifier: 'C1', fund_token: specificFund, autopay_reference: 'POL-7' });
    port.invoices.push(invoice('INV-1', '2026-03-02', 12000), invoice('INV-2', '2026-03-02', 3000), invoice('INV-3', '2026-03-05', 5000), invoice('INV-4', '2026-03-02', 2500, 'POL-7'));
    port.invoices.push({ ...invoice('INV-5', '2026-03-01', 999), auto_debit: false });

    await h.t.engine.tick();
    expect(port.payments).toHaveLength(2);
    const general1 = port.payments.find((p) => p.autopay_agreement === general.body.token)!;
    expect(general1).toMatchObject({ customer_identifier: 'C1', date: '2026-03-02', amount_cents: 15000, fund_token: fund, status: 'PAID', payment_method: 'credit_card' });
    // With what each owed when the sale was priced: receivables records nothing if that moved.
    expect(general1.invoices).toEqual([
      { number: 'INV-1', amount_cents: 12000, owing_cents: 12000 },
      { number: 'INV-2', amount_cents: 3000, owing_cents: 3000 },
    ]);
    const specific1 = port.payments.find((p) => p.autopay_agreement !== general.body.token)!;
    expect(specific1).toMatchObject({ amount_cents: 2500, fund_token: specificFund, invoices: [{ number: 'INV-4', amount_cents: 2500 }] });
    const tx = await h.api.get<{ action: string; amount_in_cents: number; payments: Array<{ identifier: string }> }>(`/api/exports/transaction/${general1.transaction_token}`);
    expect(tx.body).toMatchObject({ action: 'sale', amount_in_cents: 15000, payments: [{ identifier: general1.identifier }] });
    const detail = await h.api.get<{ payment_reference: string }>(`/api/gateway/v1/payments/${general1.identifier}`);
    expect(detail.body.payment_reference).toBe(general1.identifier);

    // Ticks repeat within the day: nothing more is charged.
    await h.t.engine.tick();
    expect(port.payments).toHaveLength(2);

    // INV-3 falls due on the 5th; the receivables store fails once: the next tick retries without charging twice.
    h.t.clock.set('2026-03-05T06:00:00Z');
    port.failNextRecord = true;
    await h.t.engine.tick();
    expect(port.payments).toHaveLength(2);
    await h.t.engine.tick();
    expect(port.payments).toHaveLength(3);
    expect(port.payments[2]).toMatchObject({ amount_cents: 5000, date: '2026-03-05' });
    const order = await h.t.engine.core.find('transactions', { selector: { fund } });
    const sales = order.filter((d) => (d.data as { action: string; amount_cents: number }).action === 'sale' && (d.data as { amount_cents: number }).amount_cents === 5000);
    expect(sales).toHaveLength(1);
  });

  it('records a decline and does not record a payment; revoked agreements stop charging', async () => {
    const port = new FakeReceivables();
    h = await startGateway({ receivables: port });
    const fund = await customerFund('C1');
    const a = await h.api.post<{ token: string }>('/api/autopay', { customer_identifier: 'C1', fund_token: fund });
    port.invoices.push(invoice('INV-9', '2026-03-02', 4001));
    await h.t.engine.tick();
    expect(port.payments).toHaveLength(0);
    const got = await h.api.get<{ last_result: string; last_run_date: string }>('/api/autopay?customer_identifier=C1');
    expect(got.body).toMatchObject({ last_result: 'declined', last_run_date: '2026-03-02' });

    // A fund locked since the agreement: the charge is refused, recorded, and not retried until tomorrow.
    h.t.clock.advanceDays(1);
    const wallets = await h.api.get<{ wallets: Array<{ token: string }> }>(`/api/gateway/v1/wallets/search?type=fund&locator=${fund}`);
    await h.api.patch(`/api/gateway/v1/wallets/${wallets.body.wallets[0]!.token}/methods/${fund}`, { credit_card: { locked: true } });
    await h.t.engine.tick();
    await h.t.engine.tick();
    const refused = await h.api.get<{ last_result: string; last_run_date: string }>('/api/autopay?customer_identifier=C1');
    expect(refused.body).toMatchObject({ last_result: 'error', last_run_date: '2026-03-03' });
    expect(port.payments).toHaveLength(0);

    await h.api.post('/api/autopay/revoke', { customer_identifier: 'C1', token: a.body.token });
    port.invoices[0]!.owing_cents = 4000;
    h.t.clock.advanceDays(1);
    await h.t.engine.tick();
    expect(port.payments).toHaveLength(0);
  });
});
