import type { EngineCore, Tx } from '../core';
import type { Account } from '../account';
import { payingFund } from './fund-holder';
import { fail, isEngineError } from '../errors';
import { getRecord, putRecord, recordsByRef, recordsOfKind } from '../records';
import type { Gateway, TxData } from '../gateway';
import type { Wallets } from '../wallets';
import { fingerprintOf } from '../gateway/idempotency';
import { dateInZone } from '../clock';
import type { PayportTransactionInput, PayportTransactionState, PayportTransactionType, PayportTransactionView } from '../../shared/schemas/payport';
import { BALANCE_NAME, type FundSources } from './fund-sources';
import { move, type Machine } from './state-machine';
import type { DebitAgreements } from './agreements';

/**
 * Transactions between the account and someone known by email (records kind
 * `payport_transaction`, `ref` its unique_reference). Before money moves a transaction has its own
 * states; the money itself moves as one order transaction of the gateway (the sandbox
 * processor), keyed by `payport/<token>` so a retried or interrupted approval never charges twice,
 * and from then on the transaction's state is that order transaction's (it settles, is returned,
 * shows in settlement and exports there, by the gateway's rules, never copied here).
 *
 * - request (request_money): wait_for_request_approval --approve(payer's fund)--> money (a sale)
 * - send (send_money): new --approve(your fund)--> money (a credit to the recipient's wallet method)
 * - direct_debit: money at once (a sale on the fund of an approved debit agreement with `email`)
 * - direct_credit: money at once (a credit from your fund to the bank account `email`'s wallet holds)
 * - cancel: new, wait_for_request_approval, wait_for_bank_account_verification --> cancelled
 */
type PreMoneyState = Extract<PayportTransactionState, 'new' | 'wait_for_request_approval' | 'wait_for_bank_account_verification' | 'cancelled' | 'error'>;
type Action = 'approve' | 'cancel';

const MACHINE: Machine<PayportTransactionState, Action> = {
  approve: { from: ['new', 'wait_for_request_approval'], to: 'new' },
  cancel: { from: ['new', 'wait_for_request_approval', 'wait_for_bank_account_verification'], to: 'cancelled' },
};

interface PayportTxData {
  token: string;
  transaction_type: PayportTransactionType;
  amount_in_cents: number;
  currency: string;
  email: string;
  message: string | null;
  state: PreMoneyState;
  transaction_reference: string | null;
  unique_reference: string | null;
  fingerprint: string;
  link_url: string | null;
  process_on: string | null;
  auto_withdraw: boolean;
  created_by: string;
  /** send/direct credit: the account's fund the money leaves from; request/direct debit: the payer's. */
  fund: string | null;
  fund_name: string | null;
  /** send/direct credit: the recipient's payment method, fixed when the approval starts (a direct credit's when it is made). */
  destination: string | null;
  debit_agreement: string | null;
  /** Set when an approval starts: from then on only the gateway decides (no cancel). */
  approving: boolean;
  gateway: string | null;
  error: string | null;
  seq: number;
  created_at: string;
  updated_at: string;
}

export const PAYPORT_TRANSACTION = 'payport_transaction';
const PAGE = 50;
const TYPE_NAMES = { request: 'request_money', send: 'send_money', direct_debit: 'direct_debit', direct_credit: 'direct_credit' } as const;

/** Money leaving the account (to `email`) rather than coming in from them. */
const outgoing = (type: PayportTransactionType) => type === 'send' || type === 'direct_credit';
/** Money that moves when the transaction is made: the agreement, or the sender's own say-so, is the approval. */
const approvedAtOnce = (type: PayportTransactionType) => type === 'direct_debit' || type === 'direct_credit';

/** The gateway's state as the reference's transaction lifecycle names it. */
function moneyState(t: TxData): PayportTransactionState {
  return t.state === 'declined' ? 'error' : t.state;
}

export interface PayportTransactions {
  create(input: PayportTransactionInput, actor: string): Promise<PayportTransactionView>;
  list(page: number): Promise<PayportTransactionView[]>;
  view(tokenOrUniqueReference: string): Promise<PayportTransactionView>;
  approve(token: string, fundToken: string | undefined, actor: string): Promise<PayportTransactionView>;
  cancel(token: string): Promise<PayportTransactionView>;
}

/** An approval under way is in progress to the client: it can no longer be cancelled. */
function stateWith(d: PayportTxData, money: TxData | undefined, today: string): PayportTransactionState {
  if (money) return moneyState(money);
  if (!underWay(d)) return d.state;
  // Approved for a later process_on: still new (cancellable) until that day.
  return d.process_on !== null && d.process_on > today ? 'new' : 'in_progress';
}

