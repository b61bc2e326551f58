import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ACH, ADDRESS, AMEX, DISCOVER, MASTERCARD, VISA, VISA_DECLINE, card, op, startGateway, type GatewayError, type Harness, type TxBody } from '../helpers/gateway';

import { readFileSync } from 'node:fs';
import { referenceKeys } from '../helpers/reference-check';
import { openHarness, openTestEngine } from '../helpers/harness';
import { tempDir } from '../helpers/tmp';
import { DATA_FILE, stripMeta, type StoredDoc } from '../../src/store';
import { openStore } from '../../src/store/database';
import { defineCollection, keyField, watermarkField } from '../../src/store/schema';
import { getRxStorageSqlite } from '../../src/store/sqlite';

let h: Harness;
beforeEach(async () => {
  h = await startGateway();
});
afterEach(async () => {
  await h.close();
});

const tx0 = (b: TxBody) => b.transactions[0]!;
const REFERENCE_DOC = '/work/shared/spec/reference/api-reference-1.3.35.openapi.json';

describe('sale, verify and the sandbox test numbers', () => {
  it('approves a sale with a new card, vaults it, and shows only card facts', async () => {
    const res = await op(h.api, 'sale', { amount_cents: 4200, order: { identifier: 'ORD-1' }, contact: { email: 'tim@coffee.com' }, credit_card: card() });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, order: 'ORD-1', response_code: 100 });
    const t = tx0(res.body);
    expect(t).toMatchObject({ action: 'sale', state: 'completed', amount_in_cents: 4200, payment_method: 'credit_card', credit_card_bin: '489528', credit_card_masked_number: 'XXXXXXXXXXXX0006', credit_card_brand: 'visa', credit_card_expiry: '122030', email: 'tim@coffee.com' });
    expect(res.body.wallet).toBeTruthy();
    expect(res.body.credit_card).toMatch(/^CC/);
    expect(JSON.stringify(res.body)).not.toContain(VISA);
    // Every key of the reference's operation answer: a card sale names no bank account or gift card.
    const answerKeys = referenceKeys('OrderTransactionResponse');
    expect(answerKeys).toEqual(expect.arrayContaining(['credit_card', 'bank_account', 'gift_card']));
    expect(answerKeys.filter((k) => !(k in res.body))).toEqual([]);
    expect(res.body).toMatchObject({ bank_account: null, gift_card: null });

    // The vaulted card pays again by fund token.
    const again = await op(h.api, 'sale', { amount_cents: 1000, fund_token: res.body.credit_card });
    expect(again.body).toMatchObject({ success: true, wallet: res.body.wallet, credit_card: res.body.credit_card });

    // Every field the reference's transaction has is there (a client reading one finds the key).
    const reference = JSON.parse(readFileSync(REFERENCE_DOC, 'utf8')) as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
    const fields = Object.keys(reference.components.schemas.TransactionResponse!.properties);
    expect(fields).toContain('from_fund');
    for (const path of [`/api/exports/transaction/${t.token}`, `/api/gateway/v1/transaction/${t.token}`, `/api/gateway/v1/transactions/${t.token}`]) {
      const view = await h.api.get<typeof t>(path);
      expect(view.status, path).toBe(200);
      expect(view.body).toMatchObject({ token: t.token, action: 'sale', orders: [{ identifier: 'ORD-1' }] });
      expect(fields.filter((f) => !(f in view.body)), path).toEqual([]);
    }
    expect(fields.filter((f) => !(f in t))).toEqual([]);
    // And every field of the reference's OrderTransaction, the FX ones null (no currency conversion).
    const orderTxFields = referenceKeys('OrderTransaction');
    expect(orderTxFields).toEqual(expect.arrayContaining(['fx_amount_cents', 'fx_rate']));
    for (const view of [t, (await h.api.get<typeof t>(`/api/exports/transaction/${t.token}`)).body, (await h.api.get<{ transactions: Array<typeof t> }>('/api/gateway/v1/orders/ORD-1')).body.transactions[0]!]) {
      expect(orderTxFields.filter((f) => !(f in view))).toEqual([]);
      expect(view).toMatchObject({ fx_amount_cents: null, fx_rate: null });
    }
    const missing = await h.api.get<{ code: string }>('/api/exports/transaction/NOPE');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('transaction_not_found');
  });

  it('approves every test card with its brand; the always-decline Visa declines at verification', async () => {
    for (const [pan, brand] of [
      [VISA, 'visa'],
      [MASTERCARD, 'master'],
      [DISCOVER, 'discover'],
      [AMEX, 'american_express'],
    ] as const) {
      const res = await op(h.api, 'sale', { amount_cents: 500, credit_card: card(pan, { cvv: pan === AMEX ? '6789' : '234' }) });
      expect(res.body.success, pan).toBe(true);
      expect(tx0(res.body).credit_card_brand).toBe(brand);
      expect(tx0(res.body).cvv_response).toBe('M');
    }
    const declined = await op(h.api, 'sale', { amount_cents: 500, credit_card: card(VISA_DECLINE) });
    expect(declined.status).toBe(200);
    expect(declined.body).toMatchObject({ success: false, response_code: 999, wallet: null });
    expect(tx0(declined.body)).toMatchObject({ action: 'verify', state: 'declined', gateway_error_code: '567.005', gateway_error_message: 'DECLINED', gateway_response: { errors: { gateway: ['DECLINED'] } } });
    expect(Number.isInteger(declined.body.response_code)).toBe(true);
  });

  it('declines an amount ending in .01 (the sale itself, after a good verification)', async () => {
    const res = await op(h.api, 'sale', { amount_cents: 4001, credit_card: card() });
    expect(res.body).toMatchObject({ success: false, response_code: 999 });
    expect(tx0(res.body)).toMatchObject({ action: 'sale', state: 'declined', approved_amount_cents: 0, gateway_error_code: '567.005', gateway_authorization_response: '567.005: DECLINED' });
    const auth = await op(h.api, 'auth', { amount_cents: 101, credit_card: card() });
    expect(tx0(auth.body)).toMatchObject({ action: 'authorize', state: 'declined' });
  });

  it('declines a verify for an amount ending in .01, by new card, bank account or stored method (spec: a transaction amount ending in .01 declines)', async () => {
    const stored = await op(h.api, 'sale', { amount_cents: 500, credit_card: card() });
    const bank = await op(h.api, 'sale', { amount_cents: 500, bank_account: ACH });
    for (const [label, body] of [
      ['new card', { amount_cents: 1001, credit_card: card() }],
      ['bank account', { amount_cents: 101, bank_account: ACH }],
      ['stored card', { amount_cents: 501, fund_token: stored.body.credit_card }],
      ['stored bank account', { amount_cents: 501, fund_token: bank.body.bank_account }],
    ] as const) {
      const res = await op(h.api, 'verify', body);
      expect(res.body, label).toMatchObject({ success: false, response_code: 999 });
      expect(tx0(res.body), label).toMatchObject({ action: 'verify', state: 'declined', gateway_error_code: '567.005' });
    }
    const fine = await op(h.api, 'verify', { amount_cents: 1000, credit_card: card() });
    expect(fine.body).toMatchObject({ success: true, response_code: 100 });
  });

  it('declines 211 for a number failing Luhn or unknown to the sandbox; a past expiry or a malformed number is an error', async () => {
    const luhn = await op(h.api, 'sale', { amount_cents: 500, credit_card: card('4895281000000007') });
    expect(luhn.body).toMatchObject({ success: false, response_code: 211 });
    expect(tx0(luhn.body).gateway_error_message).toContain('check digit');
    const unknown = await op(h.api, 'sale', { amount_cents: 500, credit_card: card('4111111111111111') });
    expect(unknown.body).toMatchObject({ success: false, response_code: 211 });
    // The decline is stored: it says why, and leaves the sandbox's test numbers to the README (issue 13).
    expect(tx0(unknown.body).gateway_error_message).toContain('not a sandbox test card');
    expect(tx0(unknown.body).gateway_error_message).not.toContain('4895281000000006');
    expect(tx0(unknown.body).gateway_error_message).not.toContain('4111111111111111');
    const expired = await op(h.api, 'sale', { amount_cents: 500, credit_card: card(VISA, { expiry_month: '01', expiry_year: 2026 }) });
    expect(expired.status).toBe(500);
    expect(expired.body).toEqual({ success: false, errors: ['Validation failed: Credit card gateway token not found'], response_code: 999 });
    const malformed = await op<GatewayError>(h.api, 'sale', { amount_cents: 500, credit_card: card('1234') });
    expect(malformed.status).toBe(500);
    expect(malformed.body.errors).toEqual(['invalid_card_number']);
    const noAddress = await op<GatewayError>(h.api, 'sale', { amount_cents: 500, credit_card: card(VISA, { address: undefined }) });
    expect(noAddress.body.errors).toEqual(['fund_address_unspecified']);
  });

  it('answers the CVV table exactly', async () => {
    const cases: Array<[string, string, string]> = [
      [VISA, '123', 'P'],
      [VISA, '234', 'M'],
      [VISA, '345', 'N'],
      [VISA, '456', 'S'],
      [VISA, '567', 'U'],
      [VISA, '999', 'M'],
      [AMEX, '6789', 'M'],
      [AMEX, '1011', 'N'],
      [AMEX, '1213', 'P'],
      [AMEX, '4444', 'M'],
    ];
    for (const [pan, cvv, code] of cases) {
      const res = await op(h.api, 'verify', { credit_card: card(pan, { cvv }) });
      expect(tx0(res.body).cvv_response, `${pan} ${cvv}`).toBe(code);
    }
  });

  it('answers the AVS table exactly on 234 Elm Street, and N fails the verify', async () => {
    const cases: Array<[string, string, string]> = [
      ['80801', '234 Elm Street', 'A'],
      ['80802', '234 Elm Street', 'G'],
      ['80804', '234 Elm Street', 'R'],
      ['80805', '234 Elm Street', 'S'],
      ['80806', '234 Elm Street', 'U'],
      ['808000000', '234 Elm Street', 'X'],
      ['808000000', '1 Other Road', 'W'],
      ['80809', '234 Elm Street', 'Y'],
      ['80810', '234 Elm Street', 'Z'],
      ['80815', '234 Elm Street', 'I'],
      ['80818', '234 Elm Street', 'E'],
      ['K1A 0A9', '234 Elm Street', 'D'],
      ['L6Y2N4', '234 Elm Street', 'M'],
      ['K0K2T0', '234 Elm Street', 'P'],
      ['80801', '456 My Street', 'Y'],
      ['90210', '234 Elm Street', 'Y'],
    ];
    for (const [zip, street, code] of cases) {
      const res = await op(h.api, 'verify', { credit_card: card(VISA, { address: { ...ADDRESS, address_1: street, postal_code: zip } }) });
      expect(res.body.success, `${zip} ${street}`).toBe(true);
      expect(tx0(res.body).avs_response, `${zip} ${street}`).toBe(code);
    }
    const n = await op(h.api, 'verify', { credit_card: card(VISA, { cvv: '234', address: { ...ADDRESS, address_1: '234 Elm Street', postal_code: '80803' } }) });
    expect(n.body).toMatchObject({ success: false, response_code: 203 });
    expect(tx0(n.body)).toMatchObject({ action: 'verify', avs_response: 'N', cvv_response: 'M', gateway_response: { errors: { gateway: ['Failed AVS Check'] } } });
    const sale = await op(h.api, 'sale', { amount_cents: 500, credit_card: card(VISA, { address: { ...ADDRESS, address_1: '234 Elm Street', postal_code: '80803' } }) });
    expect(tx0(sale.body)).toMatchObject({ action: 'verify', state: 'declined' });
  });

  it('verify builds a reusable token without moving money', async () => {
    const res = await op(h.api, 'verify', { amount_cents: '0', credit_card: card(MASTERCARD) });
    expect(res.body).toMatchObject({ success: true });
    expect(tx0(res.body)).toMatchObject({ action: 'verify', amount_in_cents: 0, settlement: { status: 'none' } });
    const sale = await op(h.api, 'sale', { amount_cents: 700, credit_card: res.body.credit_card });
    expect(sale.body).toMatchObject({ success: true, credit_card: res.body.credit_card });
  });
});

