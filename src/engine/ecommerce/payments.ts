import type { EngineCore, Tx } from '../core';
import type { Account } from '../account';
import type { Orders } from '../orders';
import type { GiftCards } from '../wallets/gift-cards';
import type { Gateway } from '../gateway';
import { fingerprintOf } from '../gateway/idempotency';
import { localDate } from '../gateway/processing-day';
import { recordsByRef } from '../records';
import type { EcommercePayment, PaymentResponse, SaleRequest, SaleResponse } from '../../shared/schemas/ecommerce';
import { SALE, type SessionData } from './sessions';
import { orderOf, toDecimal, type SaleData } from './sales';
import { bad, checkPayment, createCharger, loadSale, putSale } from './charge';

/**
 * Sales on a session: the order goes through the order engine and every payment through the
 * gateway (the same transactions, settlement, exports and events as any other), keyed so that a
 * retried request never charges twice:
 * - a sale is keyed by session + orderNumber: the same request again answers the same order (and
 *   its payments replay); a different request under that orderNumber is refused;
 * - a payment is keyed by sale + type + token + amount asked + capture, which becomes the gateway's
 *   `transaction_reference`: an approved one is answered again (the same transactionId), never
 *   charged again. A decline holds nothing, so the buyer may try again. Two entries of one request
 *   under one key are refused (refuseTwins).
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

const declined = (saleId: string, path: string, d: { code: number; message: string }): SaleOutcome => ({
  status: 402,
  body: { message: `The payment was declined: ${d.message}`, errors: [{ path, response_code: String(d.code), message: d.message }], orderId: saleId },
});

/**
 * Every payment of a sale request checked before the order is made or anything charged. Two entries
 * of one `payments` that are the same payment (type, token, amount, capture: the retry key) are
 * refused: they are not a retry (a retry is the whole request sent again), yet as one key they would
 * be charged once, and two separate charges of one card for one amount is almost always the shop's
 * mistake. The shop sends one payment of the sum instead.
 */
function refuseTwins(payments: EcommercePayment[], currency: string, pathOf: (i: number) => string): void {
  const checked = payments.map((p, i) => checkPayment(p, currency, pathOf(i)));
  for (const [i, c] of checked.entries()) {
    const first = checked.findIndex((x) => x.key === c.key);
    if (first === i) continue;
    const times = checked.filter((x) => x.key === c.key).length;
    throw bad(
      'duplicate_payment',
      pathOf(i),
      `payments/${i} is the same payment as payments/${first} (same type, token, amount and capture), which would be charged once: nothing was charged. Send one payment of the sum (${toDecimal(times * c.requested, currency)}) instead`,
    );
  }
}

/** The payments a sale request carries (`payment` or `payments`), each checked, and the path naming each in errors. */
function paymentsOf(sale: SaleRequest): { payments: EcommercePayment[]; pathOf: (i: number) => string } {
  const payments = sale.payments ?? (sale.payment ? [sale.payment] : []);
  const pathOf = (i: number) => (sale.payments ? `/payments/${i}` : '/payment');
  refuseTwins(payments, sale.currency, pathOf);
  return { payments, pathOf };
}

export function createSalesFlow(deps: { core: EngineCore; account: Account; orders: Orders; giftCards: GiftCards; gateway: Gateway; alive: (id: string) => Promise<SessionData> }): SalesFlow {
  const { core, account, orders, giftCards, gateway, alive } = deps;

  const charge = createCharger({ core, giftCards, gateway });

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
    const { input, total } = orderOf(core.ids.token(), sale, localDate(core.clock.now(), account.profile().timezone));
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
      const { payments, pathOf } = paymentsOf(sale);
      const data = await openSale(s, sale);
      const answers: PaymentResponse[] = [];
      let whole = payments.length > 0;
      for (const [i, p] of payments.entries()) {
        const path = pathOf(i);
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
