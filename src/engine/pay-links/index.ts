import type { EngineCore } from '../core';
import type { Account } from '../account';
import { fail, isBalanceMoved, isEngineError } from '../errors';
import type { Gateway, TxData } from '../gateway';
import { MAX_AMOUNT } from '../gateway/amounts';
import { giveBackSale } from '../gateway/give-back';
import { perKeyQueue } from '../per-key-queue';
import type { PayableInvoice, Receivables } from '../receivables';
import type { Wallets } from '../wallets';
import type { PayLinkOutcome, PayLinkPaymentRequest, PayLinkView } from '../../shared/schemas/pay-links';
import { linkAttempts, rememberAttempt } from './attempts';
import { methodText, methodsFor, payerMethod } from './payer-method';
import { notePending, pendingSale, RECOVER_AFTER_MS, saleReference, stalePending, type PricedSale } from './pending';

export { MAX_REFUSED, REFUSED_WINDOW_MS } from './attempts';

/**
 * Click-to-pay: the invoice a pay_url names, paid by whoever holds the link, by card or bank
 * account. A link is a key to one invoice's balance and nothing else: it pays all that is owed
 * (less an early-payment discount still open: receivables' early-discount.ts), the amount the
 * payer saw (a balance that moved before the sale is refused, nothing charged; one that moved
 * during it is refused and the sale voided: recordPaid), one payment at a time,
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
/** Concluded again after a stop, the sale's card may be gone already. */
const alreadyRemoved = (err: unknown) => missing(err) || (isEngineError(err) && err.code === 'payment_method_inactive');

/** What a payment here charges: all that is owed, less the early-payment discount it takes today. */
const chargeOf = (inv: PayableInvoice) => inv.owing_cents - inv.discount_cents;

async function requireInvoice(deps: PayLinkDeps, key: string): Promise<PayableInvoice> {
  const inv = await deps.receivables.payableInvoice(key);
  // One answer for a key that names no invoice and one whose token is wrong: a probe learns nothing.
  if (!inv) throw fail.notFound('pay_link_not_found', 'This payment link is not valid. Ask the sender for a new one.');
  return inv;
}

/** The gateway's sale for the whole balance, the payer's card or account sent with it as new. */
async function sell(deps: PayLinkDeps, sale: PricedSale, r: PayLinkPaymentRequest): Promise<SaleAnswer> {
  const method = payerMethod(r, sale.currency);
  const result = await deps.gateway
    .transact(
      'sale',
      {
        amount_cents: sale.amount_cents,
        currency: sale.currency.toLowerCase(),
        ...method,
        // The same attempt sent again is the same sale: the gateway answers it, it does not charge twice.
        transaction_reference: sale.reference,
        unique_reference: sale.reference,
        customer_identifier: sale.customer_identifier,
        industry: 'ecommerce',
      },
      'pay_link',
    )
    .catch(async (err: unknown) => {
      if (!isEngineError(err) || err.kind !== 'gateway') throw err;
      // Refused before the processor (a past expiry, a malformed code): a refusal all the same, as a
      // tester's made-up numbers are; said in words (the gateway's reference shape names a code only).
      await rememberAttempt(deps.core, sale.invoice, sale.attempt, null, true);
      // Some of the gateway's codes are the reference's sentences: the page gets a code it can read as one.
      throw fail.precondition(/^[a-z0-9_]+$/.test(err.code) ? err.code : 'payment_method_refused', err.message);
    });
  const tx = result.body.transactions[0]!;
  return settleSale(deps, {
    token: tx.token,
    approved: result.approved,
    in_progress: tx.state === 'in_progress',
    authorization_code: tx.gateway_authorization_code,
    wallet: tx.wallet,
    fund: tx.credit_card ?? tx.bank_account,
    cvv: tx.cvv_response,
    voided: false,
    why: tx.gateway_error_message || tx.gateway_response.message || 'declined',
  });
}

interface SaleAnswer {
  token: string;
  approved: boolean;
  in_progress: boolean;
  authorization_code: string | null;
  wallet: string | null;
  fund: string | null;
  cvv: string | null;
  voided: boolean;
  why: string;
}

/** The gateway's stored sale as sell() reads its answer (a sale found again after a stop). */
function answerOf(t: TxData): SaleAnswer {
  return {
    token: t.token,
    approved: t.outcome.approved,
    in_progress: t.state === 'in_progress',
    authorization_code: t.outcome.authorization_code,
    wallet: t.wallet,
    fund: t.fund,
    cvv: t.outcome.cvv,
    voided: t.voided_by !== null,
    why: t.outcome.message || 'declined',
  };
}

