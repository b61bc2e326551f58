import type { EngineCore, Tx } from '../core';
import type { Account } from '../account';
import { fail } from '../errors';
import type { Orders } from '../orders';
import type { GiftCards } from '../wallets/gift-cards';
import type { Gateway } from '../gateway';
import { fingerprintOf } from '../gateway/idempotency';
import { avsResponse } from '../gateway/sandbox/checks';
import { responseCodeFor } from '../gateway/reference-data';
import { FUNDS, type FundDoc } from '../wallets/records';
import { getRecord, putRecord, recordsByRef } from '../records';
import type { EcommercePayment, PaymentResponse, SaleRequest, SaleResponse } from '../../shared/schemas/ecommerce';
import { SALE, TOKEN, accountTypeOf, type SessionData, type TokenData } from './sessions';
import { avsRefusal, orderOf, toDecimal, toMinor, type SaleData, type SalePayment } from './sales';

/**
 * Sales on a session: the order goes through the order engine and every payment through the
 * gateway (the same transactions, settlement, exports and events as any other), keyed so that a
 * retried request never charges twice:
 * - a sale is keyed by session + orderNumber: the same request again answers the same order (and
 *   its payments replay); a different request under that orderNumber is refused;
 * - a payment is keyed by sale + type + token + amount asked + capture, which becomes the gateway's
 *   `transaction_reference`: an approved one is answered again, never charged again. A decline
 *   holds nothing, so the buyer may try again.
 */

export type SaleOutcome =
  | { status: 201 | 202; body: SaleResponse }
  | { status: 201; body: PaymentResponse }
  | { status: 402; body: { message: string; errors: Array<{ path: string; response_code: string; message: string }>; orderId: string } };

export interface SalesFlow {
  createSale(id: string, sale: SaleRequest, actor: string): Promise<SaleOutcome>;
  addPayment(id: string, saleId: string, payment: EcommercePayment, actor: string): Promise<SaleOutcome>;
  finalizeSale(id: string, saleId: string): Promise<SaleResponse>;
  decimalOf(minor: number, currency: string): number;
}

interface Charged {
  approved: boolean;
  partial: boolean;
  response: PaymentResponse;
  decline?: { code: number; message: string };
}

const putSale = (tx: Tx, data: SaleData) =>
  putRecord(tx, SALE, data.id, data, { type: 'ecommerce_sale.updated', entity: 'ecommerce_sale', key: data.id, data: { session: data.session, finalized: data.finalized } }, data.session);

