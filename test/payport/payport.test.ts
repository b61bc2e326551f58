import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ACH, MASTERCARD, card } from '../helpers/cards';
import { openHarness, type Harness } from '../helpers/harness';
import { referenceKeys } from '../helpers/reference-check';
import { getRecord, putRecord } from '../../src/engine/records';

let h: Harness;
beforeEach(async () => {
  h = await openHarness({ api: true });
});
afterEach(async () => {
  await h.close();
});

type Fund = { type: string; token: string; name: string; state?: string };
type Txn = { token: string; state: string; transaction_type: string; amount_in_cents: number; gateway_transaction: string | null; payment_method: string | null; from_fund: string | null; unique_reference: string | null };
type Agreement = { token: string; state: string; email: string; rejection_reason: string | null; fund: string | null; type: string };
type Err = { code: string; error: string };

const BANK = { business_name: 'Tim Coffee Ltd', country: 'US', routing_number: '122105278', account_number: '0000000016', currency: 'usd' };

async function vaultOwnBank(): Promise<Fund> {
  const res = await h.api.post<Fund>('/api/vault/bank', BANK);
  expect(res.status).toBe(201);
  return res.body;
}
const create = (body: Record<string, unknown>) => h.api.post<Txn & Err>('/api/transactions', body);
const approve = (token: string, body: Record<string, unknown> = {}) => h.api.post<Txn & Err>(`/api/transactions/${token}/approve`, body);
const cancel = (token: string) => h.api.post<Txn & Err>(`/api/transactions/${token}/cancel`);
const agreementMove = (token: string, action: string, body?: Record<string, unknown>) => h.api.post<Agreement & Err>(`/api/debit_agreements/${token}/${action}`, body ?? {});

/** A customer with a wallet holding a card, reachable by contact email. */
async function customerWithCard(email: string): Promise<string> {
  const res = await h.api.post<{ fund_token: string }>('/api/gateway/v1/wallets', { customer: { identifier: 'C-PAY', name: 'Bob Payer' }, contact: { email }, credit_card: card(MASTERCARD) });
  expect(res.status).toBe(200);
  return res.body.fund_token;
}

describe('fund sources', () => {
  it('lists the balance, vaults a bank account with only its last four digits, and refuses an account the sandbox does not know', async () => {
    const before = await h.api.get<Fund[]>('/api/funds');
    expect(before.body).toEqual([expect.objectContaining({ type: 'balance', name: 'Laneway Account' })]);
    const bank = await vaultOwnBank();
    expect(bank).toMatchObject({ type: 'bank_account', name: 'Tim Coffee Ltd (0016)', state: 'verified' });
    const again = await vaultOwnBank();
    expect(again.token).toBe(bank.token);
    const after = await h.api.get<Fund[]>('/api/funds');
    expect(after.body.map((f) => f.type)).toEqual(['bank_account', 'balance']);
    // Every key of the reference's fund source on each: the balance has no verification state.
    const fields = referenceKeys('FundSource');
    expect(fields).toContain('state');
    for (const f of after.body) expect(fields.filter((k) => !(k in f)), f.type).toEqual([]);
    expect(after.body.map((f) => [f.type, f.state])).toEqual([['bank_account', 'verified'], ['balance', null]]);
    expect(JSON.stringify(await h.t.engine.core.find('records', { selector: {} }))).not.toContain('0000000016');
    const unknown = await h.api.post<Err>('/api/vault/bank', { ...BANK, account_number: '123456789' });
    expect(unknown.status).toBe(412);
    expect(unknown.body.code).toBe('account_unknown_to_sandbox');
    expect((await h.api.post<Err>('/api/vault/bank', { business_name: 'x' })).status).toBe(412);
    expect((await h.api.get('/api/funds', null)).status).toBe(401);
  });
});