/** Approved (or a direct debit), and the money not moved yet: the tick or a retry moves it. */
function underWay(d: PayportTxData): boolean {
  return d.approving && !d.gateway && d.state !== 'error' && d.state !== 'cancelled';
}

function transactionView(d: PayportTxData, money: TxData | undefined, name: string, today: string): PayportTransactionView {
  const send = outgoing(d.transaction_type);
  return {
    token: d.token,
    type: 'transaction',
    transaction_type: TYPE_NAMES[d.transaction_type],
    amount_in_cents: d.amount_in_cents,
    currency: d.currency.toUpperCase(),
    email: d.email,
    message: d.message,
    state: stateWith(d, money, today),
    from_account: send ? name : (money?.from_account ?? d.email),
    to_account: send ? d.email : name,
    from_fund: send ? d.fund_name : null,
    to_fund: send ? null : BALANCE_NAME,
    payment_method: money && (money.payment_method === 'credit_card' || money.payment_method === 'bank_account') ? money.payment_method : null,
    settlement_token: money?.settlement_token ?? null,
    transaction_reference: d.transaction_reference,
    unique_reference: d.unique_reference,
    link_url: d.link_url,
    process_on: d.process_on,
    created_by_user: d.created_by,
    auto_withdraw: d.auto_withdraw,
    auto_withdrawal_token: null,
    debit_agreement: d.debit_agreement,
    gateway_transaction: d.gateway,
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}

const load = async (reader: Tx | EngineCore, token: string) => {
  const d = (await getRecord<PayportTxData>(reader, PAYPORT_TRANSACTION, token))?.data;
  if (!d) throw fail.notFound('transaction_not_found', `No transaction ${token}`);
  return d;
};
const put = (tx: Tx, d: PayportTxData, type: string) =>
  putRecord(tx, PAYPORT_TRANSACTION, d.token, d, { type, entity: 'payport_transaction', key: d.token, data: { state: d.state } }, d.unique_reference ?? '');


interface NewTransaction {
  token: string;
  currency: string;
  fingerprint: string;
  actor: string;
  seq: number;
  at: string;
  sendFund: { token: string; name: string } | null;
  agreementFund: string | null;
  agreementToken: string | null;
  destination: string | null;
}

function newTransaction(input: PayportTransactionInput, ctx: NewTransaction): PayportTxData {
  return {
    token: ctx.token,
    transaction_type: input.transaction_type,
    amount_in_cents: input.amount_in_cents,
    currency: ctx.currency,
    email: input.email,
    message: input.message ?? null,
    state: input.transaction_type === 'request' ? 'wait_for_request_approval' : 'new',
    transaction_reference: input.transaction_reference ?? null,
    unique_reference: input.unique_reference ?? null,
    fingerprint: ctx.fingerprint,
    link_url: input.link_url ?? null,
    process_on: input.process_on ?? null,
    auto_withdraw: input.auto_withdraw ?? false,
    created_by: ctx.actor,
    fund: ctx.sendFund?.token ?? ctx.agreementFund,
    fund_name: ctx.sendFund?.name ?? null,
    destination: ctx.destination,
    debit_agreement: ctx.agreementToken,
    approving: approvedAtOnce(input.transaction_type),
    gateway: null,
    error: null,
    seq: ctx.seq,
    created_at: ctx.at,
    updated_at: ctx.at,
  };
}

/** The payment method the money goes to or comes from, checked before anything moves. */
async function fundForApproval(wallets: Wallets, funds: FundSources, d: PayportTxData, fundToken: string | undefined): Promise<{ fund: string; name: string | null }> {
  if (d.transaction_type === 'send') {
    const wallet = (await wallets.search('email', d.email))[0];
    const method = wallet?.bank_accounts[0] ?? wallet?.credit_cards[0];
    if (!method) throw fail.precondition('recipient_has_no_payment_method', `${d.email} has no wallet with a payment method to receive the money`);
    return { fund: String(method.token), name: null };
  }
  const chosen = fundToken ?? (await funds.defaultBank())?.token;
  if (!chosen) throw fail.precondition('fund_token_required', 'Name the fund_token to pay from: there is no bank account in GET /api/funds to default to');
  if (chosen === funds.balanceToken()) throw fail.precondition('fund_not_supported', 'The balance cannot pay a request: name a bank account or card');
  const own = await payingFund(wallets, funds, chosen, d.email, 'the request is to');
  return { fund: chosen, name: own?.name ?? null };
}

/** Moves the money through the gateway, keyed by the transaction, then records its order transaction. */
async function moveMoneyOf(core: EngineCore, gateway: Gateway, d: PayportTxData, fund: string, actor: string): Promise<PayportTxData> {
  let gatewayToken: string | null = null;
  let error: string | null = null;
  try {
    const result = await gateway.transact(outgoing(d.transaction_type) ? 'credit' : 'sale', {
      amount_cents: d.amount_in_cents,
      currency: d.currency,
      fund_token: fund,
      transaction_reference: `payport/${d.token}`,
      unique_reference: `payport/${d.token}`,
      contact: { email: d.email },
    }, actor);
    gatewayToken = result.body.transaction;
  } catch (err) {
    if (!isEngineError(err) || err.kind !== 'gateway') throw err;
    error = err.code;
  }
  const recorded = await core.mutate(async (tx) => {
    const current = await load(tx, d.token);
    if (current.gateway) return current;
    if (!gatewayToken) {
      // Refused before any money moved (an unknown or removed fund): the approval may be tried again.
      const reopened = { ...current, approving: false, error, updated_at: tx.at };
      await put(tx, reopened, 'payport_transaction.approval_failed');
      return reopened;
    }
    const moved = { ...current, gateway: gatewayToken, error: null, updated_at: tx.at };
    await put(tx, moved, 'payport_transaction.money_moved');
    return moved;
  });
  if (!recorded.gateway) throw fail.precondition(error ?? 'gateway_refused', `The payment could not be made (${error}); nothing was charged`);
  return recorded;
}

/** By token, then by unique_reference. */
async function lookup(core: EngineCore, tokenOrUniqueReference: string): Promise<PayportTxData> {
  const direct = (await getRecord<PayportTxData>(core, PAYPORT_TRANSACTION, tokenOrUniqueReference))?.data;
  const d = direct ?? (await recordsByRef<PayportTxData>(core, PAYPORT_TRANSACTION, tokenOrUniqueReference))[0]?.data;
  if (!d) throw fail.notFound('transaction_not_found', `No transaction with token or unique_reference ${tokenOrUniqueReference}`);
  return d;
}

async function newestFirst(core: EngineCore): Promise<PayportTxData[]> {
  return (await recordsOfKind<PayportTxData>(core, PAYPORT_TRANSACTION)).map((r) => r.data).sort((a, b) => b.seq - a.seq);
}

/** What a new transaction names before it exists: a direct debit's agreement, a send's fund, a direct credit's both ends. */
async function fundsForNew(funds: FundSources, agreements: DebitAgreements, wallets: Wallets, input: PayportTransactionInput) {
  let agreementFund: string | null = null;
  let agreementToken: string | null = null;
  if (input.transaction_type === 'direct_debit') {
    const agreement = await agreements.approvedFor(input.email);
    if (!agreement) throw fail.precondition('no_debit_agreement', `There is no approved debit agreement with ${input.email}: create one (POST /api/debit_agreements) and have it approved`);
    agreementFund = agreement.fund;
    agreementToken = agreement.token;
  }
  let sendFund: { token: string; name: string } | null = null;
  if (outgoing(input.transaction_type)) {
    const chosen = input.fund_token ? await funds.find(input.fund_token) : await funds.defaultBank();
    if (!chosen && input.fund_token) throw fail.precondition('fund_not_found', `${input.fund_token} is not one of your fund sources (GET /api/funds)`);
    if (!chosen) throw fail.precondition('fund_token_required', 'Name the fund_token to send from: you have no bank account to default to');
    sendFund = { token: chosen.token, name: chosen.name };
  }
  // A direct credit is paid without the recipient's say, so only into a bank account they gave (a
  // credit to a card is a refund's business, not a payment to someone).
  let destination: string | null = null;
  if (input.transaction_type === 'direct_credit') {
    const bank = (await wallets.search('email', input.email)).flatMap((w) => w.bank_accounts)[0];
    if (!bank) throw fail.precondition('recipient_has_no_bank_account', `${input.email} has no wallet with a bank account to pay into: vault one for them first (POST /api/gateway/v1/wallets with their email as contact)`);
    destination = String(bank.token);
  }
  return { agreementFund, agreementToken, sendFund, destination };
}

export function createPayportTransactions(deps: { core: EngineCore; account: Account; gateway: Gateway; wallets: Wallets; funds: FundSources; agreements: DebitAgreements }): PayportTransactions {
  const { core, account, gateway, wallets, funds, agreements } = deps;

  const today = () => dateInZone(core.clock.now(), account.profile().timezone);
  const viewOf = async (d: PayportTxData) => transactionView(d, d.gateway ? await gateway.record(d.gateway) : undefined, account.profile().name, today());

  /** Where a transaction is, as a client sees it: the order transaction's state once money moved. */
  const stateOf = async (d: PayportTxData) => stateWith(d, d.gateway ? await gateway.record(d.gateway) : undefined, today());
  const due = (d: PayportTxData) => d.process_on === null || d.process_on <= today();
  const moneyFund = (d: PayportTxData) => (outgoing(d.transaction_type) ? d.destination! : d.fund!);

  const counterpartyFund = (d: PayportTxData, fundToken: string | undefined) => fundForApproval(wallets, funds, d, fundToken);

  const moveMoney = (d: PayportTxData, fund: string, actor: string) => moveMoneyOf(core, gateway, d, fund, actor);

  /** Moves an approved transaction's money once its day has come. A refused direct debit or credit is left in `error`. */
  const settle = async (d: PayportTxData, actor: string): Promise<PayportTxData> => {
    if (!underWay(d) || !due(d)) return d;
    return moveMoney(d, moneyFund(d), actor).catch(async (err: unknown) => {
      if (!approvedAtOnce(d.transaction_type) || !isEngineError(err) || err.kind !== 'precondition') throw err;
      return core.mutate(async (tx) => {
        const failed: PayportTxData = { ...(await load(tx, d.token)), state: 'error', updated_at: tx.at };
        await put(tx, failed, 'payport_transaction.failed');
        return failed;
      });
    });
  };

  // Scheduled approvals start on their process_on day; an approval a crash interrupted resumes
  // (the gateway's key makes a charge already made answer again instead of charging twice).
  core.onTick('payport.due', async () => {
    for (const d of await newestFirst(core)) {
      if (underWay(d) && due(d)) await settle(d, d.created_by).catch((err: unknown) => core.logger.warn({ err, token: d.token }, 'scheduled transaction not moved'));
    }
  });

  return {
    async create(input, actor) {
      const currency = account.profile().currency;
      const fingerprint = fingerprintOf([input.transaction_type, input.amount_in_cents, input.email.toLowerCase(), input.fund_token ?? null]);
      const { agreementFund, agreementToken, sendFund, destination } = await fundsForNew(funds, agreements, wallets, input);
      const made = await core.mutate(async (tx) => {
        if (input.unique_reference) {
          const prior = (await recordsByRef<PayportTxData>(tx, PAYPORT_TRANSACTION, input.unique_reference))[0]?.data;
          if (prior && prior.fingerprint === fingerprint) return { data: prior, replay: true };
          if (prior) throw fail.precondition('duplicate_unique_reference', `unique_reference ${input.unique_reference} was already used for another transaction (${prior.token})`);
        }
        const count = (await getRecord<{ value: number }>(tx, 'sequence', PAYPORT_TRANSACTION))?.data.value ?? 0;
        await putRecord(tx, 'sequence', PAYPORT_TRANSACTION, { value: count + 1 }, { type: 'sequence.updated', entity: 'sequence', key: PAYPORT_TRANSACTION });
        const data = newTransaction(input, { token: core.ids.token(), currency, fingerprint, actor, seq: count + 1, at: tx.at, sendFund, agreementFund, agreementToken, destination });
        await put(tx, data, 'payport_transaction.created');
        return { data, replay: false };
      });
      // A direct debit or credit needs no approval: the agreement, or the sender's request, is it.
      return viewOf(await settle(made.data, actor));
    },

    list: async (page) => Promise.all((await newestFirst(core)).slice((page - 1) * PAGE, page * PAGE).map(viewOf)),

    view: async (tokenOrUniqueReference) => viewOf(await lookup(core, tokenOrUniqueReference)),

    async approve(token, fundToken, actor) {
      const before = await load(core, token);
      // An approval already under way (interrupted, or retried) resumes with its fund: same key, one charge.
      if (underWay(before)) return viewOf(await settle(before, actor));
      move(MACHINE, 'transaction', token, await stateOf(before), 'approve');
      const target = await counterpartyFund(before, fundToken);
      const started = await core.mutate(async (tx) => {
        const d = await load(tx, token);
        move(MACHINE, 'transaction', token, await stateOf(d), 'approve');
        const next: PayportTxData = {
          ...d,
          approving: true,
          ...(outgoing(d.transaction_type) ? { destination: target.fund } : { fund: target.fund, fund_name: target.name }),
          updated_at: tx.at,
        };
        await put(tx, next, 'payport_transaction.approved');
        return next;
      });
      return viewOf(await settle(started, actor));
    },

    async cancel(token) {
      const data = await core.mutate(async (tx) => {
        const d = await load(tx, token);
        move(MACHINE, 'transaction', token, await stateOf(d), 'cancel');
        const next: PayportTxData = { ...d, state: 'cancelled', approving: false, updated_at: tx.at };
        await put(tx, next, 'payport_transaction.cancelled');
        return next;
      });
      return viewOf(data);
    },
  };
}