/**
 * What an approved sale still needs before it pays the invoice, done again harmlessly after a
 * stop: the card is not kept, and a sale whose security code the issuer says does not match is
 * voided and declined.
 */
async function settleSale(deps: PayLinkDeps, a: SaleAnswer): Promise<SaleAnswer> {
  if (!a.approved) return a;
  // Single use: the sale keeps its card facts for refunds and reports, nobody can charge the card again.
  if (a.wallet && a.fund) await deps.wallets.removeMethod(a.wallet, a.fund).catch((err: unknown) => (alreadyRemoved(err) ? undefined : Promise.reject(err)));
  // Whoever typed a code the issuer says does not match may not hold the card. The processor
  // approved, so the sale is voided (same day: nothing settles) and the payer is declined.
  if (a.cvv === 'N') {
    await giveBack(deps, a);
    return { ...a, approved: false, voided: true, why: 'the security code does not match the card' };
  }
  if (a.voided) return { ...a, approved: false, why: 'the sale was voided' };
  return a;
}

/** An approved sale that must not stand, given back (gateway/give-back.ts). */
async function giveBack(deps: PayLinkDeps, a: SaleAnswer): Promise<void> {
  if (!a.voided) await giveBackSale(deps.gateway, a.token, 'pay_link');
}

const movedMessage = (inv: { display_number: string }) => `What is owed on invoice ${inv.display_number} changed since this page was opened: reload it to see the amount now.`;

/**
 * An approved sale as the invoice's payment, recorded once by its transaction token (a retried attempt after a stop records it then).
 *
 * The invoice must still owe what the sale was priced for when the payment is written: receivables
 * checks it in the payment's own unit of work (owing_cents), and units are serialised, so nothing
 * that changes the balance can come between that check and the write. A balance that moved during
 * the charge (an ERP payment or CSV line, a credit applied, a re-import, a payment at the register,
 * autopay, a refund, a replicated change) is 409 `amount_changed` and conclude() gives the sale back.
 *
 * Chosen over one per-invoice lock held from the balance check through the charge to the write:
 * that lock would have to be taken by every path that moves a balance (and every one added later),
 * a CSV chunk would take hundreds of them at once, replication writes without it, and it would hold
 * an ERP's import behind a payer's processor round trip (over a network in production). The
 * per-key queue still runs one link payment per invoice at a time: a second press is checked
 * against what the first left owing and is refused before anything is charged.
 */
async function recordPaid(deps: PayLinkDeps, sale: PricedSale, a: SaleAnswer, paymentMethod: string) {
  const recorded = await deps.receivables.viewPayment(a.token).then(
    () => true,
    (err: unknown) => (missing(err) ? false : Promise.reject(err)),
  );
  if (!recorded) {
    await deps.receivables.recordPayment({
      customer_identifier: sale.customer_identifier,
      amount_cents: sale.amount_cents,
      currency: sale.currency,
      // The day the payer pressed Pay and the discount was decided, even if the sale ends after midnight.
      date: sale.as_of,
      invoices: [{ number: sale.invoice, amount_cents: sale.amount_cents, owing_cents: sale.amount_cents + sale.discount_cents, ...(sale.discount_cents ? { discount_cents: sale.discount_cents } : {}) }],
      channel: 'portal',
      payment_method: paymentMethod,
      transaction_token: a.token,
      ...(a.authorization_code ? { authorization_code: a.authorization_code } : {}),
      status: a.in_progress ? 'IN PROGRESS' : 'PAID',
      reference: a.token,
    });
  }
  // Linked, a refund or void of the sale puts the invoice back owing, and a bank payment becomes PAID once it settles.
  await deps.gateway.linkPayment(a.token, { identifier: a.token, amount_cents: sale.amount_cents });
}