describe('transactions', () => {
  it('request_money: waits for approval, then the payer\'s card pays through the gateway', async () => {
    const payer = await customerWithCard('bob@example.com');
    const made = await create({ transaction_type: 'request', amount_in_cents: 15000, email: 'bob@example.com', message: 'Invoice 12', transaction_reference: 'Lease 123' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ transaction_type: 'request_money', state: 'wait_for_request_approval', gateway_transaction: null, amount_in_cents: 15000 });
    const approved = await approve(made.body.token, { fund_token: payer });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ state: 'completed', payment_method: 'credit_card' });
    const order = await h.api.get<{ state: string; amount_in_cents: number }>(`/api/exports/transaction/${approved.body.gateway_transaction}`);
    expect(order.body).toMatchObject({ state: 'completed', amount_in_cents: 15000 });
    // Legal moves only: approved once, never cancelled afterwards.
    const twice = await approve(made.body.token, { fund_token: payer });
    expect(twice.status).toBe(412);
    expect(twice.body.code).toBe('illegal_transition');
    const late = await cancel(made.body.token);
    expect(late.status).toBe(412);
    expect(late.body.code).toBe('illegal_transition');
    const list = await h.api.get<Txn[]>('/api/transactions');
    expect(list.body.map((t) => t.token)).toEqual([made.body.token]);
  });

  it('a bank-funded request is in_progress until the gateway settles it', async () => {
    const bank = await vaultOwnBank();
    const made = await create({ transaction_type: 'request', amount_in_cents: 5000, email: 'ach@example.com' });
    const approved = await approve(made.body.token);
    expect(approved.body).toMatchObject({ state: 'in_progress', payment_method: 'bank_account' });
    const order = await h.api.get<{ bank_account?: string; fund?: string }>(`/api/exports/transaction/${approved.body.gateway_transaction}`);
    expect(JSON.stringify(order.body)).toContain(bank.token);
    h.t.clock.set('2026-03-03T23:30:00Z');
    await h.t.engine.tick();
    expect((await h.api.get<Txn>(`/api/transactions/${made.body.token}`)).body.state).toBe('completed');
    // The gateway's settlement carries it like any bank sale.
    const batches = await h.t.engine.gateway.settlement.batchesSince(0, 10);
    expect(batches.map((b) => b.data)).toEqual([expect.objectContaining({ payment_method_group: 'bank', sales_cents: 5000, transaction_count: 1 })]);
  });

  it('an approval interrupted after the charge resumes with the same charge, never a second one', async () => {
    const payer = await customerWithCard('crash@example.com');
    const made = await create({ transaction_type: 'request', amount_in_cents: 7700, email: 'crash@example.com' });
    const { core } = h.t.engine;
    // As a crash leaves it: the approval started (its fund chosen) and the gateway charged under the transaction's key.
    await core.mutate(async (tx) => {
      const doc = await getRecord<Record<string, unknown>>(tx, 'payport_transaction', made.body.token);
      await putRecord(tx, 'payport_transaction', made.body.token, { ...doc!.data, approving: true, fund: payer }, { type: 'test.crash', entity: 'payport_transaction', key: made.body.token });
    });
    const charged = await h.t.engine.gateway.transact('sale', { amount_cents: 7700, fund_token: payer, transaction_reference: `payport/${made.body.token}`, unique_reference: `payport/${made.body.token}`, contact: { email: 'crash@example.com' } }, 'test');
    expect((await h.api.get<Txn>(`/api/transactions/${made.body.token}`)).body.state).toBe('in_progress');
    expect((await cancel(made.body.token)).body.code).toBe('illegal_transition');
    await h.t.engine.tick();
    const resumed = await h.api.get<Txn>(`/api/transactions/${made.body.token}`);
    expect(resumed.body).toMatchObject({ state: 'completed', gateway_transaction: charged.body.transaction });
    expect((await approve(made.body.token, { fund_token: payer })).body.code).toBe('illegal_transition');
    const onFund = await core.find<{ id: string; watermark: number; data: { action: string } }>('transactions', { selector: { fund: payer } });
    expect(onFund.filter((t) => t.data.action === 'sale')).toHaveLength(1);
  });

  it('a declined payment (.01 amount) leaves the transaction in error', async () => {
    const payer = await customerWithCard('dee@example.com');
    const made = await create({ transaction_type: 'request', amount_in_cents: 1001, email: 'dee@example.com' });
    expect((await approve(made.body.token, { fund_token: payer })).body.state).toBe('error');
  });

  it('an approval with an unknown fund charges nothing and may be retried', async () => {
    const made = await create({ transaction_type: 'request', amount_in_cents: 2500, email: 'x@example.com' });
    const bad = await approve(made.body.token, { fund_token: 'NOSUCHFUND' });
    expect(bad.status).toBe(412);
    expect((await h.api.get<Txn>(`/api/transactions/${made.body.token}`)).body.state).toBe('wait_for_request_approval');
    const payer = await customerWithCard('x@example.com');
    const retried = await approve(made.body.token, { fund_token: payer });
    expect(retried.body, JSON.stringify(retried.body)).toMatchObject({ state: 'completed' });
  });

  it('process_on: an approval waits (new, cancellable) until its day, when the tick moves the money; a crash-interrupted approval resumes on the tick too', async () => {
    const payer = await customerWithCard('later@example.com');
    const later = await create({ transaction_type: 'request', amount_in_cents: 3300, email: 'later@example.com', process_on: '2026-03-05' });
    const dropped = await create({ transaction_type: 'request', amount_in_cents: 3400, email: 'later@example.com', process_on: '2026-03-05' });
    for (const t of [later, dropped]) {
      const approved = await approve(t.body.token, { fund_token: payer });
      expect(approved.body).toMatchObject({ state: 'new', gateway_transaction: null, process_on: '2026-03-05' });
    }
    expect((await cancel(dropped.body.token)).body.state).toBe('cancelled');
    await h.t.engine.tick();
    expect((await h.api.get<Txn>(`/api/transactions/${later.body.token}`)).body.state).toBe('new');
    h.t.clock.set('2026-03-05T12:00:00Z');
    await h.t.engine.tick();
    const moved = (await h.api.get<Txn>(`/api/transactions/${later.body.token}`)).body;
    expect(moved).toMatchObject({ state: 'completed', gateway_transaction: expect.any(String) });
    expect((await h.api.get<Txn>(`/api/transactions/${dropped.body.token}`)).body).toMatchObject({ state: 'cancelled', gateway_transaction: null });
  });

  it('send_money: new until approved from your fund, then credited to the recipient\'s wallet method', async () => {
    const bank = await vaultOwnBank();
    const noRecipient = await create({ transaction_type: 'send', amount_in_cents: 2000, email: 'nobody@example.com' });
    expect(noRecipient.body).toMatchObject({ state: 'new', transaction_type: 'send_money', from_fund: bank.name });
    const refused = await approve(noRecipient.body.token);
    expect(refused.status).toBe(412);
    expect(refused.body.code).toBe('recipient_has_no_payment_method');
    await customerWithCard('carol@example.com');
    const made = await create({ transaction_type: 'send', amount_in_cents: 2000, email: 'carol@example.com' });
    const sent = await approve(made.body.token);
    expect(sent.body.state).toBe('completed');
    const order = await h.api.get<{ action: string }>(`/api/exports/transaction/${sent.body.gateway_transaction}`);
    expect(order.body.action).toBe('credit');
    const unknownFund = await create({ transaction_type: 'send', amount_in_cents: 2000, email: 'carol@example.com', fund_token: 'NOPE' });
    expect(unknownFund.status).toBe(412);
    expect(unknownFund.body.code).toBe('fund_not_found');
  });

  it('direct_credit: paid at once from your fund into the recipient\'s bank account, never to a card, and kept in error when refused', async () => {
    const bank = await vaultOwnBank();
    await customerWithCard('dora@example.com');
    const cardOnly = await create({ transaction_type: 'direct_credit', amount_in_cents: 2500, email: 'dora@example.com' });
    expect(cardOnly.status).toBe(412);
    expect(cardOnly.body.code).toBe('recipient_has_no_bank_account');
    expect((await h.api.get<Txn[]>('/api/transactions')).body).toHaveLength(0);
    const payee = await h.api.post<{ fund_token: string }>('/api/gateway/v1/wallets', { customer: { identifier: 'C-PAYEE', name: 'Erin Payee' }, contact: { email: 'erin@example.com' }, bank_account: ACH });
    expect(payee.status).toBe(200);
    const made = await create({ transaction_type: 'direct_credit', amount_in_cents: 2500, email: 'erin@example.com', unique_reference: 'PAYOUT-7' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ transaction_type: 'direct_credit', from_fund: bank.name, payment_method: 'bank_account', gateway_transaction: expect.any(String) });
    expect(['in_progress', 'completed']).toContain(made.body.state);
    const order = await h.api.get<{ action: string; approved_amount_cents: number }>(`/api/exports/transaction/${made.body.gateway_transaction}`);
    expect(order.body).toMatchObject({ action: 'credit', approved_amount_cents: 2500 });
    // A retry under the same unique_reference is the same payout: one credit.
    const retry = await create({ transaction_type: 'direct_credit', amount_in_cents: 2500, email: 'erin@example.com', unique_reference: 'PAYOUT-7' });
    expect(retry.body.gateway_transaction).toBe(made.body.gateway_transaction);
    const declined = await create({ transaction_type: 'direct_credit', amount_in_cents: 2501, email: 'erin@example.com' });
    expect(declined.body.state).toBe('error');
    expect((await approve(declined.body.token)).body.code).toBe('illegal_transition');
  });

  it('cancel applies before money moves only; approve after cancel is illegal', async () => {
    const made = await create({ transaction_type: 'request', amount_in_cents: 3000, email: 'y@example.com' });
    const cancelled = await cancel(made.body.token);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.state).toBe('cancelled');
    const again = await cancel(made.body.token);
    expect(again.status).toBe(412);
    expect(again.body.error).toContain('it is cancelled');
    expect((await approve(made.body.token)).body.code).toBe('illegal_transition');
    expect((await cancel('NOSUCHTXN')).status).toBe(404);
  });

  it('unique_reference: a retry answers the first transaction, another request under it is refused; lookup by it', async () => {
    const body = { transaction_type: 'request', amount_in_cents: 4000, email: 'z@example.com', unique_reference: 'INV-42' };
    const first = await create(body);
    const retry = await create(body);
    expect(retry.status).toBe(201);
    expect(retry.body.token).toBe(first.body.token);
    const other = await create({ ...body, amount_in_cents: 4100 });
    expect(other.status).toBe(412);
    expect(other.body.code).toBe('duplicate_unique_reference');
    expect((await h.api.get<Txn>('/api/transactions/INV-42')).body.token).toBe(first.body.token);
    expect((await h.api.get('/api/transactions/NOPE')).status).toBe(404);
    expect((await h.api.get<Txn[]>('/api/transactions')).body).toHaveLength(1);
  });

  it('validates the request (412 like the reference) and needs credentials', async () => {
    const bad = await create({ transaction_type: 'gift', amount_in_cents: -1, email: 'not-an-email' });
    expect(bad.status).toBe(412);
    expect((await h.api.post('/api/transactions', {}, null)).status).toBe(401);
    expect((await h.api.get('/api/transactions?page=0')).status).toBe(400);
  });
});

