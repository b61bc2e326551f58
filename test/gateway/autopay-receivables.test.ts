import { afterEach, describe, expect, it } from 'vitest';
import { ACH, card, op, startGateway, type Harness } from '../helpers/gateway';
import { until } from '../serial/helpers';

/**
 * Autopay against the real receivables domain: on the due date it charges the customer's due
 * invoices with its fund and records the invoicing payment, once, even when ticks repeat.
 */
let h: Harness;
afterEach(async () => {
  await h.close();
});

type PaymentView = { payment_reference: string; payment_transaction_token: string; payment_amount: string; customer_identifier: string; payment_amounts: Array<{ invoice_number: string }>; payment_tree?: { root: string; children: string[] } };

describe('autopay with receivables', () => {
  it('charges due invoices on their due date, records the payment, and never twice', async () => {
    h = await startGateway({ timezone: 'UTC' });
    h.t.clock.set('2026-03-01T12:00:00Z');
    expect((await h.api.post('/api/imports/customer', { identifier: 'ACME01', name: 'Acme Ltd' })).status).toBe(201);
    for (const [number, due, amount] of [
      ['AP-1', '2026-03-02', 12_500],
      ['AP-2', '2026-03-10', 4_000],
    ] as const) {
      expect((await h.api.post('/api/imports/invoice', { number, customer_identifier: 'ACME01', amount, date: '2026-02-20', due_date: due })).status).toBe(201);
    }
    const wallet = await h.api.post<{ fund_token: string }>('/api/gateway/v1/wallets', { customer: 'ACME01', credit_card: card() });
    expect(wallet.status).toBe(200);
    expect((await h.api.post('/api/autopay', { customer_identifier: 'ACME01', fund_token: wallet.body.fund_token })).status).toBe(201);

    // Nothing is due yet.
    await h.t.engine.tick();
    expect((await h.api.get<{ owing_cents: number }>('/api/exports/invoice/AP-1')).body.owing_cents).toBe(12_500);

    // AP-1 falls due: charged, recorded against it, AP-2 untouched.
    h.t.clock.set('2026-03-02T09:00:00Z');
    await h.t.engine.tick();
    await h.t.engine.tick();
    expect((await h.api.get<{ owing_cents: number }>('/api/exports/invoice/AP-1')).body.owing_cents).toBe(0);
    expect((await h.api.get<{ owing_cents: number }>('/api/exports/invoice/AP-2')).body.owing_cents).toBe(4_000);
    const payments = await h.api.get<{ payments: PaymentView[] }>('/api/exports/payments?list=true');
    expect(payments.body.payments).toHaveLength(1);
    const payment = payments.body.payments[0]!;
    expect(payment).toMatchObject({ customer_identifier: 'ACME01', payment_amount: '125.00' });
    // The gateway transaction is the payment's token: its detail view finds the invoicing payment.
    const detail = await h.api.get<PaymentView>(`/api/gateway/v1/payments/${payment.payment_reference}`);
    expect(detail.status).toBe(200);
    // The same answer as the payment export, its options too: export_payment_tree adds payment_tree.
    for (const key of [payment.payment_reference, payment.payment_transaction_token]) {
      const exported = (await h.api.get<PaymentView>(`/api/exports/payment/${key}`)).body;
      expect((await h.api.get<PaymentView>(`/api/gateway/v1/payments/${key}`)).body).toEqual(exported);
      expect(exported).not.toHaveProperty('payment_tree');
      const tree = (await h.api.get<PaymentView>(`/api/exports/payment/${key}?options[export_payment_tree]=true`)).body;
      expect(tree.payment_tree).toEqual({ root: payment.payment_reference, children: [] });
      expect((await h.api.get<PaymentView>(`/api/gateway/v1/payments/${key}?options[export_payment_tree]=true&options[fx]=true`)).body).toEqual(tree);
    }
    expect((await h.api.get(`/api/gateway/v1/payments/${payment.payment_reference}?options[export_payment_tree]=maybe`)).status).toBe(400);

    h.t.clock.set('2026-03-10T09:00:00Z');
    await h.t.engine.tick();
    expect((await h.api.get<{ owing_cents: number }>('/api/exports/invoice/AP-2')).body.owing_cents).toBe(0);
    expect((await h.api.get<{ payments: PaymentView[] }>('/api/exports/payments?list=true')).body.payments).toHaveLength(2);
  });

  it('takes an early-payment discount still open on the day it charges, and none once it has lapsed', async () => {
    h = await startGateway({ timezone: 'UTC' });
    expect((await h.api.patch('/api/account', { capabilities: { discounts: true } })).status).toBe(200);
    h.t.clock.set('2026-03-01T12:00:00Z');
    await h.api.post('/api/imports/customer', { identifier: 'DISC01', name: 'Early Bird Ltd' });
    // Due on the last day of its discount, and one whose discount ended before it fell due.
    await h.api.post('/api/imports/invoice', { number: 'ED-1', customer_identifier: 'DISC01', amount: 50_000, date: '2026-02-25', due_date: '2026-03-05', discount_amount_cents: 1_000, discount_expiry_date: '2026-03-05' });
    await h.api.post('/api/imports/invoice', { number: 'ED-2', customer_identifier: 'DISC01', amount: 20_000, date: '2026-02-25', due_date: '2026-03-05', discount_amount_cents: 400, discount_expiry_date: '2026-03-04' });
    const wallet = await h.api.post<{ fund_token: string }>('/api/gateway/v1/wallets', { customer: 'DISC01', credit_card: card() });
    expect((await h.api.post('/api/autopay', { customer_identifier: 'DISC01', fund_token: wallet.body.fund_token })).status).toBe(201);

    h.t.clock.set('2026-03-05T09:00:00Z');
    await h.t.engine.tick();
    for (const n of ['ED-1', 'ED-2']) expect((await h.api.get<{ owing_cents: number }>(`/api/exports/invoice/${n}`)).body.owing_cents).toBe(0);
    const [payment] = (await h.api.get<{ payments: Array<PaymentView & { payment_amounts: Array<{ invoice_number: string; amount: string; discount_amount: string }> }> }>('/api/exports/payments?list=true')).body.payments;
    // One charge of 490.00 + 200.00: ED-1's 10.00 off, ED-2 in full.
    expect(payment).toMatchObject({ payment_amount: '690.00' });
    expect(payment!.payment_amounts).toEqual([
      expect.objectContaining({ invoice_number: 'ED-1', amount: '490.00', discount_amount: '10.00' }),
      expect.objectContaining({ invoice_number: 'ED-2', amount: '200.00', discount_amount: '0.00' }),
    ]);
    expect((await h.api.get<{ amount_in_cents: number }>(`/api/exports/transaction/${payment!.payment_reference}`)).body.amount_in_cents).toBe(69_000);
  });

  it('marks a bank payment PAID once it settles, and takes one the bank returned off the invoices it paid: they are owed again', async () => {
    h = await startGateway({ timezone: 'UTC' });
    h.t.clock.set('2026-03-01T12:00:00Z');
    await h.api.post('/api/imports/customer', { identifier: 'NSF01', name: 'Bounce Ltd' });
    await h.api.post('/api/imports/invoice', { number: 'NSF-1', customer_identifier: 'NSF01', amount: 12_500, date: '2026-02-20', due_date: '2026-03-02' });
    // The sandbox's return account: settles, then comes back R01 three processing days later.
    const wallet = await h.api.post<{ fund_token: string }>('/api/gateway/v1/wallets', { customer: 'NSF01', bank_account: { ...ACH, account_number: '0000000024' } });
    expect(wallet.status).toBe(200);
    const agreement = await h.api.post<{ token: string }>('/api/autopay', { customer_identifier: 'NSF01', fund_token: wallet.body.fund_token });
    h.t.clock.set('2026-03-02T09:00:00Z');
    await h.t.engine.tick();
    const [payment] = (await h.api.get<{ payments: Array<PaymentView & { status: string }> }>('/api/exports/payments?list=true')).body.payments;
    expect(payment).toMatchObject({ payment_amount: '125.00', status: 'IN PROGRESS' });
    expect((await h.api.get<{ owing_cents: number }>('/api/exports/invoice/NSF-1')).body.owing_cents).toBe(0);
    // No new charge in the way of what follows.
    expect((await h.api.post('/api/autopay/revoke', { customer_identifier: 'NSF01', token: agreement.body.token })).status).toBeLessThan(300);

    // Settled one processing day later: PAID, until the bank takes it back.
    h.t.clock.set('2026-03-04T09:00:00Z');
    await h.t.engine.tick();
    expect((await h.api.get<{ status: string }>(`/api/exports/payment/${payment!.payment_reference}`)).body.status).toBe('PAID');
    expect((await h.api.get<{ owing_cents: number }>('/api/exports/invoice/NSF-1')).body.owing_cents).toBe(0);

    h.t.clock.set('2026-03-06T09:00:00Z');
    await h.t.engine.tick();
    const exceptions = (await h.t.engine.gateway.settlement.exceptionsSince(0, 10)).map((e) => e.data);
    expect(exceptions).toEqual([expect.objectContaining({ exception_type: 'return', exception_transaction: expect.objectContaining({ token: payment!.payment_reference }) })]);
    const after = await h.api.get<{ status: string; payment_amounts: Array<{ invoice_number: string }> }>(`/api/exports/payment/${payment!.payment_reference}`);
    expect(after.body.status).toBe('ERROR (NSF)');
    expect((await h.api.get<{ owing_cents: number }>('/api/exports/invoice/NSF-1')).body.owing_cents).toBe(12_500);
    expect((await h.api.get<{ balance: string }>('/api/exports/customer/NSF01')).body.balance).toBe('$125.00');
    // Ticks repeat: the return is taken off once.
    await h.t.engine.tick();
    expect((await h.api.get<{ owing_cents: number }>('/api/exports/invoice/NSF-1')).body.owing_cents).toBe(12_500);
  });

  it('takes a refunded card payment off the invoices it paid, last applied first, and all of it once voided or refunded in full', async () => {
    h = await startGateway({ timezone: 'UTC' });
    h.t.clock.set('2026-03-01T12:00:00Z');
    await h.api.post('/api/imports/customer', { identifier: 'REF01', name: 'Refund Ltd' });
    await h.api.post('/api/imports/invoice', { number: 'RF-1', customer_identifier: 'REF01', amount: 12_500, date: '2026-02-20', due_date: '2026-03-01' });
    await h.api.post('/api/imports/invoice', { number: 'RF-2', customer_identifier: 'REF01', amount: 4_000, date: '2026-02-21', due_date: '2026-03-02' });
    const wallet = await h.api.post<{ fund_token: string }>('/api/gateway/v1/wallets', { customer: 'REF01', credit_card: card() });
    const agreement = await h.api.post<{ token: string }>('/api/autopay', { customer_identifier: 'REF01', fund_token: wallet.body.fund_token });
    h.t.clock.set('2026-03-02T09:00:00Z');
    await h.t.engine.tick();
    // No new charge in the way of what follows.
    expect((await h.api.post('/api/autopay/revoke', { customer_identifier: 'REF01', token: agreement.body.token })).status).toBeLessThan(300);
    type Paid = { payment_reference: string; payment_amount: string; status: string; payment_transaction_token: string; payment_amounts: Array<{ invoice_number: string; amount: string }> };
    const [paid] = (await h.api.get<{ payments: Paid[] }>('/api/exports/payments?list=true')).body.payments;
    expect(paid).toMatchObject({ payment_amount: '165.00', status: 'PAID' });
    const owing = async (n: string) => (await h.api.get<{ owing_cents: number }>(`/api/exports/invoice/${n}`)).body.owing_cents;
    const payment = async () => (await h.api.get<Paid>(`/api/exports/payment/${paid!.payment_reference}`)).body;

    // 50.00 back to the card: RF-2 (applied last) is owed again in full, RF-1 for 10.00.
    const partial = await op(h.api, 'refund', { amount_cents: 5_000, transaction: paid!.payment_transaction_token });
    expect(partial.body.success).toBe(true);
    // At once, not at the next tick (none runs here): an ERP reading the payment after the refund sees it.
    await until(async () => (await owing('RF-2')) === 4_000, 'the refund on the invoices without a tick', 5_000);
    expect([await owing('RF-1'), await owing('RF-2')]).toEqual([1_000, 4_000]);
    expect(await payment()).toMatchObject({ payment_amount: '115.00', status: 'PAID', payment_amounts: [expect.objectContaining({ invoice_number: 'RF-1', amount: '115.00' })] });
    expect((await h.api.get<{ balance: string }>('/api/exports/customer/REF01')).body.balance).toBe('$50.00');
    await h.t.engine.tick();
    expect([await owing('RF-1'), await owing('RF-2')]).toEqual([1_000, 4_000]);

    // The rest back: nothing of the payment is left, and both invoices are owed in full.
    await op(h.api, 'refund', { transaction: paid!.payment_transaction_token });
    await h.t.engine.tick();
    expect([await owing('RF-1'), await owing('RF-2')]).toEqual([12_500, 4_000]);
    expect((await payment()).status).toBe('REVERSAL');
    expect((await h.api.get<{ balance: string }>('/api/exports/customer/REF01')).body.balance).toBe('$165.00');
  });

  it('reverses a card payment whose sale is voided before its cut-off', async () => {
    h = await startGateway({ timezone: 'UTC' });
    h.t.clock.set('2026-03-02T09:00:00Z');
    await h.api.post('/api/imports/customer', { identifier: 'VOID01', name: 'Void Ltd' });
    await h.api.post('/api/imports/invoice', { number: 'VD-1', customer_identifier: 'VOID01', amount: 7_700, date: '2026-02-20', due_date: '2026-03-01' });
    const wallet = await h.api.post<{ fund_token: string }>('/api/gateway/v1/wallets', { customer: 'VOID01', credit_card: card() });
    await h.api.post('/api/autopay', { customer_identifier: 'VOID01', fund_token: wallet.body.fund_token });
    await h.t.engine.tick();
    const [paid] = (await h.api.get<{ payments: Array<{ payment_reference: string; payment_transaction_token: string }> }>('/api/exports/payments?list=true')).body.payments;
    expect((await h.api.get<{ owing_cents: number }>('/api/exports/invoice/VD-1')).body.owing_cents).toBe(0);
    const voided = await op(h.api, 'void', { amount_cents: 7_700, transaction: paid!.payment_transaction_token });
    expect(voided.body.success).toBe(true);
    await until(async () => (await h.api.get<{ owing_cents: number }>('/api/exports/invoice/VD-1')).body.owing_cents === 7_700, 'the void on the invoice without a tick', 5_000);
    expect((await h.api.get<{ owing_cents: number }>('/api/exports/invoice/VD-1')).body.owing_cents).toBe(7_700);
    expect((await h.api.get<{ status: string; status_reason: string }>(`/api/exports/payment/${paid!.payment_reference}`)).body).toMatchObject({ status: 'REVERSAL' });
  });

  it('a renamed customer keeps its wallet and agreement, and is charged under its new identifier', async () => {
    h = await startGateway({ timezone: 'UTC' });
    h.t.clock.set('2026-03-01T12:00:00Z');
    await h.api.post('/api/imports/customer', { identifier: 'RENAME1', name: 'Before Ltd' });
    await h.api.post('/api/imports/invoice', { number: 'RN-1', customer_identifier: 'RENAME1', amount: 3_300, date: '2026-02-20', due_date: '2026-03-02' });
    const wallet = await h.api.post<{ wallet_token: string; fund_token: string }>('/api/gateway/v1/wallets', { customer: 'RENAME1', credit_card: card() });
    expect((await h.api.post('/api/autopay', { customer_identifier: 'RENAME1', fund_token: wallet.body.fund_token })).status).toBe(201);

    expect((await h.api.post('/api/imports/customers/RENAME1/update_identifier', { new_identifier: 'RENAME2' })).status).toBe(200);
    type Found = { wallets: Array<{ token: string; customers: Array<{ identifier: string }> }> };
    const found = (await h.api.get<Found>('/api/gateway/v1/wallets/search?type=customer&locator=RENAME2')).body.wallets;
    expect(found.map((w) => [w.token, w.customers.map((c) => c.identifier)])).toEqual([[wallet.body.wallet_token, ['RENAME2']]]);
    expect((await h.api.get<Found>('/api/gateway/v1/wallets/search?type=customer&locator=RENAME1')).body.wallets).toEqual([]);
    const agreements = await h.api.get<{ autopays: Array<{ customer_identifier: string }> }>('/api/autopay?customer_identifier=RENAME2');
    expect(agreements.body.autopays.map((a) => a.customer_identifier)).toEqual(['RENAME2']);

    h.t.clock.set('2026-03-02T09:00:00Z');
    await h.t.engine.tick();
    expect((await h.api.get<{ owing_cents: number }>('/api/exports/invoice/RN-1')).body.owing_cents).toBe(0);
  });

  it("shows the customer's auto_debit Y while an agreement is in force, N once the last one is revoked", async () => {
    h = await startGateway();
    await h.api.post('/api/imports/customer', { identifier: 'AD01', name: 'Auto Debit Ltd' });
    const autoDebit = async () => [
      (await h.api.get<{ auto_debit: string }>('/api/exports/customer/AD01')).body.auto_debit,
      (await h.api.get<{ customers: Array<{ identifier: string; auto_debit: string }> }>('/api/exports/customers?list=true')).body.customers.find((c) => c.identifier === 'AD01')?.auto_debit,
    ];
    expect(await autoDebit()).toEqual(['N', 'N']);
    const wallet = await h.api.post<{ fund_token: string }>('/api/gateway/v1/wallets', { customer: 'AD01', credit_card: card() });
    const general = await h.api.post<{ token: string }>('/api/autopay', { customer_identifier: 'AD01', fund_token: wallet.body.fund_token });
    const specific = await h.api.post<{ token: string }>('/api/autopay', { customer_identifier: 'AD01', fund_token: wallet.body.fund_token, autopay_reference: 'POL-9' });
    expect([general.status, specific.status]).toEqual([201, 201]);
    expect(await autoDebit()).toEqual(['Y', 'Y']);
    await h.api.post('/api/autopay/revoke', { customer_identifier: 'AD01', token: general.body.token });
    expect(await autoDebit()).toEqual(['Y', 'Y']);
    await h.api.post('/api/autopay/revoke', { customer_identifier: 'AD01', token: specific.body.token });
    expect(await autoDebit()).toEqual(['N', 'N']);
  });

  it('refuses a wallet or an agreement for a customer receivables does not know', async () => {
    h = await startGateway();
    const wallet = await h.api.post<{ wallets: { error: string } }>('/api/gateway/v1/wallets', { customer: 'NOSUCH1', credit_card: card() });
    expect(wallet.status).toBe(412);
    expect(wallet.body.wallets.error).toBe('customer_not_found');
  });

  it("names a wallet made for an existing customer by identifier alone with the customer's name, as one made with the name", async () => {
    h = await startGateway();
    expect((await h.api.post('/api/imports/customer', { identifier: 'C1234', name: 'Starblux' })).status).toBe(201);
    type Made = { wallets: Array<{ customers: Array<{ identifier: string; name: string | null }> }> };
    for (const customer of [{ identifier: 'C1234' }, 'C1234', { identifier: 'C1234', name: 'Starblux' }]) {
      const made = await h.api.post<Made>('/api/gateway/v1/wallets', { customer, credit_card: card() });
      expect(made.status, JSON.stringify(customer)).toBeLessThan(300);
      expect(made.body.wallets[0]!.customers, JSON.stringify(customer)).toEqual([expect.objectContaining({ identifier: 'C1234', name: 'Starblux' })]);
    }
  });
});
