import type { EngineCore, Tx } from '../core';
import type { Account } from '../account';
import { fail, isBalanceMoved, isEngineError, notFound } from '../errors';
import { getRecord, putRecord, recordsByRef, recordsOfKind } from '../records';
import { localParts } from '../gateway/processing-day';
import type { Gateway } from '../gateway';
import { giveBackSale } from '../gateway/give-back';
import { formatMoney } from '../../shared/money';
import type { AutopayCreate, AutopayFailure, AutopayPreview, AutopayPreviewQuery, HeldInvoice, SkippedInvoice } from '../../shared/schemas/wallets';
import type { FundDoc, WalletDoc } from './records';
import { FUNDS, WALLETS, putWallet } from './records';
import type { DueInvoice, OwedAgainOfPayment, ReceivablesPort } from './autopay-port';
import { followAutopaySales, owedAgainIf, takeRefundOffPaymentsInTx } from './autopay-sales';
import { heldOf, holdInvoices, holdsOf, isNsfReturn, releaseHolds, renameHolds } from './autopay-holds';
import { dueCharges, type DueCharge } from './autopay-due';
import { fundDisplay, fundProblem, type FundProblem } from './fund-state';

/**
 * Autopay agreements (records kind `autopay`, key = agreement token, ref = customer identifier):
 * a customer's standing permission to charge a vaulted fund on each due date. A general agreement
 * (no references) covers the customer's invoices that no specific agreement claims; a specific one
 * covers the invoices whose auto_debit_reference it lists.
 *
 * Charging (the `autopay.due` tick task): once per local day per agreement, the customer's due
 * invoices are charged in one sale per currency, then recorded as an invoicing payment through the
 * receivables port. The sale's transaction_reference is `autopay:<agreement>:<date>:<currency>`, so
 * a retried run (a crash between charging and recording) replays the sale instead of charging twice.
 * A decline is retried on the next day while the invoices stay due. A sale not made (declined, or
 * refused: a removed or locked fund) is kept on the agreement as `last_failures` until the next run,
 * so the customer's page says which invoices went unpaid and why, not only the server's log.
 *
 * A fund removed from its wallet leaves the agreement on: it is the customer's authorization, and
 * moving it to another fund (update) keeps it. Until then it cannot charge (`fund_problem`), and
 * willPay says so, so reminders go out again for the invoices it would have paid.
 *
 * The payment is recorded only while each invoice still owes what it owed when the sale was priced
 * (receivables checks it in the payment's own unit of work, as for a pay link's sale). One that
 * moved during the charge (a pay link, an ERP payment, a credit applied) gets the sale given back
 * and its invoices skipped for the day, said in skipped_invoices: the next run charges what they
 * owe then. Recorded anyway, the excess would have sat on the customer as credit, charged to the card.
 */
export interface AutopayData {
  token: string;
  customer_identifier: string;
  fund_token: string;
  references: string[];
  state: 'approved' | 'revoked';
  created_at: string;
  updated_at: string;
  revoked_at: string | null;
  last_run_date: string | null;
  /**
   * error: the gateway refused the charge (a locked or removed fund, another currency...).
   * skipped: a charge was given back, the balance it was priced on having moved (last_skipped).
   */
  last_result: 'approved' | 'declined' | 'error' | 'skipped' | 'nothing_due' | null;
  last_transaction: string | null;
  /** The last run's sales that were not made; absent on agreements last run before it was kept. */
  last_failures?: AutopayFailure[];
  /** The last run's invoices whose charge was given back; absent on agreements from before. */
  last_skipped?: SkippedInvoice[];
}

export const AUTOPAY = 'autopay';

/** Stores an agreement, found by its customer's identifier (the record's ref). */
export const putAutopay = (tx: Tx, a: AutopayData, type: string) =>
  putRecord(tx, AUTOPAY, a.token, a, { type, entity: 'autopay', key: a.token, data: { customer: a.customer_identifier, state: a.state } }, a.customer_identifier);

