import type { EngineCore } from '../core';
import type { Account } from '../account';
import { fail, isEngineError } from '../errors';
import type { Gateway } from '../gateway';
import { MAX_AMOUNT } from '../gateway/amounts';
import { fingerprintOf } from '../gateway/idempotency';
import { perKeyQueue } from '../per-key-queue';
import type { PayableInvoice, Receivables } from '../receivables';
import type { Wallets } from '../wallets';
import type { PayLinkOutcome, PayLinkPaymentRequest, PayLinkView } from '../../shared/schemas/pay-links';
import { linkAttempts, rememberAttempt } from './attempts';
import { methodText, methodsFor, payerMethod } from './payer-method';

export { MAX_REFUSED, REFUSED_WINDOW_MS } from './attempts';

/**
 * Click-to-pay: the invoice a pay_url names, paid by whoever holds the link, by card or bank
 * account. A link is a key to one invoice's balance and nothing else: it pays all that is owed
 * (less an early-payment discount still open: receivables' early-discount.ts), the amount the
 * payer saw (a balance that moved meanwhile is refused, nothing charged), one payment at a time,
 * and pauses after repeated refusals (attempts.ts).
 */
export interface PayLinks {
  view(key: string): Promise<PayLinkView>;
  pay(key: string, request: PayLinkPaymentRequest): Promise<PayLinkOutcome>;
}

interface PayLinkDeps {
  core: EngineCore;
  account: Account;
  receivables: Receivables;
  gateway: Gateway;
  wallets: Wallets;
}

const missing = (err: unknown) => isEngineError(err) && err.kind === 'not_found';

/** What a payment here charges: all that is owed, less the early-payment discount it takes today. */
const chargeOf = (inv: PayableInvoice) => inv.owing_cents - inv.discount_cents;

async function requireInvoice(deps: PayLinkDeps, key: string): Promise<PayableInvoice> {
  const inv = await deps.receivables.payableInvoice(key);
  // One answer for a key that names no invoice and one whose token is wrong: a probe learns nothing.
  if (!inv) throw fail.notFound('pay_link_not_found', 'This payment link is not valid. Ask the sender for a new one.');
  return inv;
}

/** The gateway's sale for the whole balance, the payer's card or account sent with it as new. */
async function sell(deps: PayLinkDeps, inv: PayableInvoice, r: PayLinkPaymentRequest) {
  const method = payerMethod(r, inv.currency);
  const result = await deps.gateway
    .transact(
      'sale',
      {
        amount_cents: chargeOf(inv),
        currency: inv.currency.toLowerCase(),
        ...method,
        // The same attempt sent again is the same sale: the gateway answers it, it does not charge twice.
        transaction_reference: `paylink-${fingerprintOf([inv.number, r.attempt])}`,
        customer_identifier: inv.customer_identifier,
        industry: 'ecommerce',
      },
      'pay_link',
    )
    .catch(async (err: unknown) => {
      if (!isEngineError(err) || err.kind !== 'gateway') throw err;
      // Refused before the processor (a past expiry, a malformed code): a refusal all the same, as a
      // tester's made-up numbers are; said in words (the gateway's reference shape names a code only).
      await rememberAttempt(deps.core, inv.number, r.attempt, null, true);
      // Some of the gateway's codes are the reference's sentences: the page gets a code it can read as one.
      throw fail.precondition(/^[a-z0-9_]+$/.test(err.code) ? err.code : 'payment_method_refused', err.message);
    });
  const tx = result.body.transactions[0]!;
  const fund = tx.credit_card ?? tx.bank_account;
  // Single use: the sale keeps its card facts for refunds and reports, nobody can charge the card again.
  if (result.approved && tx.wallet && fund) await deps.wallets.removeMethod(tx.wallet, fund);
  // A security code the issuer says does not match: whoever typed it may not hold the card. The
  // processor approved, so the sale is voided (same day: nothing settles) and the payer is declined.
  if (result.approved && tx.cvv_response === 'N') {
    await deps.gateway.transact('void', { transaction: tx.token }, 'pay_link');
    return { approved: false, tx, fund, why: 'the security code does not match the card' };
  }
  return { approved: result.approved, tx, fund, why: tx.gateway_error_message || tx.gateway_response.message || 'declined' };
}

