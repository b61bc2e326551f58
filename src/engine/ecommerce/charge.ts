import type { EngineCore, Tx } from '../core';
import { fail } from '../errors';
import type { GiftCards } from '../wallets/gift-cards';
import type { Gateway } from '../gateway';
import { fingerprintOf } from '../gateway/idempotency';
import { MAX_AMOUNT } from '../gateway/amounts';
import { formatMoney } from '../../shared/money';
import { avsResponse } from '../gateway/sandbox/checks';
import { responseCodeFor } from '../gateway/reference-data';
import { FUNDS, type FundDoc } from '../wallets/records';
import { getRecord, putRecord } from '../records';
import { perKeyQueue } from '../per-key-queue';
import type { EcommercePayment, PaymentResponse } from '../../shared/schemas/ecommerce';
import { SALE, TOKEN, accountTypeOf, type SessionData, type TokenData } from './sessions';
import { avsRefusal, toDecimal, toMinor, type SaleData, type SalePayment } from './sales';

/**
 * One payment on a session's sale: the payment method it names (made on this session, or in its
 * wallet), the session's AVS rules, a gift card's partial approval, then the gateway's own sale or
 * authorization on the sale's order, recorded on the sale.
 */
export interface Charged {
  approved: boolean;
  partial: boolean;
  response: PaymentResponse;
  decline?: { code: number; message: string };
}

export const putSale = (tx: Tx, data: SaleData) =>
  putRecord(tx, SALE, data.id, data, { type: 'ecommerce_sale.updated', entity: 'ecommerce_sale', key: data.id, data: { session: data.session, finalized: data.finalized } }, data.session);

export async function loadSale(reader: Tx | EngineCore, s: SessionData, saleId: string): Promise<SaleData> {
  const doc = await getRecord<SaleData>(reader, SALE, saleId);
  if (!doc || doc.data.session !== s.id) throw fail.notFound('sale_not_found', `No sale ${saleId} on session ${s.id}`);
  return doc.data;
}

export const bad = (code: string, path: string, message: string) => fail.invalid(code, message, [{ field: path, message }]);

/**
 * What a payment asks, checked before anything is written or charged: its amount in minor units (more
 * decimals than the currency has, or nothing at all, is refused), and `capture: false` only for a card
 * (an authorization is a card's: a gift card or bank account would be charged at once, which is not what
 * was asked). The key is what a retry of the same payment repeats (payments.ts).
 */
export function checkPayment(p: EcommercePayment, currency: string, path: string): { requested: number; key: string } {
  if (p.type === 'applePay') throw bad('apple_pay_unavailable', `${path}/type`, 'Apple Pay payments need a production Apple Pay merchant certificate; none is configured');
  if (!p.capture && p.type !== 'creditCard') {
    throw bad('authorization_unsupported', `${path}/capture`, `capture: false (an authorization) is for cards only: a ${p.type === 'ach' ? 'bank account (ach)' : 'gift card'} payment is a sale, send capture: true`);
  }
  const requested = toMinor(p.amount, currency, `${path}/amount`);
  if (requested <= 0) throw bad('invalid_amount', `${path}/amount`, 'A payment amount must be more than zero');
  // One payment is one gateway transaction: at most MAX_AMOUNT minor units (a larger sale takes several).
  if (requested > MAX_AMOUNT) throw bad('invalid_amount', `${path}/amount`, `One payment takes at most ${formatMoney(MAX_AMOUNT, currency)} (${MAX_AMOUNT} minor units): pay the rest with another payment`);
  return { requested, key: `${p.type}/${p.token}/${requested}/${p.capture}` };
}