/**
 * A renamed customer's agreements and wallets follow it (the reference: "update a customer's
 * identifier and any associations where identifier is being stored"), in the rename's unit of work.
 */
export async function renameWalletsAndAutopay(tx: Tx, from: string, to: string): Promise<void> {
  for (const record of await recordsByRef<AutopayData>(tx, AUTOPAY, from)) {
    await putAutopay(tx, { ...record.data, customer_identifier: to }, 'autopay.updated');
  }
  await renameHolds(tx, from, to);
  const wallets = await tx.find<WalletDoc & { [k: string]: unknown }>(WALLETS, { selector: { customer: from }, sort: [{ customer: 'asc' }, { id: 'asc' }] });
  for (const wallet of wallets) {
    await putWallet(tx, { ...wallet.data, customer: { identifier: to, name: wallet.data.customer?.name ?? null }, updated_at: tx.at }, false);
  }
}

export interface AutopayView {
  agreement_token: string;
  fund_token: string;
  timing: string;
  autopay_limit: string;
  autopay_reference: string | null;
  autopay_references: string[];
  autopay_inherited_from_customer_identifier: string | null;
  can_delete: boolean;
  customer_identifier: string;
  state: string;
  created_at: string;
  last_run_date: string | null;
  last_result: string | null;
  fund_display: string | null;
  fund_problem: FundProblem | null;
  last_failures: AutopayFailure[];
}

export interface Autopay {
  create(input: AutopayCreate): Promise<{ token: string }>;
  /** Inside a unit of work (a card file's create_debit_agreement): the fund may be vaulted in the same unit. */
  createInTx(tx: Tx, input: AutopayCreate): Promise<{ token: string }>;
  /** Moves the customer's agreements from fund `oldFund` to `newFund`. */
  update(input: { customer_identifier: string; fund_token: string; token: string }): Promise<{ token: string }>;
  retrieve(customerIdentifier: string): Promise<{ autopays: AutopayView[]; held_invoices: HeldInvoice[]; skipped_invoices: SkippedInvoice[] } & Partial<AutopayView>>;
  /**
   * What creating this agreement would charge at once: the first run of a new agreement is the next
   * tick, and it charges every covered invoice already due, overdue ones too. Worked out by the
   * run's own selection (autopay-due.ts), with the customer's holds released as the new agreement
   * releases them. The screens ask it so a person confirms the amount before turning autopay on.
   */
  preview(input: AutopayPreviewQuery): Promise<AutopayPreview>;
  /**
   * Whether autopay will pay this open invoice on its due date: the invoice lets it (auto_debit),
   * its customer has an agreement whose fund can pay, and no charge of it came back (autopay-holds.ts).
   */
  willPay(invoice: { number: string; customer_identifier: string; auto_debit?: boolean }): Promise<boolean>;
  revoke(input: { customer_identifier: string; token: string }): Promise<void>;
  /** Charges what is due today (also the `autopay.due` tick task). */
  runDue(now: number): Promise<void>;
  setReceivables(port: ReceivablesPort | undefined): void;
  receivables(): ReceivablesPort | undefined;
  /**
   * The invoices a refund of `refundCents` more of a sale (null: its void) would put back owing,
   * each with its payment and customer, for the confirmation before it is made. Not found: no such sale.
   */
  owedAgainIf(saleToken: string, refundCents: number | null): Promise<OwedAgainOfPayment[]>;
}

async function view(ctx: AutopayContext, a: AutopayData): Promise<AutopayView> {
  const fund = (await ctx.core.get<FundDoc>(FUNDS, a.fund_token))?.data;
  return {
    agreement_token: a.token,
    fund_token: a.fund_token,
    timing: 'AutoPay on Due Date',
    autopay_limit: 'None',
    autopay_reference: a.references.length ? a.references.join(';') : null,
    autopay_references: a.references,
    autopay_inherited_from_customer_identifier: null,
    can_delete: a.state === 'approved',
    customer_identifier: a.customer_identifier,
    state: a.state,
    created_at: a.created_at,
    last_run_date: a.last_run_date,
    last_result: a.last_result,
    fund_display: fund ? fundDisplay(fund) : null,
    fund_problem: fund ? fundProblem(fund, ctx.core.clock.now(), ctx.account.profile().timezone) : 'removed',
    last_failures: a.last_failures ?? [],
  };
}