describe('money as a state machine', () => {
  it('captures at most the authorized remainder, in parts', async () => {
    const auth = await op(h.api, 'auth', { amount_cents: 1000, credit_card: card() });
    const token = auth.body.transaction;
    const c1 = await op(h.api, 'capture', { amount_cents: 400, transaction: token });
    expect(c1.body.success).toBe(true);
    const over = await op<GatewayError>(h.api, 'capture', { amount_cents: 700, transaction: token });
    expect(over.status).toBe(500);
    expect(over.body).toMatchObject({ success: false, errors: ['amount_exceeds_authorization'] });
    const c2 = await op(h.api, 'capture', { transaction: token });
    expect(tx0(c2.body).amount_in_cents).toBe(600);
    const view = await h.api.get<{ authorization: { captured_cents: number; remaining_cents: number; status: string } }>(`/api/exports/transaction/${token}`);
    expect(view.body.authorization).toMatchObject({ captured_cents: 1000, remaining_cents: 0, status: 'captured' });
    const none = await op<GatewayError>(h.api, 'capture', { transaction: token });
    expect(none.body.errors).toEqual(['nothing_to_capture']);
    const notAuth = await op<GatewayError>(h.api, 'capture', { transaction: c2.body.transaction });
    expect(notAuth.body.errors).toEqual(['transaction_not_capturable']);
  });

  it('a partial void of an authorization releases part of the reservation; a void amount ending .02 declines', async () => {
    const auth = await op(h.api, 'auth', { amount_cents: 1000, credit_card: card() });
    const token = auth.body.transaction;
    const declined = await op(h.api, 'void', { amount_cents: 202, transaction: token });
    expect(declined.body).toMatchObject({ success: false, response_code: 999 });
    expect(tx0(declined.body)).toMatchObject({ action: 'void', state: 'declined' });
    const v = await op(h.api, 'void', { amount_cents: 300, transaction: token });
    expect(v.body.success).toBe(true);
    const over = await op<GatewayError>(h.api, 'capture', { amount_cents: 800, transaction: token });
    expect(over.body.errors).toEqual(['amount_exceeds_authorization']);
    expect((await op(h.api, 'capture', { transaction: token })).body.transactions[0]!.amount_in_cents).toBe(700);
    const full = await op(h.api, 'auth', { amount_cents: 500, credit_card: card() });
    await op(h.api, 'void', { transaction: full.body.transaction });
    const view = await h.api.get<{ authorization: { status: string; voided_cents: number } }>(`/api/exports/transaction/${full.body.transaction}`);
    expect(view.body.authorization).toMatchObject({ status: 'voided', voided_cents: 500 });
  });

  it('voids a sale only before the cut-off of its processing day, then a refund is needed; the batch totals its transactions', async () => {
    const { t } = h;
    const s1 = await op(h.api, 'sale', { amount_cents: 2500, credit_card: card() });
    const s2 = await op(h.api, 'sale', { amount_cents: 1500, credit_card: s1.body.credit_card });
    const s3 = await op(h.api, 'sale', { amount_cents: 900, credit_card: s1.body.credit_card });
    const voided = await op(h.api, 'void', { transaction: s3.body.transaction });
    expect(voided.body.success).toBe(true);
    expect((await h.api.get<{ state: string }>(`/api/exports/transaction/${s3.body.transaction}`)).body.state).toBe('cancelled');
    const again = await op<GatewayError>(h.api, 'void', { transaction: s3.body.transaction });
    expect(again.body.errors).toEqual(['transaction_already_voided']);
    const partial = await op<GatewayError>(h.api, 'void', { amount_cents: 100, transaction: s2.body.transaction });
    expect(partial.body.errors).toEqual(['partial_void_not_allowed']);
    const r1 = await op(h.api, 'refund', { amount_cents: 500, transaction: s1.body.transaction });
    expect(r1.body.success).toBe(true);

    // The cut-off (23:00 UTC) passes: even before the tick runs, the clock closes the void window.
    t.clock.set('2026-03-02T23:00:01Z');
    const late = await op<GatewayError>(h.api, 'void', { transaction: s2.body.transaction });
    expect(late.status).toBe(500);
    expect(late.body.errors).toEqual(['void_window_closed']);
    await t.engine.tick();
    const refund = await op(h.api, 'refund', { transaction: s2.body.transaction });
    expect(refund.body.success).toBe(true);
    expect(tx0(refund.body)).toMatchObject({ action: 'refund', amount_in_cents: 1500, processing_date: '2026-03-03' });

    const batches = await t.engine.gateway.settlement.batchesSince(0, 10);
    expect(batches).toHaveLength(1);
    const batch = batches[0]!.data;
    expect(batch).toMatchObject({ processing_date: '2026-03-02', sales_cents: 4000, refunds_cents: 500, batch_net_amount_cents: 3500, transaction_count: 3 });
    const members = await t.engine.gateway.settlement.batchTransactions(batch.token);
    const sum = members.reduce((s, m) => s + (m.action === 'refund' || m.action === 'credit' ? -m.amount_cents : m.amount_cents), 0);
    expect(sum).toBe(batch.batch_net_amount_cents);
    expect(members.map((m) => m.token)).not.toContain(s3.body.transaction);
  });

  it('refunds at most what was sold minus earlier refunds, and never a voided sale', async () => {
    const sale = await op(h.api, 'sale', { amount_cents: 1000, credit_card: card() });
    await op(h.api, 'refund', { amount_cents: 600, transaction: sale.body.transaction });
    const over = await op<GatewayError>(h.api, 'refund', { amount_cents: 500, transaction: sale.body.transaction });
    expect(over.body.errors).toEqual(['amount_exceeds_refundable']);
    const rest = await op(h.api, 'refund', { transaction: sale.body.transaction });
    expect(tx0(rest.body).amount_in_cents).toBe(400);
    const hasRefunds = await op<GatewayError>(h.api, 'void', { transaction: sale.body.transaction });
    expect(hasRefunds.body.errors).toEqual(['transaction_has_refunds']);
    const other = await op(h.api, 'sale', { amount_cents: 300, credit_card: sale.body.credit_card });
    await op(h.api, 'void', { transaction: other.body.transaction });
    expect((await op<GatewayError>(h.api, 'refund', { transaction: other.body.transaction })).body.errors).toEqual(['transaction_voided']);
    const auth = await op(h.api, 'auth', { amount_cents: 300, credit_card: sale.body.credit_card });
    expect((await op<GatewayError>(h.api, 'refund', { transaction: auth.body.transaction })).body.errors).toEqual(['transaction_not_refundable']);
  });

  it('refunds nothing a chargeback already gave back to the cardholder', async () => {
    // 50.66 is the sandbox's charged-back amount: 10.00 refunded first, the 40.66 left charged back.
    const sale = await op(h.api, 'sale', { amount_cents: 5066, credit_card: card() });
    await op(h.api, 'refund', { amount_cents: 1000, transaction: sale.body.transaction });
    expect((await h.api.post('/api/sandbox/v1/clock/advance', { by: 'P20D' })).status).toBe(200);
    const [chargeback] = (await h.t.engine.gateway.settlement.exceptionsSince(0, 10)).map((e) => e.data);
    expect(chargeback).toMatchObject({ exception_type: 'chargeback', exception_amount_in_cents: 4066, exception_transaction: { token: sale.body.transaction } });
    // Refunding it now would pay the cardholder the 40.66 a second time.
    for (const amount_cents of [undefined, 100]) {
      const again = await op<GatewayError>(h.api, 'refund', { amount_cents, transaction: sale.body.transaction });
      expect(again.body.errors).toEqual(['transaction_charged_back']);
    }
    const view = await h.api.get<{ refunded_cents: number }>(`/api/exports/transaction/${sale.body.transaction}`);
    expect(view.body.refunded_cents).toBe(1000);
  });

  it('releases an uncaptured authorization after the configured hold days', async () => {
    await h.t.engine.account.update({ authorization_hold_days: 3 });
    const auth = await op(h.api, 'auth', { amount_cents: 800, credit_card: card() });
    await op(h.api, 'capture', { amount_cents: 300, transaction: auth.body.transaction });
    h.t.clock.advanceDays(2);
    await h.t.engine.tick();
    let view = await h.api.get<{ authorization: { status: string; remaining_cents: number } }>(`/api/exports/transaction/${auth.body.transaction}`);
    expect(view.body.authorization).toMatchObject({ status: 'open', remaining_cents: 500 });
    h.t.clock.advanceDays(1);
    const expired = await op<GatewayError>(h.api, 'capture', { transaction: auth.body.transaction });
    expect(expired.body.errors).toEqual(['authorization_expired']);
    await h.t.engine.tick();
    view = await h.api.get(`/api/exports/transaction/${auth.body.transaction}`);
    expect(view.body.authorization).toMatchObject({ status: 'released', remaining_cents: 0, released_cents: 500, captured_cents: 300 } as never);
  });

  it('keeps an ACH sale in progress until it settles; the sandbox return account comes back as an exception', async () => {
    const { t } = h;
    const ok = await op(h.api, 'sale', { amount_cents: 5000, bank_account: ACH });
    expect(ok.body).toMatchObject({ success: true });
    expect(ok.body.bank_account).toMatch(/^BA/);
    // The other tenders' keys are there, null: an ACH sale names no card or gift card.
    expect(referenceKeys('OrderTransactionResponse').filter((k) => !(k in ok.body))).toEqual([]);
    expect(ok.body).toMatchObject({ credit_card: null, gift_card: null });
    expect(tx0(ok.body)).toMatchObject({ state: 'in_progress', payment_method: 'bank_account', bank_account_masked_number: 'XXXXXX0016', sec_code: 'PPD' });
    const bad = await op(h.api, 'sale', { amount_cents: 5000, bank_account: { ...ACH, account_number: '0000000099' } });
    expect(bad.body).toMatchObject({ success: false, response_code: 211 });
    const auth = await op<GatewayError>(h.api, 'auth', { amount_cents: 5000, bank_account: ACH });
    expect(auth.body.errors).toEqual(['unsupported_payment_method']);
    const authByToken = await op<GatewayError>(h.api, 'auth', { amount_cents: 5000, fund_token: ok.body.bank_account });
    expect(authByToken.body.errors).toEqual(['unsupported_payment_method']);
    const returned = await op(h.api, 'sale', { amount_cents: 7000, bank_account: { ...ACH, account_number: '0000000024' } });
    expect(returned.body.success).toBe(true);

    t.clock.set('2026-03-03T00:00:00Z');
    await t.engine.tick();
    expect((await h.api.get<{ state: string }>(`/api/exports/transaction/${ok.body.transaction}`)).body.state).toBe('in_progress');
    const early = await op<GatewayError>(h.api, 'refund', { transaction: ok.body.transaction });
    expect(early.body.errors).toEqual(['transaction_not_settled']);
    t.clock.set('2026-03-03T23:30:00Z');
    await t.engine.tick();
    expect((await h.api.get<{ state: string; settlement: { status: string } }>(`/api/exports/transaction/${ok.body.transaction}`)).body).toMatchObject({ state: 'completed', settlement: { status: 'settled' } });
    expect(await t.engine.gateway.settlement.exceptionsSince(0, 10)).toHaveLength(0);
    t.clock.set('2026-03-05T23:30:00Z');
    await t.engine.tick();
    expect((await h.api.get<{ state: string }>(`/api/exports/transaction/${returned.body.transaction}`)).body.state).toBe('completed_but_nsfed');
    const exceptions = await t.engine.gateway.settlement.exceptionsSince(0, 10);
    expect(exceptions.map((e) => e.data)).toEqual([
      expect.objectContaining({ exception_type: 'return', return_code: 'R01', exception_amount_in_cents: 7000, exception_date: '2026-03-05', exception_transaction: expect.objectContaining({ token: returned.body.transaction }) }),
    ]);
    const batches = (await t.engine.gateway.settlement.batchesSince(0, 10)).map((b) => b.data);
    expect(batches).toEqual([expect.objectContaining({ payment_method_group: 'bank', sales_cents: 12000, transaction_count: 2 })]);
  });

  it('debits a bank account in its own currency only: a CAD (EFT) account is never debited in USD', async () => {
    const eft = { currency: 'CAD', account_type: 'checking', account_holder: 'Tim Coffee Ltd', account_number: '0000000016', institution_number: '001', branch_number: '00011' };
    const inline = await op<GatewayError>(h.api, 'sale', { amount_cents: 1234, bank_account: eft });
    expect([inline.status, inline.body.errors]).toEqual([500, ['currency_mismatch']]);
    const wallet = await h.api.post<{ fund_token: string }>('/api/gateway/v1/wallets', { bank_account: eft });
    expect(wallet.status).toBe(200);
    for (const action of ['sale', 'credit'] as const) {
      const stored = await op<GatewayError>(h.api, action, { amount_cents: 1234, fund_token: wallet.body.fund_token });
      expect([stored.status, stored.body.errors], action).toEqual([500, ['currency_mismatch']]);
    }
    expect(await h.t.engine.gateway.settlement.batchesSince(0, 10)).toHaveLength(0);
  });
});