export function createSalesFlow(deps: { core: EngineCore; account: Account; orders: Orders; giftCards: GiftCards; gateway: Gateway; alive: (id: string) => Promise<SessionData> }): SalesFlow {
  const { core, account, orders, giftCards, gateway, alive } = deps;

  const loadSale = async (reader: Tx | EngineCore, s: SessionData, saleId: string): Promise<SaleData> => {
    const doc = await getRecord<SaleData>(reader, SALE, saleId);
    if (!doc || doc.data.session !== s.id) throw fail.notFound('sale_not_found', `No sale ${saleId} on session ${s.id}`);
    return doc.data;
  };

  const bad = (code: string, path: string, message: string) => fail.invalid(code, message, [{ field: path, message }]);

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

  const charge = async (s: SessionData, saleId: string, p: EcommercePayment, actor: string, path: string): Promise<Charged> => {
    const sale = await loadSale(core, s, saleId);
    if (p.type === 'applePay') throw bad('apple_pay_unavailable', `${path}/type`, 'Apple Pay payments need a production Apple Pay merchant certificate; none is configured');
    const requested = toMinor(p.amount, sale.currency, `${path}/amount`);
    if (requested <= 0) throw bad('invalid_amount', `${path}/amount`, 'A payment amount must be more than zero');
    const key = `${p.type}/${p.token}/${requested}/${p.capture}`;
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
    if (p.type === 'creditCard') {
      const avs = avsResponse(sale.billing.street, sale.billing.postal);
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
        industry: 'ecommerce',
      },
      actor,
    );
    const t = result.body.transactions[0]!;
    const avs = p.type === 'creditCard' ? avsResponse(sale.billing.street, sale.billing.postal) : null;
    const response: PaymentResponse = {
      ...base,
      ...(t.gateway_authorization_code ? { approvalCode: t.gateway_authorization_code } : {}),
      ...(avs ? { avsResponseCode: avs } : {}),
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
  };

  const declined = (saleId: string, path: string, d: { code: number; message: string }): SaleOutcome => ({
    status: 402,
    body: { message: `The payment was declined: ${d.message}`, errors: [{ path, response_code: String(d.code), message: d.message }], orderId: saleId },
  });

  const finalize = async (s: SessionData, saleId: string): Promise<SaleResponse> => {
    const sale = await loadSale(core, s, saleId);
    if (!sale.finalized) {
      await orders.update({ identifier: saleId, draft: false });
      await core.mutate(async (tx) => {
        const fresh = await loadSale(tx, s, saleId);
        await putSale(tx, { ...fresh, finalized: true, updated_at: tx.at });
      });
    }
    return { orderId: saleId, finalized: true };
  };

  const openSale = async (s: SessionData, sale: SaleRequest): Promise<SaleData> => {
    const { gatewayAuthorization: _auth, ...content } = sale;
    const fingerprint = fingerprintOf([content]);
    const sameNumber = async (reader: Tx | EngineCore) => (await recordsByRef<SaleData>(reader, SALE, s.id)).find((r) => r.data.order_number === sale.orderNumber)?.data;
    const check = (found: SaleData | undefined) => {
      if (found && found.fingerprint !== fingerprint) throw bad('order_number_used', '/orderNumber', `orderNumber ${sale.orderNumber} was already used for a different sale on this session`);
      return found;
    };
    const existing = check(await sameNumber(core));
    if (existing) return existing;
    const { input, total } = orderOf(core.ids.token(), sale);
    return core.mutate(async (tx) => {
      const twin = check(await sameNumber(tx));
      if (twin) return twin;
      const resolved = await orders.resolveInTx(tx, input, { amountCents: total, currency: sale.currency.toLowerCase() });
      await orders.putInTx(tx, resolved);
      const data: SaleData = {
        id: input.identifier!,
        session: s.id,
        order_number: sale.orderNumber,
        currency: sale.currency,
        total_cents: total,
        finalized: false,
        billing: { street: sale.billingAddress.address1 ?? null, postal: sale.billingAddress.postCode ?? null },
        fingerprint,
        payments: [],
        created_at: tx.at,
        updated_at: tx.at,
      };
      await putSale(tx, data);
      return data;
    });
  };

  return {
    async createSale(id, sale, actor) {
      const s = await alive(id);
      account.require('orders');
      if (sale.payment && sale.payments) throw bad('payment_conflict', '/payments', 'Send payment or payments, not both');
      if (sale.applePayPayment) throw bad('apple_pay_unavailable', '/applePayPayment', 'Apple Pay payments need a production Apple Pay merchant certificate; none is configured');
      const data = await openSale(s, sale);
      const payments = sale.payments ?? (sale.payment ? [sale.payment] : []);
      const answers: PaymentResponse[] = [];
      let whole = payments.length > 0;
      for (const [i, p] of payments.entries()) {
        const path = sale.payments ? `/payments/${i}` : '/payment';
        const c = await charge(s, data.id, p, actor, path);
        if (c.decline) return declined(data.id, path, c.decline);
        if (c.partial) whole = false;
        answers.push(c.response);
      }
      const finalized = whole ? (await finalize(s, data.id)).finalized : (await loadSale(core, s, data.id)).finalized;
      return { status: 201, body: { orderId: data.id, finalized, ...(sale.payment ? { payment: answers[0]! } : {}), ...(sale.payments ? { payments: answers } : {}) } };
    },

    async addPayment(id, saleId, payment, actor) {
      const s = await alive(id);
      const c = await charge(s, saleId, payment, actor, '');
      if (c.decline) return declined(saleId, '', c.decline);
      return { status: 201, body: c.response };
    },

    async finalizeSale(id, saleId) {
      return finalize(await alive(id), saleId);
    },

    decimalOf: (minor, currency) => toDecimal(minor, currency),
  };
}