/** Whether the agreement's fund can pay today (see fundProblem). */
async function canPay(ctx: AutopayContext, a: AutopayData): Promise<boolean> {
  const fund = (await ctx.core.get<FundDoc>(FUNDS, a.fund_token))?.data;
  return fund !== undefined && fundProblem(fund, ctx.core.clock.now(), ctx.account.profile().timezone) === null;
}

/** What the autopay functions work with; the receivables port may be set after the start. */
interface AutopayContext {
  core: EngineCore;
  account: Account;
  gateway: Gateway;
  port(): ReceivablesPort | undefined;
  /** Follows refunded and settled sales to their payments; one run at a time (followSalesOnce). */
  followSales(): Promise<void>;
}

/**
 * followAutopaySales one run at a time: asked while running, it runs once more after, so an event
 * committed during a run is not left to the next tick.
 */
function followSalesOnce(core: EngineCore, gateway: Gateway, port: () => ReceivablesPort | undefined): () => Promise<void> {
  let running: Promise<void> | undefined;
  let again = false;
  const run = async () => {
    do {
      again = false;
      const p = port();
      if (p) await followAutopaySales(core, gateway, p);
    } while (again);
  };
  return () => {
    if (running) {
      again = true;
      return running;
    }
    running = run().finally(() => {
      running = undefined;
    });
    return running;
  };
}

