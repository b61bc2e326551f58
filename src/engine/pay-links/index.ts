import type { EngineCore } from '../core';
import type { Account } from '../account';
import { fail, isEngineError } from '../errors';
import type { Gateway } from '../gateway';
import { fingerprintOf } from '../gateway/idempotency';
import { brandName } from '../gateway/reference-data';
import { perKeyQueue } from '../per-key-queue';
import { getRecord, putRecord } from '../records';
import type { PayableInvoice, Receivables } from '../receivables';
import type { Wallets } from '../wallets';
import { bankProblemMessage, cardProblemMessage } from '../wallets/instruments';
import { FUNDS, cardDisplay, type FundDoc } from '../wallets/records';
import type { PayLinkMethod, PayLinkOutcome, PayLinkPaymentRequest, PayLinkView } from '../../shared/schemas/pay-links';

/**
 * Click-to-pay: the invoice a pay_url names, paid by whoever holds the link, by card or bank
 * account. A link is a key to one invoice's balance and nothing else: it pays all that is owed,
 * the amount the payer saw (a balance that moved meanwhile is refused, nothing charged), one
 * payment at a time. Card testing is what such a public form draws: after MAX_REFUSED refused
 * payments in REFUSED_WINDOW_MS the link pauses until the oldest of them is a window old.
 */
export const MAX_REFUSED = 5;
export const REFUSED_WINDOW_MS = 24 * 60 * 60_000;
/** Outcomes kept per invoice for a retried attempt (a page that lost the answer and sends it again). */
const KEPT_OUTCOMES = 20;

const ATTEMPTS = 'pay_link_attempts';

interface AttemptsData {
  /** When each refused payment of the window was made (ms). */
  refused: number[];
  /** The last outcomes, by the page's attempt id. */
  outcomes: Array<{ attempt: string; outcome: PayLinkOutcome }>;
}

export interface PayLinks {
  view(key: string): Promise<PayLinkView>;
  pay(key: string, request: PayLinkPaymentRequest): Promise<PayLinkOutcome>;
}

const methodsFor = (currency: string): PayLinkMethod[] => (currency.toUpperCase() === 'USD' ? ['creditCard', 'ach'] : ['creditCard']);

function refusedInWindow(data: AttemptsData | undefined, now: number): number[] {
  return (data?.refused ?? []).filter((at) => at > now - REFUSED_WINDOW_MS);
}

/** When a paused link takes payments again (the oldest refusal leaves the window), or null. */
function pausedUntil(refused: number[]): number | null {
  return refused.length >= MAX_REFUSED ? Math.min(...refused) + REFUSED_WINDOW_MS : null;
}

const missing = (err: unknown) => isEngineError(err) && err.kind === 'not_found';