export function createCharger(deps: { core: EngineCore; giftCards: GiftCards; gateway: Gateway }) {
  const { core, giftCards, gateway } = deps;
  /** The payment method a payment names: one the session's frame tokenized, or one in the session's wallet. */
  const methodOf = async (s: SessionData, p: EcommercePayment, path: string) => {
    const issued = (await getRecord<TokenData>(core, TOKEN, p.token))?.data;
    if (issued && issued.session === s.id) {
      if (issued.type !== p.type) throw bad('payment_type_mismatch', `${path}/type`, `Token ${p.token} is a ${issued.type}, not a ${p.type}`);
      return issued;
    }
    const fund = s.wallet ? (await core.get<FundDoc>(FUNDS, p.token))?.data : undefined;
    const kind = p.type === 'creditCard' ? 'credit_card' : p.type === 'ach' ? 'bank_account' : null;
    if (fund && fund.wallet === s.wallet && fund.kind === kind && !fund.inactive) return { token: fund.token, session: s.id, type: p.type, last4: fund.card?.last4 ?? fund.bank!.last4, brand: fund.card?.brand ?? null } as TokenData;
    throw bad('token_not_found', `${path}/token`, `Token ${p.token} was not made on this session and is not in its wallet`);
  };

  // Payments on one sale run one at a time: each is checked against what the sale still owes, which
  // must count the payment before it. Two fired at once each saw the whole balance open, and both
  // were charged (the gateway call happens outside any unit of work, so the unit cannot hold it).
  const oneAtATime = perKeyQueue();
  return (s: SessionData, saleId: string, p: EcommercePayment, actor: string, path: string): Promise<Charged> => oneAtATime(saleId, () => chargeNow(s, saleId, p, actor, path));

  async function chargeNow(s: SessionData, saleId: string, p: EcommercePayment, actor: string, path: string): Promise<Charged> {
    const sale = await loadSale(core, s, saleId);
    const { requested, key } = checkPayment(p, sale.currency, path);
    // A retry is answered before anything else: the sale may have been finalized by the first try.
    const prior = sale.payments.find((x) => x.key === key && x.approved);
    if (prior) return { approved: true, partial: prior.amount_cents < prior.requested_cents, response: prior.response };
    if (sale.finalized) throw bad('sale_finalized', path, `Sale ${saleId} is finalized: it takes no more payments`);
    const method = await methodOf(s, p, path);
    let amount = requested;
    if (p.type === 'giftCard') {
      // A gift card pays what it holds: the rest is left for another payment (a partial approval).
      const card = await giftCards.view(p.token);
      if (card.balance > 0) amount = Math.min(requested, card.balance);
    }
    const open = sale.total_cents - sale.payments.filter((x) => x.approved).reduce((sum, x) => sum + x.amount_cents, 0);
    if (amount > open) throw bad('amount_exceeds_balance', `${path}/amount`, `The payment (${p.amount}) is more than the sale still owes (${toDecimal(open, sale.currency)})`);
    const base = { accountNumberLastFour: method.last4, accountType: accountTypeOf(p.type === 'creditCard' ? 'credit_card' : p.type === 'ach' ? 'bank_account' : 'gift_card', method.brand, null), token: p.token };
    // A card's AVS answer is for the sale's billing address, its CVV answer the one from when the
    // frame tokenized it (none for a wallet's card): checked here, recorded on the transaction.
    const checks = p.type === 'creditCard' ? { avs: avsResponse(sale.billing.street, sale.billing.postal), cvv: method.cvv_response ?? null } : undefined;
    if (checks) {
      const avs = checks.avs;
      const why = avsRefusal(s.options.avsRules, avs);
      if (why) return { approved: false, partial: false, response: { ...base, ...(avs ? { avsResponseCode: avs } : {}) }, decline: { code: responseCodeFor('avs_mismatch').code, message: `Declined by this session's AVS rules: ${why}` } };
    }
    const result = await gateway.transact(
      p.type === 'creditCard' && !p.capture ? 'authorize' : 'sale',
      {
        order: saleId,
        amount_cents: amount,
        currency: sale.currency,
        ...(p.type === 'giftCard' ? { gift_card: p.token } : p.type === 'ach' ? { bank_account: p.token } : { credit_card: p.token }),
        transaction_reference: `ecom-${fingerprintOf([s.id, saleId, key])}`,
        unique_reference: `ecom-${fingerprintOf([s.id, saleId, key])}`,
        industry: 'ecommerce',
      },
      actor,
      checks,
    );
    const t = result.body.transactions[0]!;
    const response: PaymentResponse = {
      ...base,
      ...(t.gateway_authorization_code ? { approvalCode: t.gateway_authorization_code } : {}),
      // What the transaction records, so the answer and the exports agree.
      ...(t.avs_response ? { avsResponseCode: t.avs_response } : {}),
      ...(t.from_account ? { fromAccount: t.from_account } : {}),
      accountType: accountTypeOf(t.payment_method, t.credit_card_brand, t.bank_account_type),
      amount: toDecimal(t.approved_amount_cents, sale.currency),
      transactionId: t.token,
    };
    await core.mutate(async (tx) => {
      const fresh = await loadSale(tx, s, saleId);
      if (fresh.payments.some((x) => x.transaction === t.token)) return;
      const entry: SalePayment = { key, transaction: t.token, token: p.token, type: p.type, requested_cents: requested, amount_cents: result.approved ? amount : 0, approved: result.approved, response };
      await putSale(tx, { ...fresh, payments: [...fresh.payments, entry], updated_at: tx.at });
    });
    if (!result.approved) return { approved: false, partial: false, response, decline: { code: result.body.response_code, message: t.gateway_error_message || t.gateway_response.message || 'DECLINED' } };
    return { approved: true, partial: amount < requested, response };
  }
}