export function createAutopay(deps: { core: EngineCore; account: Account; gateway: Gateway; receivables?: ReceivablesPort }): Autopay {
  const { core, account } = deps;
  let port = deps.receivables;
  const followSales = followSalesOnce(core, deps.gateway, () => port);
  const ctx: AutopayContext = { core, account, gateway: deps.gateway, port: () => port, followSales };
  const runDue = (now: number) => runDueAutopay(ctx, now);
  core.onTick('autopay.due', runDue);
  // A refund or void made here takes its amount off the payments recorded with its sale in its own
  // unit of work: an ERP reading the payment once the refund answered must not see it paid.
  deps.gateway.onReversalInTx((tx, made, parent) => takeRefundOffPaymentsInTx(core, port, tx, parent, made));
  // One made before the sale's payment was linked comes off when it is linked.
  deps.gateway.onLinkedAfterReversalInTx((tx, sale) => takeRefundOffPaymentsInTx(core, port, tx, sale));
  // One that reached the store otherwise (a lane's, replicated) as soon as it is committed, not at the next tick (15 s).
  core.bus.subscribe((e) => {
    const action = (e.data as { action?: unknown } | undefined)?.action;
    if (e.type !== 'transaction.created' || (action !== 'refund' && action !== 'void')) return;
    followSales().catch((err: unknown) => core.logger.warn({ err }, 'autopay could not follow a refunded sale to its payments yet; the next tick tries again'));
  });

  return {
    async create(input) {
      account.require('autopay');
      const references = referencesOf(input);
      await checkCustomer(ctx, input.customer_identifier);
      await checkFund(ctx, input.customer_identifier, input.fund_token);
      const made = await core.mutate((tx) => createAgreementInTx(ctx, tx, input, references));
      await showAutoDebit(ctx, input.customer_identifier);
      return made;
    },
    async createInTx(tx, input) {
      account.require('autopay');
      const references = referencesOf(input);
      await checkCustomer(ctx, input.customer_identifier);
      // The fund may have been vaulted earlier in this very unit (a card file's line).
      await checkFund(ctx, input.customer_identifier, input.fund_token, tx);
      const made = await createAgreementInTx(ctx, tx, input, references);
      // The customer is written by its own unit of work, once this one (a card file's) has committed.
      tx.afterCommit(() => void showAutoDebit(ctx, input.customer_identifier));
      return made;
    },

    async update(input) {
      account.require('autopay');
      await checkFund(ctx, input.customer_identifier, input.fund_token);
      return core.mutate(async (tx) => {
        const mine = (await recordsByRef<AutopayData>(tx, AUTOPAY, input.customer_identifier)).map((r) => r.data).filter((a) => a.state === 'approved' && a.fund_token === input.token);
        if (mine.length === 0) throw notFound('autopay_not_found', `Customer ${input.customer_identifier} has no autopay using fund ${input.token}`, 'precondition');
        for (const a of mine) await putAutopay(tx, { ...a, fund_token: input.fund_token, updated_at: tx.at }, 'autopay.updated');
        return { token: input.fund_token };
      });
    },

    async retrieve(customer) {
      account.require('autopay');
      // A mistyped identifier is the reference's 412, not an empty answer read as "no autopay".
      await checkCustomer(ctx, customer);
      const active = (await activeAgreements(core, customer)).sort((a, b) => b.created_at.localeCompare(a.created_at));
      const list = await Promise.all(active.map((a) => view(ctx, a)));
      return { ...(list[0] ?? {}), autopays: list, held_invoices: await holdsOf(core, customer), skipped_invoices: active.flatMap((a) => a.last_skipped ?? []) };
    },

    async preview(input) {
      account.require('autopay');
      await checkCustomer(ctx, input.customer_identifier);
      return previewAgreement(ctx, input);
    },

    async willPay(invoice) {
      if (invoice.auto_debit === false) return false;
      const agreements = await activeAgreements(core, invoice.customer_identifier);
      if (!(await Promise.all(agreements.map((a) => canPay(ctx, a)))).some(Boolean)) return false;
      return !(await heldOf(core, [invoice.number])).has(invoice.number);
    },

    async revoke(input) {
      account.require('autopay');
      await core.mutate(async (tx) => {
        const a = (await getRecord<AutopayData>(tx, AUTOPAY, input.token))?.data;
        if (!a || a.customer_identifier !== input.customer_identifier) throw notFound('autopay_not_found', `Customer ${input.customer_identifier} has no autopay ${input.token}`, 'precondition');
        if (a.state !== 'approved') throw fail.precondition('autopay_revoked', `Autopay ${input.token} is already revoked`);
        await putAutopay(tx, { ...a, state: 'revoked', revoked_at: tx.at, updated_at: tx.at }, 'autopay.revoked');
      });
      await showAutoDebit(ctx, input.customer_identifier);
    },

    runDue,
    setReceivables(p) {
      port = p;
    },
    receivables: () => port,
    async owedAgainIf(saleToken, refundCents) {
      const sale = await deps.gateway.record(saleToken);
      if (!sale) throw notFound('transaction_not_found', `No transaction ${saleToken}`);
      return owedAgainIf(port, sale, refundCents);
    },
  };
}

/** See Autopay.preview: the first run of an agreement made now, worked out and not made. */
async function previewAgreement(ctx: AutopayContext, input: AutopayPreviewQuery): Promise<AutopayPreview> {
  const port = ctx.port();
  const today = localParts(ctx.core.clock.now(), ctx.account.profile().timezone).date;
  if (!port) return { as_of_date: today, charges: [] };
  const next = { references: referencesOf(input) };
  const all = [...(await activeAgreements(ctx.core, input.customer_identifier)), next];
  const charges = await dueCharges(ctx.core, port, input.customer_identifier, next, all, today, 'released');
  return {
    as_of_date: today,
    charges: charges.map((c) => ({ currency: c.currency, amount_cents: c.amount_cents, invoices: c.invoices.map((i) => ({ invoice_number: i.number, due_date: i.due_date, amount_cents: i.charge_cents })) })),
  };
}