export function createPayLinks(deps: { core: EngineCore; account: Account; receivables: Receivables; gateway: Gateway; wallets: Wallets }): PayLinks {
  const { core, account, receivables, gateway, wallets } = deps;
  const oneAtATime = perKeyQueue();

  const requireInvoice = async (key: string): Promise<PayableInvoice> => {
    const inv = await receivables.payableInvoice(key);
    // One answer for a key that names no invoice and one whose token is wrong: a probe learns nothing.
    if (!inv) throw fail.notFound('pay_link_not_found', 'This payment link is not valid. Ask the sender for a new one.');
    return inv;
  };
  const attemptsOf = async (number: string) => (await getRecord<AttemptsData>(core, ATTEMPTS, number))?.data;

  /** Keeps an attempt's outcome, with the refusals the link still takes (a refusal without one: what was typed was refused before the processor). */
  const remember = (inv: PayableInvoice, attempt: string, outcome: PayLinkOutcome | null, refusedNow: boolean) =>
    core.mutate(async (tx) => {
      const before = (await getRecord<AttemptsData>(tx, ATTEMPTS, inv.number))?.data;
      const refused = [...refusedInWindow(before, tx.now), ...(refusedNow ? [tx.now] : [])];
      if (outcome) outcome.attempts_left = Math.max(0, MAX_REFUSED - refused.length);
      const outcomes = [...(before?.outcomes ?? []), ...(outcome ? [{ attempt, outcome }] : [])].slice(-KEPT_OUTCOMES);
      await putRecord(tx, ATTEMPTS, inv.number, { refused, outcomes }, {
        type: refusedNow ? 'pay_link.refused' : 'pay_link.paid',
        entity: 'invoice',
        key: inv.number,
        data: outcome ? { status: outcome.status, amount_cents: outcome.amount_cents, transaction: outcome.transaction } : { status: 'refused' },
      });
    });

  /**
   * The payer's card or account, checked by the wallets' rules (as the hosted frame's are) and
   * vaulted for this one payment: the gateway is then asked with the vault's token, and the number
   * is gone once this returns.
   */
  const vault = async (r: PayLinkPaymentRequest, currency: string): Promise<{ credit_card: string } | { bank_account: string }> => {
    const need = (field: keyof PayLinkPaymentRequest, label: string) => {
      const v = r[field];
      if (v === undefined || (typeof v === 'string' && v.trim() === '')) throw fail.invalid('field_unspecified', `${label} is required`, [{ field, message: `${label} is required` }]);
    };
    if (r.type === 'creditCard') {
      need('name', 'The cardholder name');
      need('card_number', 'The card number');
      need('expiry_month', 'The expiry month');
      need('expiry_year', 'The expiry year');
      need('cvv', 'The security code');
      const input = wallets.parseCard({ name: r.name!, card_number: r.card_number!.replace(/[\s-]/g, ''), expiry_month: r.expiry_month!, expiry_year: r.expiry_year!, cvv: r.cvv! }, { requireCvv: true, requireAddress: false });
      if (input.problem) throw fail.precondition(`card_${input.problem}`, cardProblemMessage(input.problem, input.card));
      const { fund } = await core.mutate((tx) => wallets.vaultInTx(tx, { card: input }));
      return { credit_card: fund!.token };
    }
    if (!methodsFor(currency).includes('ach')) throw fail.invalid('method_not_offered', `Bank account payments are taken in USD only; this invoice is in ${currency.toUpperCase()}`, [{ field: 'type', message: 'Pay by card' }]);
    need('name', 'The account holder');
    need('routing_number', 'The routing number');
    need('account_number', 'The account number');
    const bank = wallets.parseBank({ account_holder: r.name!, routing_number: r.routing_number!.trim(), account_number: r.account_number!.trim(), account_type: r.account_type ?? 'checking', check_type: r.check_type ?? 'personal', currency: currency.toUpperCase() });
    if (bank.problem) throw fail.precondition('bank_account_unknown', bankProblemMessage(bank.bank));
    const { fund } = await core.mutate((tx) => wallets.vaultInTx(tx, { bank }));
    return { bank_account: fund!.token };
  };

  const methodText = async (fundToken: string | null, type: PayLinkMethod): Promise<string> => {
    const fund = fundToken ? (await core.get<FundDoc>(FUNDS, fundToken))?.data : undefined;
    if (fund?.card) return cardDisplay(brandName(fund.card.brand), fund.card.last4);
    if (fund?.bank) return `Bank account **${fund.bank.last4}`;
    return type === 'ach' ? 'Bank account' : 'Card';
  };

  async function payNow(key: string, r: PayLinkPaymentRequest): Promise<PayLinkOutcome> {
    const inv = await requireInvoice(key);
    const before = await attemptsOf(inv.number);
    const prior = before?.outcomes.find((o) => o.attempt === r.attempt);
    if (prior) return prior.outcome;
    const until = pausedUntil(refusedInWindow(before, core.clock.now()));
    if (until !== null) throw fail.conflict('pay_link_paused', `Too many payments were refused on this link: it takes payments again after ${new Date(until).toISOString()}. Contact ${account.profile().name} to pay another way.`);
    if (inv.owing_cents <= 0) throw fail.conflict('invoice_not_owing', `Invoice ${inv.display_number} has nothing left to pay.`);
    if (r.amount_cents !== inv.owing_cents) throw fail.conflict('amount_changed', `What is owed on invoice ${inv.display_number} changed since this page was opened: reload it to see the amount now.`);
    const t = await (async () => {
      const result = await gateway.transact(
        'sale',
        {
          amount_cents: inv.owing_cents,
          currency: inv.currency.toLowerCase(),
          ...(await vault(r, inv.currency).catch(async (err: unknown) => {
            // A card or account refused by the rules counts as a refused payment: so do a tester's made-up numbers.
            if (isEngineError(err) && err.kind === 'precondition') await remember(inv, r.attempt, null, true);
            throw err;
          })),
          // The same attempt sent again is the same sale: the gateway answers it, it does not charge twice.
          transaction_reference: `paylink-${fingerprintOf([inv.number, r.attempt])}`,
          customer_identifier: inv.customer_identifier,
          industry: 'ecommerce',
        },
        'pay_link',
      ).catch((err: unknown) => {
        // The gateway's refusal of what was typed (its reference shape names a code only): said in words here.
        if (isEngineError(err) && err.kind === 'gateway') throw fail.precondition(err.code, err.message);
        throw err;
      });
      return { approved: result.approved, tx: result.body.transactions[0]! };
    })();
    const fundToken = t.tx.credit_card ?? t.tx.bank_account;
    const base = { amount_cents: inv.owing_cents, currency: inv.currency.toUpperCase(), transaction: t.tx.token, authorization_code: t.tx.gateway_authorization_code, payment_method: await methodText(fundToken, r.type) };
    if (!t.approved) {
      const why = t.tx.gateway_error_message || t.tx.gateway_response.message || 'declined';
      const outcome: PayLinkOutcome = { ...base, status: 'declined', message: `The payment was declined (${why}). Check what you typed, or pay with another card or account.`, attempts_left: 0 };
      await remember(inv, r.attempt, outcome, true);
      return outcome;
    }
    const inProgress = t.tx.state === 'in_progress';
    // A payment is recorded once by its transaction token: an attempt retried after a stop records it now.
    const recorded = await receivables.viewPayment(t.tx.token).then(
      () => true,
      (err: unknown) => (missing(err) ? false : Promise.reject(err)),
    );
    if (!recorded) {
      await receivables.recordPayment({
        customer_identifier: inv.customer_identifier,
        amount_cents: inv.owing_cents,
        currency: inv.currency,
        invoices: [{ number: inv.number, amount_cents: inv.owing_cents }],
        channel: 'portal',
        payment_method: base.payment_method,
        transaction_token: t.tx.token,
        ...(t.tx.gateway_authorization_code ? { authorization_code: t.tx.gateway_authorization_code } : {}),
        status: inProgress ? 'IN PROGRESS' : 'PAID',
        reference: t.tx.token,
      });
    }
    // Linked, a refund or void of the sale puts the invoice back owing, and a bank payment becomes PAID once it settles.
    await gateway.linkPayment(t.tx.token, { identifier: t.tx.token, amount_cents: inv.owing_cents });
    const outcome: PayLinkOutcome = {
      ...base,
      status: inProgress ? 'in_progress' : 'approved',
      message: inProgress ? `Thank you: your payment of invoice ${inv.display_number} was accepted and is on its way from your bank.` : `Thank you: invoice ${inv.display_number} is paid.`,
      attempts_left: 0,
    };
    await remember(inv, r.attempt, outcome, false);
    return outcome;
  }

  return {
    async view(key) {
      const inv = await requireInvoice(key);
      const until = pausedUntil(refusedInWindow(await attemptsOf(inv.number), core.clock.now()));
      const profile = account.profile();
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
          status: inv.deleted ? 'closed' : inv.owing_cents > 0 ? 'owing' : 'paid',
        },
        customer: { name: inv.customer_name },
        methods: methodsFor(inv.currency),
        locked_until: until === null ? null : new Date(until).toISOString(),
      };
    },

    async pay(key, request) {
      const inv = await requireInvoice(key);
      // One at a time per invoice: each payment is checked against what the one before it left owing.
      return oneAtATime(inv.number, () => payNow(key, request));
    },
  };
}