describe('retries and errors', () => {
  it('never charges twice for the same order and unique_reference', async () => {
    const body = { amount_cents: 1234, order: { identifier: 'PO-9' }, unique_reference: 'attempt-1', credit_card: card() };
    const first = await op(h.api, 'sale', body);
    const second = await op(h.api, 'sale', body);
    expect(second.body.transaction).toBe(first.body.transaction);
    expect(tx0(first.body).unique_reference).toBe('attempt-1');
    // The key the view once showed, which a client may have kept, still finds the transaction.
    const byKey = await h.api.get<{ token: string; unique_reference: string }>('/api/exports/transaction/sale%2FPO-9%2Fattempt-1');
    expect(byKey.body).toMatchObject({ token: first.body.transaction, unique_reference: 'attempt-1' });
    const parallel = await Promise.all(Array.from({ length: 5 }, () => op(h.api, 'sale', { ...body, unique_reference: 'attempt-2' })));
    expect(new Set(parallel.map((r) => r.body.transaction)).size).toBe(1);
    const order = await h.api.get<{ transactions: Array<{ action: string }> }>('/api/exports/order/PO-9');
    expect(order.body.transactions.filter((t) => t.action === 'sale')).toHaveLength(2);
    const changed = await op<GatewayError>(h.api, 'sale', { ...body, amount_cents: 999 });
    expect(changed.body.errors).toEqual(['duplicate_unique_reference']);
    const refundBody = { amount_cents: 100, transaction: first.body.transaction, unique_reference: 'r1' };
    const r1 = await op(h.api, 'refund', refundBody);
    const r2 = await op(h.api, 'refund', refundBody);
    expect(r2.body.transaction).toBe(r1.body.transaction);
    expect((await h.api.get<{ refunded_cents: number }>(`/api/exports/transaction/${first.body.transaction}`)).body.refunded_cents).toBe(100);
  });

  it('shows unique_reference as the client sent it and finds the transaction by it, the most recent of those sharing it', async () => {
    // The reference's "Export/View a Transaction": the path value is matched to the token, then
    // unique_reference, which is what the client gave.
    const body = { order: { identifier: 'SO-9100' }, amount_cents: 2222, unique_reference: 'ERP-RETRY-1', credit_card: card(MASTERCARD) };
    const sale = await op(h.api, 'sale', body);
    expect(sale.body.success).toBe(true);
    expect(tx0(sale.body).unique_reference).toBe('ERP-RETRY-1');
    for (const path of ['/api/exports/transaction/ERP-RETRY-1', '/api/gateway/v1/transaction/ERP-RETRY-1', '/api/gateway/v1/transactions/ERP-RETRY-1']) {
      const view = await h.api.get<{ token: string; unique_reference: string; orders: Array<{ identifier: string }> }>(path);
      expect(view.status, path).toBe(200);
      expect(view.body, path).toMatchObject({ token: sale.body.transaction, unique_reference: 'ERP-RETRY-1', orders: [{ identifier: 'SO-9100' }] });
    }
    // A retry is still the same transaction, keyed by action and order.
    const retry = await op(h.api, 'sale', body);
    expect(retry.body.transaction).toBe(sale.body.transaction);
    expect(tx0(retry.body).unique_reference).toBe('ERP-RETRY-1');
    // The order's view (and so a webhook's body: the same view) shows it as sent too.
    const order = await h.api.get<{ transactions: Array<{ token: string; unique_reference: string | null }> }>('/api/exports/order/SO-9100');
    expect(order.body.transactions.find((t) => t.token === sale.body.transaction)?.unique_reference).toBe('ERP-RETRY-1');

    // A refund under the same reference is another transaction (another action); a lookup by the
    // reference then answers the most recent one, the refund.
    h.t.clock.advance(1000);
    const refund = await op(h.api, 'refund', { transaction: sale.body.transaction, amount_cents: 222, unique_reference: 'ERP-RETRY-1' });
    expect(refund.body.success).toBe(true);
    expect(refund.body.transaction).not.toBe(sale.body.transaction);
    expect(tx0(refund.body).unique_reference).toBe('ERP-RETRY-1');
    const latest = await h.api.get<{ token: string; action: string }>('/api/exports/transaction/ERP-RETRY-1');
    expect(latest.body).toMatchObject({ token: refund.body.transaction, action: 'refund' });
    // The sale is still found by its token, and its retry still answers it.
    expect((await h.api.get<{ token: string }>(`/api/exports/transaction/${sale.body.transaction}`)).body.token).toBe(sale.body.transaction);
    expect((await op(h.api, 'sale', body)).body.transaction).toBe(sale.body.transaction);
    // transaction_reference is free text, not a lookup key.
    const po = await op(h.api, 'sale', { amount_cents: 500, transaction_reference: 'PO-LOOKUP', credit_card: card() });
    expect(tx0(po.body)).toMatchObject({ transaction_reference: 'PO-LOOKUP', unique_reference: null });
    expect((await h.api.get('/api/exports/transaction/PO-LOOKUP')).status).toBe(404);
  });

  it('captures or voids by order, as the reference\'s capture examples send it: the order\'s one open authorization', async () => {
    const auth = await op(h.api, 'auth', { amount_cents: 4200, order: { identifier: 'ORD-CAP' }, credit_card: card() });
    expect(auth.body.success).toBe(true);
    // The reference's example: order, amount and the card, no `transaction`.
    const captured = await op(h.api, 'capture', { fee_exempt: true, order: 'ORD-CAP', amount_cents: 3000, credit_card: auth.body.credit_card });
    expect(captured.body.success).toBe(true);
    expect(tx0(captured.body)).toMatchObject({ action: 'capture', amount_in_cents: 3000 });
    const released = await op(h.api, 'void', { order: 'ORD-CAP' });
    expect(released.body.success).toBe(true);
    const none = await op<GatewayError>(h.api, 'capture', { order: 'ORD-CAP', amount_cents: 100 });
    expect(none.body.errors).toEqual(['nothing_to_capture']);
    // Two open authorizations on one order: which one is the client's to say.
    await op(h.api, 'auth', { amount_cents: 1000, order: { identifier: 'ORD-TWO' }, credit_card: card() });
    await op(h.api, 'auth', { amount_cents: 2000, order: 'ORD-TWO', credit_card: card() });
    const which = await op<GatewayError>(h.api, 'capture', { order: 'ORD-TWO', amount_cents: 500 });
    expect(which.body.errors).toEqual(['transaction_unspecified']);
    // A refund still names its transaction.
    expect((await op<GatewayError>(h.api, 'refund', { order: 'ORD-CAP', amount_cents: 100 })).body.errors).toEqual(['transaction_unspecified']);
  });

  it('takes transaction_reference as the client\'s free text: payments and refunds sharing a PO number each move money', async () => {
    const sale = await op(h.api, 'sale', { amount_cents: 3000, order: { identifier: 'PO-4521' }, transaction_reference: 'PO-4521', credit_card: card() });
    const refund = { amount_cents: 1000, transaction: sale.body.transaction, transaction_reference: 'PO-4521' };
    const r1 = await op(h.api, 'refund', refund);
    const r2 = await op(h.api, 'refund', refund);
    expect([r1.body.success, r2.body.success]).toEqual([true, true]);
    expect(r2.body.transaction).not.toBe(r1.body.transaction);
    expect(tx0(r2.body)).toMatchObject({ transaction_reference: 'PO-4521', unique_reference: null });
    expect((await h.api.get<{ refunded_cents: number }>(`/api/exports/transaction/${sale.body.transaction}`)).body.refunded_cents).toBe(2000);
    // Three charges on one order under one PO number are three charges, whatever their amounts.
    const charges = await Promise.all([300, 300, 450].map((amount_cents) => op(h.api, 'sale', { amount_cents, order: 'PO-4521', transaction_reference: 'PO-4521', credit_card: card() })));
    expect(new Set(charges.map((c) => c.body.transaction)).size).toBe(3);
    const order = await h.api.get<{ transactions: Array<{ action: string; approved_amount_cents: number }> }>('/api/exports/order/PO-4521');
    expect(order.body.transactions.filter((t) => t.action === 'sale').map((t) => t.approved_amount_cents).sort((a, b) => a - b)).toEqual([300, 300, 450, 3000]);
  });

  it('answers operation errors with 500 and a stable code, writing nothing', async () => {
    const before = h.t.engine.core.currentWatermark();
    const cases: Array<[string, unknown, string]> = [
      ['capture', { transaction: 'UNKNOWN' }, 'order_not_found'],
      ['capture', {}, 'transaction_unspecified'],
      ['sale', { amount_cents: 100, order: 'NO-SUCH-ORDER', credit_card: card() }, 'order_not_found'],
      ['sale', { amount_cents: 100 }, 'payment_method_unspecified'],
      ['sale', { amount_cents: 100, fund_token: 'CCNOPE', credit_card: card() }, 'payment_method_conflict'],
      ['sale', { amount_cents: 100, fund_token: 'CCNOPE' }, 'payment_method_not_found'],
      ['sale', { credit_card: card() }, 'amount_unspecified'],
      ['sale', { amount_cents: 0, credit_card: card() }, 'invalid_amount'],
      ['sale', { amount_cents: 100, currency: 'EUR', credit_card: card() }, 'unsupported_currency'],
      ['sale', { amount_cents: 100, terminal: { laneid: '1' } }, 'lane_not_found'],
      ['sale', { amount_cents: 100, order: { settlement_token: 'MA123XYZABCD' }, credit_card: card() }, 'settlement_token_not_found'],
    ];
    for (const [action, body, code] of cases) {
      const res = await op<GatewayError>(h.api, action, body);
      expect(res.status, code).toBe(500);
      expect(res.body, code).toMatchObject({ success: false, errors: [code] });
    }
    expect(h.t.engine.core.currentWatermark()).toBe(before);
  });

  it('refuses a capture, refund or void in a currency other than its transaction\'s (currency_mismatch), writing nothing', async () => {
    const sale = await op(h.api, 'sale', { amount_cents: 10000, currency: 'USD', credit_card: card() });
    const auth = await op(h.api, 'auth', { amount_cents: 10000, order: { identifier: 'ORD-FX' }, credit_card: card() });
    const ach = await op(h.api, 'sale', { amount_cents: 7000, bank_account: ACH });
    for (const r of [sale, auth, ach]) expect(r.body.success).toBe(true);
    const before = h.t.engine.core.currentWatermark();
    const cases: Array<[string, Record<string, unknown>]> = [
      // A client meaning ¥5,000 must not get $50 back.
      ['refund', { transaction: sale.body.transaction, amount_cents: 5000, currency: 'JPY' }],
      ['refund', { transaction: sale.body.transaction, amount_cents: 5000, currency: 'jpy', unique_reference: 'r-1' }],
      ['capture', { transaction: auth.body.transaction, amount_cents: 5000, currency: 'KWD' }],
      ['capture', { order: 'ORD-FX', amount_cents: 5000, currency: 'KWD' }],
      ['void', { transaction: auth.body.transaction, currency: 'EUR' }],
      ['void', { order: 'ORD-FX', currency: 'EUR' }],
      ['void', { transaction: sale.body.transaction, currency: 'CAD' }],
      ['void', { transaction: ach.body.transaction, currency: 'CAD' }],
    ];
    for (const [action, body] of cases) {
      const res = await op<GatewayError>(h.api, action, body);
      expect([res.status, res.body.success, res.body.errors], `${action} ${JSON.stringify(body)}`).toEqual([500, false, ['currency_mismatch']]);
    }
    expect(h.t.engine.core.currentWatermark()).toBe(before);

    // The original's currency, in any case, or none: the operation goes through in it.
    const refund = await op(h.api, 'refund', { transaction: sale.body.transaction, amount_cents: 5000, currency: 'usd', unique_reference: 'r-1' });
    expect(tx0(refund.body)).toMatchObject({ action: 'refund', amount_in_cents: 5000, currency: 'usd' });
    // A retry of it in another currency is refused, not answered with the first refund.
    const retried = await op<GatewayError>(h.api, 'refund', { transaction: sale.body.transaction, amount_cents: 5000, currency: 'JPY', unique_reference: 'r-1' });
    expect(retried.body.errors).toEqual(['currency_mismatch']);
    const capture = await op(h.api, 'capture', { transaction: auth.body.transaction, amount_cents: 5000, currency: 'USD' });
    expect(tx0(capture.body)).toMatchObject({ action: 'capture', amount_in_cents: 5000, currency: 'usd' });
    const released = await op(h.api, 'void', { order: 'ORD-FX' });
    expect(tx0(released.body)).toMatchObject({ action: 'void', amount_in_cents: 5000 });
    const achVoid = await op(h.api, 'void', { transaction: ach.body.transaction, currency: 'Usd' });
    expect(tx0(achVoid.body)).toMatchObject({ action: 'void', amount_in_cents: 7000 });
  });

  it('refuses in production (no processor) and when order transactions are off', async () => {
    await h.t.engine.account.update({ environment: 'production' });
    const prod = await op<GatewayError>(h.api, 'sale', { amount_cents: 100, credit_card: card() });
    expect(prod.body.errors).toEqual(['processor_unavailable']);
    await h.t.engine.account.update({ environment: 'sandbox', capabilities: { order_transactions: false } });
    const off = await op<GatewayError>(h.api, 'sale', { amount_cents: 100, credit_card: card() });
    expect(off.body.errors).toEqual(['capability_disabled']);
  });

  it('lists every response code the processor returns, without credentials', async () => {
    const res = await h.api.get<Array<{ code: number; description: string }>>('/api/reference_data/v1/response_codes', null);
    expect(res.status).toBe(200);
    const codes = new Map(res.body.map((c) => [c.code, c.description]));
    // Integers, as the spec has them: a transaction's response_code is found by equality.
    expect(codes.get(211)).toMatch(/account number invalid/i);
    for (const code of [100, 201, 202, 203, 205, 206, 207, 250, 260, 301, 999]) expect(codes.has(code), String(code)).toBe(true);
  });
});