/**
 * The customer's auto_debit follows its agreements (the reference: "Y, if customer has set up an
 * AutoPay agreement"). Written after the agreement's unit, by receivables' own; a failure is
 * logged and left to the next change of an agreement.
 */
async function showAutoDebit(ctx: AutopayContext, customer: string): Promise<void> {
  const port = ctx.port();
  if (!port?.setAutoDebit) return;
  try {
    await port.setAutoDebit(customer, (await activeAgreements(ctx.core, customer)).length > 0);
  } catch (err) {
    ctx.core.logger.warn({ err, customer }, "the customer's auto_debit could not follow its autopay agreements");
  }
}

const AUTO_DEBIT_SHOWN = 'autopay_auto_debit_shown';

/** Agreements made before customers showed them (auto_debit stayed N): their customers are set once. */
async function showAutoDebitOnceForEarlierAgreements(ctx: AutopayContext): Promise<void> {
  if (!ctx.port()?.setAutoDebit || (await getRecord(ctx.core, 'maintenance', AUTO_DEBIT_SHOWN))) return;
  const customers = new Set((await recordsOfKind<AutopayData>(ctx.core, AUTOPAY)).filter((r) => r.data.state === 'approved').map((r) => r.data.customer_identifier));
  for (const customer of customers) await showAutoDebit(ctx, customer);
  await ctx.core.mutate((tx) => putRecord(tx, 'maintenance', AUTO_DEBIT_SHOWN, { done_at: tx.at }, { type: 'maintenance.progress', entity: 'maintenance', key: AUTO_DEBIT_SHOWN }));
}

const activeAgreements = async (core: EngineCore, customer: string) =>
  (await recordsByRef<AutopayData>(core, AUTOPAY, customer)).map((r) => r.data).filter((a) => a.state === 'approved');

/** The invoices' auto_debit_reference values an agreement covers (none: every invoice). */
function referencesOf(input: Pick<AutopayCreate, 'autopay_reference'>): string[] {
  return input.autopay_reference === undefined ? [] : Array.isArray(input.autopay_reference) ? [...new Set(input.autopay_reference)] : [input.autopay_reference];
}

/** The fund must be usable and belong to the customer's wallet. */
async function checkFund(ctx: AutopayContext, customer: string, fundToken: string, reader: Tx | EngineCore = ctx.core): Promise<void> {
  const fund = await reader.get<FundDoc>(FUNDS, fundToken);
  if (!fund) throw notFound('payment_method_not_found', `No payment method ${fundToken}`, 'precondition');
  if (fund.data.inactive) throw fail.precondition('payment_method_inactive', `Payment method ${fundToken} was removed`);
  if (fund.data.locked) throw fail.precondition('fund_protected', `Payment method ${fundToken} is locked`);
  const wallet = await reader.get<WalletDoc>(WALLETS, fund.data.wallet);
  if (wallet?.data.customer?.identifier !== customer) {
    throw fail.precondition('fund_not_authorized', `Payment method ${fundToken} is not in a wallet of customer ${customer}`);
  }
}

async function checkCustomer(ctx: AutopayContext, customer: string): Promise<void> {
  const port = ctx.port();
  if (port && !(await port.customerExists(customer))) throw notFound('customer_not_found', `No customer ${customer}`, 'precondition');
}

/** A new agreement; one per customer for all invoices, or for references no other agreement has. */
async function createAgreementInTx(ctx: AutopayContext, tx: Tx, input: AutopayCreate, references: string[]): Promise<{ token: string }> {
  const existing = (await recordsByRef<AutopayData>(tx, AUTOPAY, input.customer_identifier)).map((r) => r.data).filter((a) => a.state === 'approved');
  const clash = existing.find((a) => (a.references.length === 0 && references.length === 0) || a.references.some((r) => references.includes(r)));
  if (clash) throw fail.precondition('autopay_exists', `Customer ${input.customer_identifier} already has autopay ${clash.token} for ${references.length ? 'these references' : 'all invoices'}`);
  const a: AutopayData = {
    token: ctx.core.ids.token(),
    customer_identifier: input.customer_identifier,
    fund_token: input.fund_token,
    references,
    state: 'approved',
    created_at: tx.at,
    updated_at: tx.at,
    revoked_at: null,
    last_run_date: null,
    last_result: null,
    last_transaction: null,
  };
  await putAutopay(tx, a, 'autopay.created');
  await releaseHolds(tx, a.customer_identifier);
  return { token: a.token };
}