/** The sale's answer as the invoice's payment and the page's outcome, kept for the attempt. */
async function conclude(deps: PayLinkDeps, sale: PricedSale, a: SaleAnswer): Promise<PayLinkOutcome> {
  const base = {
    amount_cents: sale.amount_cents,
    currency: sale.currency.toUpperCase(),
    transaction: a.token,
    authorization_code: a.authorization_code,
    payment_method: await methodText(deps.core, a.fund, sale.type, sale.last4),
    attempts_left: 0,
    paid_at: new Date(deps.core.clock.now()).toISOString(),
  };
  let outcome: PayLinkOutcome;
  if (!a.approved) {
    outcome = { ...base, status: 'declined', message: `The payment was declined (${a.why}). Check what you typed, or pay with another card or account.` };
  } else {
    try {
      await recordPaid(deps, sale, a, base.payment_method);
    } catch (err) {
      if (!isBalanceMoved(err)) throw err;
      // Charged for a balance that is no longer owed: given back at once, the payer not counted as refused.
      deps.core.logger.warn({ invoice: sale.invoice, transaction: a.token }, 'pay link: the balance moved during the sale; the sale is voided');
      await giveBack(deps, a);
      await rememberAttempt(deps.core, sale.invoice, sale.attempt, null, false, a.token);
      throw fail.conflict('amount_changed', movedMessage(sale));
    }
    outcome = {
      ...base,
      status: a.in_progress ? 'in_progress' : 'approved',
      message: `${a.in_progress ? `Thank you: your payment of invoice ${sale.display_number} was accepted and is on its way from your bank.` : `Thank you: invoice ${sale.display_number} is paid.`}${sale.discount_cents ? ' The early-payment discount was taken off it.' : ''}`,
    };
  }
  await rememberAttempt(deps.core, sale.invoice, sale.attempt, outcome, !a.approved);
  return outcome;
}

/**
 * A press whose sale was pending when the server stopped: the sale the gateway took is concluded
 * as it was priced. Undefined when no sale reached the gateway (nothing was charged): the press
 * is then a new one.
 */
async function concludePending(deps: PayLinkDeps, sale: PricedSale): Promise<PayLinkOutcome | undefined> {
  const taken = await deps.gateway.recordByReference('sale', sale.reference);
  if (!taken) return undefined;
  deps.core.logger.warn({ invoice: sale.invoice, transaction: taken.token }, 'pay link: a sale taken before a stop is recorded now');
  return conclude(deps, sale, await settleSale(deps, answerOf(taken)));
}

async function payNow(deps: PayLinkDeps, key: string, r: PayLinkPaymentRequest): Promise<PayLinkOutcome> {
  const { core } = deps;
  const inv = await requireInvoice(deps, key);
  const attempts = await linkAttempts(core, inv.number);
  const prior = attempts.outcomeOf(r.attempt);
  if (prior) return prior;
  const left = await pendingSale(core, inv.number, r.attempt);
  const recovered = left && (await concludePending(deps, left));
  if (recovered) return recovered;
  if (attempts.pausedUntil !== null) {
    throw fail.conflict('pay_link_paused', `Too many payments were refused on this link: it takes payments again after ${new Date(attempts.pausedUntil).toISOString()}. Contact ${deps.account.profile().name} to pay another way.`);
  }
  if (inv.owing_cents <= 0) throw fail.conflict('invoice_not_owing', `Invoice ${inv.display_number} has nothing left to pay.`);
  if (chargeOf(inv) > MAX_AMOUNT) throw fail.conflict('amount_too_large', `Invoice ${inv.display_number} owes more than one payment can take here: contact ${deps.account.profile().name} to pay it another way.`);
  // The discount ending at midnight moves the amount too: the payer confirms the new one.
  if (r.amount_cents !== chargeOf(inv)) throw fail.conflict('amount_changed', movedMessage(inv));
  const sale: PricedSale = {
    invoice: inv.number,
    display_number: inv.display_number,
    attempt: r.attempt,
    reference: saleReference(inv.number, r.attempt),
    customer_identifier: inv.customer_identifier,
    currency: inv.currency,
    amount_cents: chargeOf(inv),
    discount_cents: inv.discount_cents,
    as_of: inv.as_of,
    type: r.type,
    last4: (r.type === 'creditCard' ? r.card_number : r.account_number)?.replace(/\D/g, '').slice(-4) ?? null,
    at: core.clock.now(),
  };
  await notePending(core, sale);
  return conclude(deps, sale, await sell(deps, sale, r));
}

export function createPayLinks(deps: PayLinkDeps): PayLinks {
  const oneAtATime = perKeyQueue();
  const links: PayLinks = {
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
  // A press nobody retried after a stop: its sale is recorded (or found never sent) all the same.
  deps.core.onTick('pay_links.recover', async (now) => {
    for (const sale of await stalePending(deps.core, now - RECOVER_AFTER_MS)) {
      await oneAtATime(sale.invoice, async () => {
        if (!(await pendingSale(deps.core, sale.invoice, sale.attempt))) return;
        if (!(await concludePending(deps, sale))) await rememberAttempt(deps.core, sale.invoice, sale.attempt, null, false);
      }).catch((err: unknown) => {
        // Concluded all the same: its sale was given back, the balance having moved meanwhile.
        if (!isBalanceMoved(err)) deps.core.logger.error({ err, invoice: sale.invoice }, 'pay link: a pending sale could not be concluded; retried next tick');
      });
    }
  });
  return links;
}