/** An approved sale as the invoice's payment, recorded once by its transaction token (a retried attempt after a stop records it then). */
async function recordPaid(deps: PayLinkDeps, inv: PayableInvoice, tx: { token: string; gateway_authorization_code: string | null }, paymentMethod: string, inProgress: boolean) {
  const recorded = await deps.receivables.viewPayment(tx.token).then(
    () => true,
    (err: unknown) => (missing(err) ? false : Promise.reject(err)),
  );
  if (!recorded) {
    await deps.receivables.recordPayment({
      customer_identifier: inv.customer_identifier,
      amount_cents: chargeOf(inv),
      currency: inv.currency,
      // The day the payer pressed Pay and the discount was decided, even if the sale ends after midnight.
      date: inv.as_of,
      invoices: [{ number: inv.number, amount_cents: chargeOf(inv), ...(inv.discount_cents ? { discount_cents: inv.discount_cents } : {}) }],
      channel: 'portal',
      payment_method: paymentMethod,
      transaction_token: tx.token,
      ...(tx.gateway_authorization_code ? { authorization_code: tx.gateway_authorization_code } : {}),
      status: inProgress ? 'IN PROGRESS' : 'PAID',
      reference: tx.token,
    });
  }
  // Linked, a refund or void of the sale puts the invoice back owing, and a bank payment becomes PAID once it settles.
  await deps.gateway.linkPayment(tx.token, { identifier: tx.token, amount_cents: chargeOf(inv) });
}

async function payNow(deps: PayLinkDeps, key: string, r: PayLinkPaymentRequest): Promise<PayLinkOutcome> {
  const { core } = deps;
  const inv = await requireInvoice(deps, key);
  const attempts = await linkAttempts(core, inv.number);
  const prior = attempts.outcomeOf(r.attempt);
  if (prior) return prior;
  if (attempts.pausedUntil !== null) {
    throw fail.conflict('pay_link_paused', `Too many payments were refused on this link: it takes payments again after ${new Date(attempts.pausedUntil).toISOString()}. Contact ${deps.account.profile().name} to pay another way.`);
  }
  if (inv.owing_cents <= 0) throw fail.conflict('invoice_not_owing', `Invoice ${inv.display_number} has nothing left to pay.`);
  if (chargeOf(inv) > MAX_AMOUNT) throw fail.conflict('amount_too_large', `Invoice ${inv.display_number} owes more than one payment can take here: contact ${deps.account.profile().name} to pay it another way.`);
  // The discount ending at midnight moves the amount too: the payer confirms the new one.
  if (r.amount_cents !== chargeOf(inv)) throw fail.conflict('amount_changed', `What is owed on invoice ${inv.display_number} changed since this page was opened: reload it to see the amount now.`);
  const t = await sell(deps, inv, r);
  const base = {
    amount_cents: chargeOf(inv),
    currency: inv.currency.toUpperCase(),
    transaction: t.tx.token,
    authorization_code: t.tx.gateway_authorization_code,
    payment_method: await methodText(core, t.fund, r.type, (r.type === 'creditCard' ? r.card_number : r.account_number)?.replace(/\D/g, '').slice(-4) ?? null),
    attempts_left: 0,
  };
  let outcome: PayLinkOutcome;
  if (!t.approved) {
    outcome = { ...base, status: 'declined', message: `The payment was declined (${t.why}). Check what you typed, or pay with another card or account.` };
  } else {
    const inProgress = t.tx.state === 'in_progress';
    await recordPaid(deps, inv, t.tx, base.payment_method, inProgress);
    outcome = {
      ...base,
      status: inProgress ? 'in_progress' : 'approved',
      message: `${inProgress ? `Thank you: your payment of invoice ${inv.display_number} was accepted and is on its way from your bank.` : `Thank you: invoice ${inv.display_number} is paid.`}${inv.discount_cents ? ' The early-payment discount was taken off it.' : ''}`,
    };
  }
  await rememberAttempt(core, inv.number, r.attempt, outcome, !t.approved);
  return outcome;
}

export function createPayLinks(deps: PayLinkDeps): PayLinks {
  const oneAtATime = perKeyQueue();
  return {
    async view(key) {
      const inv = await requireInvoice(deps, key);
      const { pausedUntil } = await linkAttempts(deps.core, inv.number);
      const profile = deps.account.profile();
      return {
        merchant: profile.name,
        environment: profile.environment,
        invoice: {
          number: inv.display_number,
          date: inv.date,
          due_date: inv.due_date,
          currency: inv.currency.toUpperCase(),
          amount_cents: inv.amount_cents,
          owing_cents: inv.owing_cents,
          discount_cents: inv.discount_cents,
          discount_expiry_date: inv.discount_cents ? inv.discount_expiry_date : null,
          pay_cents: chargeOf(inv),
          status: inv.deleted ? 'closed' : inv.owing_cents > 0 ? 'owing' : 'paid',
        },
        customer: { name: inv.customer_name },
        // Over what one transaction takes, nothing can pay it here: the page says so instead of a form.
        methods: chargeOf(inv) > MAX_AMOUNT ? [] : methodsFor(inv.currency),
        locked_until: pausedUntil === null ? null : new Date(pausedUntil).toISOString(),
      };
    },

    async pay(key, request) {
      const inv = await requireInvoice(deps, key);
      // One at a time per invoice: each payment is checked against what the one before it left owing.
      return oneAtATime(inv.number, () => payNow(deps, key, request));
    },
  };
}