const RETURNS_SEEN = 'autopay_returns_seen';

/**
 * A payment autopay recorded no longer pays its invoices once its money came back: each settlement
 * exception (an ACH return, a chargeback) since the last one seen reverses the invoicing payments
 * recorded with its transaction (a pay link's too), taking all they kept off them as a refund would,
 * so the invoices are owed again. They are charged again while due
 * only after a return for missing funds, and at most twice (autopay-holds.ts). A failure leaves the
 * exception unseen: the next tick tries again.
 */
async function reverseReturnedPayments(ctx: AutopayContext, port: ReceivablesPort): Promise<void> {
  const { core, gateway } = ctx;
  if (!port.reversePayment) return;
  let after = (await getRecord<{ watermark: number }>(core, RETURNS_SEEN, 'last'))?.data.watermark ?? 0;
  for (;;) {
    const page = await gateway.settlement.exceptionsSince(after, 100);
    if (page.length === 0) return;
    for (const { data: e } of page) {
      const nsf = e.exception_type === 'return' && isNsfReturn(e.return_code);
      const status = nsf ? 'ERROR (NSF)' : 'REVERSAL';
      const t = await gateway.record(e.exception_transaction.token);
      const taken = { kind: e.exception_type, sale_token: e.exception_transaction.token, transaction_token: null };
      for (const p of t?.payments ?? []) {
        const putBack = await port.reversePayment(p.identifier, status, e.exception_description, taken);
        const cause = e.exception_type === 'chargeback' ? 'charged_back' : nsf ? 'returned_nsf' : 'returned';
        await holdInvoices(core, putBack.customer_identifier, putBack.invoices, cause, e.exception_transaction.token);
      }
    }
    after = page[page.length - 1]!.watermark;
    const seen = after;
    await core.mutate((tx) => putRecord(tx, RETURNS_SEEN, 'last', { watermark: seen }, { type: 'autopay.returns_seen', entity: 'autopay', key: 'last' }));
  }
}

async function runDueAutopay(ctx: AutopayContext, now: number): Promise<void> {
  const { core, account } = ctx;
  const port = ctx.port();
  if (!port) return;
  try {
    await reverseReturnedPayments(ctx, port);
  } catch (err) {
    core.logger.error({ err }, 'autopay could not reverse a returned payment');
  }
  try {
    await ctx.followSales();
  } catch (err) {
    core.logger.error({ err }, 'autopay could not follow a refunded or settled sale to its payments');
  }
  await showAutoDebitOnceForEarlierAgreements(ctx);
  if (!account.can('autopay')) return;
  const today = localParts(now, account.profile().timezone).date;
  const agreements = (await recordsOfKind<AutopayData>(core, AUTOPAY)).map((r) => r.data).filter((a) => a.state === 'approved');
  for (const a of agreements) {
    if (a.last_run_date !== null && a.last_run_date >= today) continue;
    try {
      await chargeOne(ctx, port, a, agreements.filter((o) => o.customer_identifier === a.customer_identifier), today);
    } catch (err) {
      // Left unmarked: the next tick tries again (the sale replays, it does not charge twice).
      core.logger.error({ err, agreement: a.token }, 'autopay run failed');
    }
  }
}