describe('a data folder from before the client reference was kept apart', () => {
  it('opens, shows the client\'s unique_reference of its old transactions and finds them by token and by the key they showed; their retry keys still hold', async () => {
    // Transactions as the previous version stored them: only the retry key, as their
    // unique_reference, in the body and in the one indexed field, and no client_reference field.
    const source = await openTestEngine();
    const saleBody = { order: { identifier: 'SO-OLD' }, amount_cents: 3100, unique_reference: 'ERP-OLD-1', credit_card: card() };
    const sale = (await source.engine.gateway.transact('sale', saleBody, null)).body.transaction!;
    source.clock.advance(1000);
    const refundBody = { transaction: sale, amount_cents: 100, unique_reference: 'ERP-OLD-1' };
    const refund = (await source.engine.gateway.transact('refund', refundBody, null)).body.transaction!;
    const legacy = await Promise.all(
      [sale, refund].map(async (token, i) => {
        const raw = stripMeta((await source.store.get('transactions', token))!);
        const { retry_key: key, ...data } = raw.data as Record<string, unknown>;
        const { client_reference: _c, ...row } = raw;
        return { ...row, watermark: i + 1, unique_reference: key, data: { ...data, unique_reference: key } } as StoredDoc;
      }),
    );
    await source.close();
    expect(legacy.map((d) => d.unique_reference)).toEqual(['sale/SO-OLD/ERP-OLD-1', 'refund/SO-OLD/ERP-OLD-1']);

    const folder = tempDir();
    try {
      const v0 = defineCollection('transactions', {
        fields: { order_id: keyField(100), unique_reference: keyField(240), due_at: watermarkField, batch_id: keyField(120), fund: keyField(40), recency: watermarkField },
        indexes: [['order_id', 'watermark'], ['unique_reference'], ['due_at'], ['batch_id', 'watermark'], ['fund', 'recency']],
        idLength: 40,
      });
      const old = await openStore({ storage: getRxStorageSqlite({ directory: folder.dir, fileName: DATA_FILE }) as never, collections: [v0] });
      await old.commit(legacy.map((doc) => ({ collection: 'transactions', doc })));
      await old.close();

      const upgraded = await openHarness({ dir: folder.dir, api: true });
      try {
        const view = (path: string) => upgraded.api.get<{ token: string; unique_reference: string }>(path);
        // Rows stored before have no client_reference of their own (the folder is not rewritten at
        // the upgrade): they are found by token and by the key they showed, and show the client's part.
        for (const path of [`/api/exports/transaction/${sale}`, '/api/exports/transaction/sale%2FSO-OLD%2FERP-OLD-1']) {
          const found = await view(path);
          expect(found.status, path).toBe(200);
          expect(found.body, path).toMatchObject({ token: sale, unique_reference: 'ERP-OLD-1' });
        }
        // The retry keys still hold: the refund sent again is the same refund, and the sale's key
        // is still taken (its card was vaulted under another install's key here, so it is refused).
        expect((await op(upgraded.api, 'refund', refundBody)).body.transaction).toBe(refund);
        expect((await op<GatewayError>(upgraded.api, 'sale', saleBody)).body.errors).toEqual(['duplicate_unique_reference']);
      } finally {
        await upgraded.close();
      }
    } finally {
      folder.cleanup();
    }
  });
});
