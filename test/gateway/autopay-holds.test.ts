import { afterEach, describe, expect, it } from 'vitest';
import { ACH, card, op, startGateway, type Harness } from '../helpers/gateway';

/**
 * Once an autopay charge's money went back, autopay does not charge the same invoice again on its
 * own: a refund or void is the merchant's decision, a chargeback the cardholder's dispute, and a
 * bank return for missing funds may be presented again only twice (NACHA). A new agreement (a new
 * authorization from the customer) lets it charge them again.
 */
let h: Harness;
afterEach(async () => {
  await h.close();
});

type Payment = { payment_reference: string; payment_transaction_token: string; status: string; payment_amount: string };
const payments = async () => (await h.api.get<{ payments: Payment[] }>('/api/exports/payments?list=true')).body.payments;
const owing = async (n: string) => (await h.api.get<{ owing_cents: number }>(`/api/exports/invoice/${n}`)).body.owing_cents;

async function customerWithAutopay(id: string, invoices: Array<[string, number, string]>, fund: 'card' | 'nsf') {
  await h.api.post('/api/imports/customer', { identifier: id, name: `${id} Ltd` });
  for (const [number, amount, due] of invoices) {
    expect((await h.api.post('/api/imports/invoice', { number, customer_identifier: id, amount, date: '2026-02-20', due_date: due })).status).toBe(201);
  }
  const method = fund === 'card' ? { credit_card: card() } : { bank_account: { ...ACH, account_number: '0000000024' } };
  const wallet = await h.api.post<{ fund_token: string }>('/api/gateway/v1/wallets', { customer: id, ...method });
  expect(wallet.status).toBe(200);
  const agreement = await h.api.post<{ token: string }>('/api/autopay', { customer_identifier: id, fund_token: wallet.body.fund_token });
  expect(agreement.status).toBe(201);
  return { fund: wallet.body.fund_token, agreement: agreement.body.token };
}

/** One tick a day at 09:00 UTC, from `from` for `days` days. */
async function daily(from: string, days: number) {
  const start = Date.parse(`${from}T09:00:00Z`);
  for (let d = 0; d < days; d++) {
    h.t.clock.set(new Date(start + d * 86_400_000).toISOString());
    await h.t.engine.tick();
  }
}

describe('autopay after a charge came back', () => {
  it('does not charge again the invoices a refund put back owing, until the customer gives a new agreement', async () => {
    h = await startGateway({ timezone: 'UTC' });
    h.t.clock.set('2026-03-01T12:00:00Z');
    const { fund, agreement } = await customerWithAutopay('HOLD01', [['HD-1', 12_500, '2026-03-01'], ['HD-2', 4_000, '2026-03-02']], 'card');
    await daily('2026-03-02', 1);
    const [paid] = await payments();
    expect(paid).toMatchObject({ payment_amount: '165.00', status: 'PAID' });

    // 50.00 back: HD-2 (applied last) owed again in full, HD-1 for 10.00. Neither is charged again.
    expect((await op(h.api, 'refund', { amount_cents: 5_000, transaction: paid!.payment_transaction_token })).body.success).toBe(true);
    await daily('2026-03-02', 5);
    expect([await owing('HD-1'), await owing('HD-2')]).toEqual([1_000, 4_000]);
    expect(await payments()).toHaveLength(1);
    // Said where the agreement is read, and a reminder is no longer skipped as "autopay will pay it".
    const held = async () => (await h.api.get<{ held_invoices: Array<{ invoice_number: string; cause: string }> }>('/api/autopay?customer_identifier=HOLD01')).body.held_invoices;
    expect((await held()).map((i) => [i.invoice_number, i.cause]).sort()).toEqual([['HD-1', 'refunded'], ['HD-2', 'refunded']]);
    const { counts: remind } = await h.t.engine.notifications.remind(['HD-2']);
    expect(remind.scheduled).toBe(0);

    // An invoice the refund did not touch is still charged when it falls due.
    await h.api.post('/api/imports/invoice', { number: 'HD-3', customer_identifier: 'HOLD01', amount: 2_200, date: '2026-03-05', due_date: '2026-03-08' });
    await daily('2026-03-08', 1);
    expect(await owing('HD-3')).toBe(0);
    expect([await owing('HD-1'), await owing('HD-2')]).toEqual([1_000, 4_000]);
    expect((await payments()).map((p) => p.payment_amount).sort()).toEqual(['115.00', '22.00']);

    // The customer authorizes again: the held invoices are charged at the next run.
    expect((await h.api.post('/api/autopay/revoke', { customer_identifier: 'HOLD01', token: agreement })).status).toBeLessThan(300);
    expect((await h.api.post('/api/autopay', { customer_identifier: 'HOLD01', fund_token: fund })).status).toBe(201);
    expect(await held()).toEqual([]);
    await daily('2026-03-09', 1);
    expect([await owing('HD-1'), await owing('HD-2')]).toEqual([0, 0]);
    expect((await payments()).map((p) => p.payment_amount).sort()).toEqual(['115.00', '22.00', '50.00']);
  });

  it('does not charge again an invoice whose sale was voided', async () => {
    h = await startGateway({ timezone: 'UTC' });
    h.t.clock.set('2026-03-02T08:00:00Z');
    await customerWithAutopay('HOLD02', [['HV-1', 7_700, '2026-03-01']], 'card');
    await daily('2026-03-02', 1);
    const [paid] = await payments();
    expect((await op(h.api, 'void', { amount_cents: 7_700, transaction: paid!.payment_transaction_token })).body.success).toBe(true);
    await daily('2026-03-02', 4);
    expect(await owing('HV-1')).toBe(7_700);
    expect(await payments()).toHaveLength(1);
  });

  it('does not charge a card again for an invoice the cardholder charged back', async () => {
    h = await startGateway({ timezone: 'UTC' });
    h.t.clock.set('2026-03-01T12:00:00Z');
    // The sandbox charges back a card sale whose amount ends in .66, ten processing days later.
    await customerWithAutopay('HOLD03', [['CB-1', 8_366, '2026-03-02']], 'card');
    await daily('2026-03-02', 24);
    const exceptions = (await h.t.engine.gateway.settlement.exceptionsSince(0, 10)).map((e) => e.data.exception_type);
    expect(exceptions).toEqual(['chargeback']);
    expect(await owing('CB-1')).toBe(8_366);
    expect((await payments()).map((p) => p.status)).toEqual(['REVERSAL']);
  });

  it('presents a debit returned for missing funds twice more, then holds the invoice', async () => {
    h = await startGateway({ timezone: 'UTC' });
    h.t.clock.set('2026-03-01T12:00:00Z');
    // The sandbox returns every debit of this account R01 three processing days after it.
    await customerWithAutopay('HOLD04', [['NS-1', 5_000, '2026-03-02']], 'nsf');
    await daily('2026-03-02', 40);
    const returned = (await h.t.engine.gateway.settlement.exceptionsSince(0, 10)).map((e) => e.data.return_code);
    expect(returned).toEqual(['R01', 'R01', 'R01']);
    expect((await payments()).map((p) => p.status)).toEqual(['ERROR (NSF)', 'ERROR (NSF)', 'ERROR (NSF)']);
    expect(await owing('NS-1')).toBe(5_000);
  });
});