/** Charges what one agreement covers today, one sale per currency, and marks the agreement run. */
async function chargeOne(ctx: AutopayContext, port: ReceivablesPort, a: AutopayData, all: AutopayData[], today: string): Promise<void> {
  let result: AutopayData['last_result'] = 'nothing_due';
  let last: string | null = null;
  const failures: AutopayFailure[] = [];
  const skipped: SkippedInvoice[] = [];
  for (const charge of await dueCharges(ctx.core, port, a.customer_identifier, a, all, today)) {
    const charged = await chargeCurrency(ctx, port, a, today, charge);
    if (charged.outcome === 'declined' || charged.outcome === 'error') failures.push({ date: today, currency: charge.currency, amount_cents: charge.amount_cents, invoices: charge.invoices.map((i) => i.number), ...charged.failure });
    // The run says the worst of its currencies' outcomes.
    if (RANK[charged.outcome] >= RANK[result]) result = charged.outcome;
    if (charged.outcome === 'error') continue;
    last = charged.token;
    if (charged.outcome === 'skipped') skipped.push(...charged.skipped);
  }
  await ctx.core.mutate(async (tx) => {
    const current = (await getRecord<AutopayData>(tx, AUTOPAY, a.token))?.data;
    if (!current || current.state !== 'approved') return;
    const marked = { ...current, last_run_date: today, last_result: result, last_transaction: last ?? current.last_transaction, last_failures: failures, last_skipped: skipped, updated_at: tx.at };
    await putAutopay(tx, marked, failures.length ? 'autopay.charge_failed' : 'autopay.charged');
  });
}

type Failure = Pick<AutopayFailure, 'cause' | 'code' | 'message' | 'transaction'>;
const RANK = { nothing_due: 0, approved: 1, skipped: 2, declined: 3, error: 3 } as const;
type Charged =
  | { outcome: 'error'; token: null; failure: Failure }
  | { outcome: 'declined'; token: string; failure: Failure }
  | { outcome: 'approved'; token: string }
  | { outcome: 'skipped'; token: string; skipped: SkippedInvoice[] };
const REFUSED_CAUSE: Record<string, AutopayFailure['cause']> = { payment_method_inactive: 'method_removed', payment_method_not_found: 'method_removed', fund_protected: 'method_locked' };

/** One sale for the agreement's due invoices in one currency; approved, it is recorded as their payment. */
async function chargeCurrency(ctx: AutopayContext, port: ReceivablesPort, a: AutopayData, today: string, charge: DueCharge): Promise<Charged> {
  const { core, gateway } = ctx;
  // Lower case as runs always sent it: a run retried after an upgrade must replay the same sale.
  const currency = charge.currency.toLowerCase();
  const amount = charge.amount_cents;
  const reference = `autopay:${a.token}:${today}:${currency}`;
  let outcome: Awaited<ReturnType<Gateway['transact']>>;
  try {
    outcome = await gateway.transact(
      'sale',
      { fund_token: a.fund_token, amount_cents: amount, currency, transaction_reference: reference, unique_reference: reference, customer_identifier: a.customer_identifier },
      `autopay:${a.token}`,
    );
  } catch (err) {
    if (!isEngineError(err) || err.kind !== 'gateway') throw err;
    // Today's sale, taken before a stop and never recorded, was priced on balances that have moved
    // since (the amount differs): it is given back like one whose payment was refused.
    const taken = err.code === 'duplicate_unique_reference' ? await gateway.recordByReference('sale', reference) : undefined;
    if (taken?.outcome.approved && taken.state !== 'cancelled' && taken.payments.length === 0) return giveBackAndSkip(ctx, port, a, today, taken, charge.invoices, false);
    // A refusal is today's answer (tried again tomorrow); anything else retries at the next tick.
    core.logger.warn({ agreement: a.token, code: err.code }, 'autopay charge refused');
    return { outcome: 'error', token: null, failure: { cause: REFUSED_CAUSE[err.code] ?? 'refused', code: err.code, message: null, transaction: null } };
  }
  const t = outcome.body.transactions[0]!;
  if (!outcome.approved) return { outcome: 'declined', token: t.token, failure: { cause: 'declined', code: t.gateway_error_code, message: t.gateway_error_message ?? t.message, transaction: t.token } };
  const fund = await core.get<FundDoc>(FUNDS, a.fund_token);
  const recorded = port
    .recordPayment({
      identifier: t.token,
      customer_identifier: a.customer_identifier,
      date: today,
      currency,
      amount_cents: amount,
      payment_method: fund?.data.kind ?? 'credit_card',
      transaction_token: t.token,
      fund_token: a.fund_token,
      authorization_code: t.gateway_authorization_code,
      status: t.state === 'in_progress' ? 'IN PROGRESS' : 'PAID',
      autopay_agreement: a.token,
      // What each owed when the sale was priced: a balance that moved since records nothing (module comment).
      invoices: charge.invoices.map((i) => ({ number: i.number, amount_cents: i.charge_cents, owing_cents: i.owing_cents, ...(i.discount_cents ? { discount_cents: i.discount_cents } : {}) })),
    })
    .then(
      () => true,
      (err: unknown) => (isBalanceMoved(err) ? false : Promise.reject(err)),
    );
  if (!(await recorded)) return giveBackAndSkip(ctx, port, a, today, { token: t.token, amount_cents: amount }, charge.invoices, true);
  await gateway.linkPayment(t.token, { identifier: t.token, amount_cents: amount });
  return { outcome: 'approved', token: t.token };
}