describe('debit agreements', () => {
  it('pending → approved → revoked, with direct debits allowed only while approved', async () => {
    const payer = await customerWithCard('pad@example.com');
    const made = await h.api.post<Agreement>('/api/debit_agreements', { email: 'pad@example.com', reference: 'Ad 123', message: 'Monthly' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ state: 'pending', type: 'debit_agreement', email: 'pad@example.com' });
    const early = await create({ transaction_type: 'direct_debit', amount_in_cents: 1200, email: 'pad@example.com' });
    expect(early.status).toBe(412);
    expect(early.body.code).toBe('no_debit_agreement');

    const approved = await agreementMove(made.body.token, 'approve', { fund_token: payer });
    expect(approved.status).toBe(201);
    expect(approved.body.state).toBe('approved');
    const debit = await create({ transaction_type: 'direct_debit', amount_in_cents: 1200, email: 'PAD@example.com' });
    expect(debit.status).toBe(201);
    expect(debit.body).toMatchObject({ transaction_type: 'direct_debit', state: 'completed', payment_method: 'credit_card' });
    expect((await cancel(debit.body.token)).body.code).toBe('illegal_transition');

    expect((await agreementMove(made.body.token, 'approve', { fund_token: payer })).body.code).toBe('illegal_transition');
    expect((await agreementMove(made.body.token, 'reject')).body.code).toBe('illegal_transition');
    const revoked = await agreementMove(made.body.token, 'revoke');
    expect(revoked.status).toBe(200);
    expect(revoked.body.state).toBe('revoked');
    expect((await agreementMove(made.body.token, 'revoke')).status).toBe(412);
    expect((await agreementMove(made.body.token, 'cancel')).status).toBe(412);
    expect((await create({ transaction_type: 'direct_debit', amount_in_cents: 1200, email: 'pad@example.com' })).body.code).toBe('no_debit_agreement');
  });

  it("is approved only with the account's own fund or a method of the person it is with, never another customer's card", async () => {
    const theirs = await customerWithCard('pat@example.com');
    const stranger = (await h.api.post<{ fund_token: string }>('/api/gateway/v1/wallets', { customer: { identifier: 'C-OTHER', name: 'Other Co' }, contact: { email: 'other@example.com' }, credit_card: card(MASTERCARD) })).body.fund_token;
    const made = await h.api.post<Agreement>('/api/debit_agreements', { email: 'pat@example.com' });
    const wrong = await agreementMove(made.body.token, 'approve', { fund_token: stranger });
    expect([wrong.status, wrong.body.code]).toEqual([412, 'fund_not_authorized']);
    expect((await create({ transaction_type: 'direct_debit', amount_in_cents: 2000, email: 'pat@example.com' })).body.code).toBe('no_debit_agreement');
    expect((await agreementMove(made.body.token, 'approve', { fund_token: theirs })).body.state).toBe('approved');
    // A request for money is paid the same way: not from another customer's card.
    const request = await create({ transaction_type: 'request', amount_in_cents: 3000, email: 'pat@example.com' });
    const refused = await approve(request.body.token, { fund_token: stranger });
    expect([refused.status, refused.body.code]).toEqual([412, 'fund_not_authorized']);
    expect((await h.api.get<Txn>(`/api/transactions/${request.body.token}`)).body.state).toBe('wait_for_request_approval');
    expect((await approve(request.body.token, { fund_token: theirs })).body.state).toBe('completed');
  });

  it('pending → rejected with a reason; pending or approved → cancelled; lists sent, not received', async () => {
    const a = (await h.api.post<Agreement>('/api/debit_agreements', { email: 'a@example.com' })).body;
    const b = (await h.api.post<Agreement>('/api/debit_agreements', { email: 'b@example.com' })).body;
    const c = (await h.api.post<Agreement>('/api/debit_agreements', { email: 'c@example.com' })).body;
    const rejected = await agreementMove(a.token, 'reject', { rejection_reason: 'Not our supplier' });
    expect(rejected.body).toMatchObject({ state: 'rejected', rejection_reason: 'Not our supplier' });
    expect((await agreementMove(a.token, 'approve')).body.code).toBe('illegal_transition');
    expect((await agreementMove(b.token, 'revoke')).body.code).toBe('illegal_transition');
    expect((await agreementMove(b.token, 'cancel')).body.state).toBe('cancelled');
    await vaultOwnBank();
    expect((await agreementMove(c.token, 'approve')).body.state).toBe('approved');
    expect((await agreementMove(c.token, 'cancel')).body.state).toBe('cancelled');
    expect((await agreementMove('NOPE', 'cancel')).status).toBe(404);

    const sent = await h.api.get<Agreement[]>('/api/debit_agreements/sent');
    expect(sent.body.map((x) => x.token)).toEqual([c.token, b.token, a.token]);
    expect((await h.api.get<Agreement[]>('/api/debit_agreements/received')).body).toEqual([]);
    expect((await h.api.get<Agreement[]>('/api/debit_agreements/sent?page=2')).body).toEqual([]);
  });

  it('approving without a fund and without a bank account to default to is refused', async () => {
    const a = (await h.api.post<Agreement>('/api/debit_agreements', { email: 'q@example.com' })).body;
    const res = await agreementMove(a.token, 'approve');
    expect(res.status).toBe(412);
    expect(res.body.code).toBe('fund_token_required');
    expect((await h.api.get<Agreement[]>('/api/debit_agreements/sent')).body[0]!.state).toBe('pending');
  });
});