/**
 * A sale priced on balances that moved before its payment could be recorded: given back
 * (gateway/give-back.ts), and each of its invoices skipped today, said why. `priced`: `invoices`
 * are as the sale was priced, so which moved is told by reading them again (the others were only
 * in the same sale); false for a sale taken before a stop, priced on balances no longer known.
 */
async function giveBackAndSkip(ctx: AutopayContext, port: ReceivablesPort, a: AutopayData, today: string, sale: { token: string; amount_cents: number }, invoices: DueInvoice[], priced: boolean): Promise<Charged> {
  const how = (await giveBackSale(ctx.gateway, sale.token, `autopay:${a.token}`)) ?? 'voided';
  const owesNow = new Map((await port.dueInvoices(a.customer_identifier, today)).map((i) => [i.number, i.owing_cents]));
  const owes = (i: DueInvoice) => owesNow.get(i.number) ?? 0;
  const differ = priced ? invoices.filter((i) => owes(i) !== i.owing_cents) : [];
  // None differs now (it moved and came back, its discount lapsed, or unknown): all of them changed.
  const moved = differ.length ? differ : invoices;
  const money = (cents: number) => formatMoney(cents, invoices[0]?.currency ?? 'usd', { locale: 'en-US' });
  const back = `the charge of ${money(sale.amount_cents)} was ${how}, so nothing was taken. The next run charges what it owes then.`;
  const why = (i: DueInvoice): string => {
    if (!moved.includes(i)) return `Charged together with invoice${moved.length === 1 ? '' : 's'} ${moved.map((m) => m.number).join(', ')}, whose balance changed during the charge: ${back}`;
    if (!priced) return `Today's charge was taken before a stop, for what was owed then; invoice ${i.number} owes ${money(owes(i))} now: ${back}`;
    if (owes(i) === i.owing_cents) return `What invoice ${i.number} owed changed while autopay charged it: ${back}`;
    return `Invoice ${i.number} owed ${money(i.owing_cents)} when autopay charged it and ${money(owes(i))} when the payment was to be recorded (another payment or a credit landed meanwhile): ${back}`;
  };
  const skipped = invoices.map((i): SkippedInvoice => ({ invoice_number: i.number, reason: moved.includes(i) ? 'balance_changed' : 'charged_with_changed_invoice', message: why(i), transaction: sale.token, date: today }));
  ctx.core.logger.warn({ agreement: a.token, transaction: sale.token, invoices: moved.map((i) => i.number) }, `autopay: a balance moved during the charge; the sale was ${how} and its invoices skipped today`);
  return { outcome: 'skipped', token: sale.token, skipped };
}
