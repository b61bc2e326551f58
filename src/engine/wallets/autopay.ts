import type { EngineCore, Tx } from '../core';
import type { Account } from '../account';
import { fail, isEngineError } from '../errors';
import { getRecord, putRecord, recordsByRef, recordsOfKind } from '../records';
import { localParts } from '../gateway/processing-day';
import type { Gateway } from '../gateway';
import type { AutopayCreate } from '../../shared/schemas/wallets';
import type { FundDoc, WalletDoc } from './records';
import { FUNDS, WALLETS, putWallet } from './records';
import type { DueInvoice, ReceivablesPort } from './autopay-port';

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
 * A decline is retried on the next day while the invoices stay due.
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
  /** error: the gateway refused the charge (a locked or removed fund, another currency...). */
  last_result: 'approved' | 'declined' | 'error' | 'nothing_due' | null;
  last_transaction: string | null;
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
}

export interface Autopay {
  create(input: AutopayCreate): Promise<{ token: string }>;
  /** Inside a unit of work (a card file's create_debit_agreement): the fund may be vaulted in the same unit. */
  createInTx(tx: Tx, input: AutopayCreate): Promise<{ token: string }>;
  /** Moves the customer's agreements from fund `oldFund` to `newFund`. */
  update(input: { customer_identifier: string; fund_token: string; token: string }): Promise<{ token: string }>;
  retrieve(customerIdentifier: string): Promise<{ autopays: AutopayView[] } & Partial<AutopayView>>;
  revoke(input: { customer_identifier: string; token: string }): Promise<void>;
  /** Charges what is due today (also the `autopay.due` tick task). */
  runDue(now: number): Promise<void>;
  setReceivables(port: ReceivablesPort | undefined): void;
  receivables(): ReceivablesPort | undefined;
}

function view(a: AutopayData): AutopayView {
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
  };
}

export function createAutopay(deps: { core: EngineCore; account: Account; gateway: Gateway; receivables?: ReceivablesPort }): Autopay {
  const { core, account, gateway } = deps;
  let port = deps.receivables;

  const active = async (customer: string) =>
    (await recordsByRef<AutopayData>(core, AUTOPAY, customer)).map((r) => r.data).filter((a) => a.state === 'approved');

  /** The fund must be usable and belong to the customer's wallet. */
  const checkFund = async (customer: string, fundToken: string, reader: Tx | EngineCore = core) => {
    const fund = await reader.get<FundDoc>(FUNDS, fundToken);
    if (!fund) throw fail.precondition('payment_method_not_found', `No payment method ${fundToken}`);
    if (fund.data.inactive) throw fail.precondition('payment_method_inactive', `Payment method ${fundToken} was removed`);
    if (fund.data.locked) throw fail.precondition('fund_protected', `Payment method ${fundToken} is locked`);
    const wallet = await reader.get<WalletDoc>(WALLETS, fund.data.wallet);
    if (wallet?.data.customer?.identifier !== customer) {
      throw fail.precondition('fund_not_authorized', `Payment method ${fundToken} is not in a wallet of customer ${customer}`);
    }
  };

  const checkCustomer = async (customer: string) => {
    if (port && !(await port.customerExists(customer))) throw fail.precondition('customer_not_found', `No customer ${customer}`);
  };

  const put = putAutopay;

  const createInTx = async (tx: Tx, input: AutopayCreate): Promise<{ token: string }> => {
    account.require('autopay');
    const references = input.autopay_reference === undefined ? [] : Array.isArray(input.autopay_reference) ? [...new Set(input.autopay_reference)] : [input.autopay_reference];
    await checkCustomer(input.customer_identifier);
    await checkFund(input.customer_identifier, input.fund_token, tx);
    const existing = (await recordsByRef<AutopayData>(tx, AUTOPAY, input.customer_identifier)).map((r) => r.data).filter((a) => a.state === 'approved');
    const clash = existing.find((a) => (a.references.length === 0 && references.length === 0) || a.references.some((r) => references.includes(r)));
    if (clash) throw fail.precondition('autopay_exists', `Customer ${input.customer_identifier} already has autopay ${clash.token} for ${references.length ? 'these references' : 'all invoices'}`);
    const a: AutopayData = {
      token: core.ids.token(),
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
    await put(tx, a, 'autopay.created');
    return { token: a.token };
  };

  /** Which of the due invoices an agreement covers (see the module comment). */
  const covered = (a: AutopayData, all: AutopayData[], invoices: DueInvoice[]) => {
    const claimed = new Set(all.filter((o) => o.references.length).flatMap((o) => o.references));
    return invoices.filter((inv) => {
      if (!inv.auto_debit || inv.owing_cents <= 0) return false;
      if (a.references.length) return inv.auto_debit_reference !== null && a.references.includes(inv.auto_debit_reference);
      return inv.auto_debit_reference === null || !claimed.has(inv.auto_debit_reference);
    });
  };

  const chargeOne = async (a: AutopayData, all: AutopayData[], today: string) => {
    const p = port!;
    const due = covered(a, all, await p.dueInvoices(a.customer_identifier, today)).filter((i) => i.due_date <= today);
    const byCurrency = new Map<string, DueInvoice[]>();
    for (const inv of due) {
      const c = inv.currency.toLowerCase();
      byCurrency.set(c, [...(byCurrency.get(c) ?? []), inv]);
    }
    let result: AutopayData['last_result'] = 'nothing_due';
    let last: string | null = null;
    for (const [currency, invoices] of byCurrency) {
      const amount = invoices.reduce((s, i) => s + i.owing_cents, 0);
      let outcome: Awaited<ReturnType<Gateway['transact']>>;
      try {
        outcome = await gateway.transact(
          'sale',
          { fund_token: a.fund_token, amount_cents: amount, currency, transaction_reference: `autopay:${a.token}:${today}:${currency}`, customer_identifier: a.customer_identifier },
          `autopay:${a.token}`,
        );
      } catch (err) {
        // A refusal is today's answer (tried again tomorrow); anything else retries at the next tick.
        if (!isEngineError(err) || err.kind !== 'gateway') throw err;
        core.logger.warn({ agreement: a.token, code: err.code }, 'autopay charge refused');
        result = 'error';
        continue;
      }
      const t = outcome.body.transactions[0]!;
      last = t.token;
      if (!outcome.approved) {
        result = 'declined';
        continue;
      }
      result = result === 'declined' || result === 'error' ? result : 'approved';
      const fund = await core.get<FundDoc>(FUNDS, a.fund_token);
      await p.recordPayment({
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
        invoices: invoices.map((i) => ({ number: i.number, amount_cents: i.owing_cents })),
      });
      await gateway.linkPayment(t.token, { identifier: t.token, amount_cents: amount });
    }
    await core.mutate(async (tx) => {
      const current = (await getRecord<AutopayData>(tx, AUTOPAY, a.token))?.data;
      if (!current || current.state !== 'approved') return;
      await put(tx, { ...current, last_run_date: today, last_result: result, last_transaction: last ?? current.last_transaction, updated_at: tx.at }, 'autopay.charged');
    });
  };

  const runDue = async (now: number) => {
    if (!port || !account.can('autopay')) return;
    const today = localParts(now, account.profile().timezone).date;
    const agreements = (await recordsOfKind<AutopayData>(core, AUTOPAY)).map((r) => r.data).filter((a) => a.state === 'approved');
    for (const a of agreements) {
      if (a.last_run_date !== null && a.last_run_date >= today) continue;
      try {
        await chargeOne(a, agreements.filter((o) => o.customer_identifier === a.customer_identifier), today);
      } catch (err) {
        // Left unmarked: the next tick tries again (the sale replays, it does not charge twice).
        core.logger.error({ err, agreement: a.token }, 'autopay run failed');
      }
    }
  };

  core.onTick('autopay.due', runDue);

  return {
    create: (input) => core.mutate((tx) => createInTx(tx, input)),

    createInTx,

    async update(input) {
      account.require('autopay');
      await checkFund(input.customer_identifier, input.fund_token);
      return core.mutate(async (tx) => {
        const mine = (await recordsByRef<AutopayData>(tx, AUTOPAY, input.customer_identifier)).map((r) => r.data).filter((a) => a.state === 'approved' && a.fund_token === input.token);
        if (mine.length === 0) throw fail.precondition('autopay_not_found', `Customer ${input.customer_identifier} has no autopay using fund ${input.token}`);
        for (const a of mine) await put(tx, { ...a, fund_token: input.fund_token, updated_at: tx.at }, 'autopay.updated');
        return { token: input.fund_token };
      });
    },

    async retrieve(customer) {
      account.require('autopay');
      const list = (await active(customer)).sort((a, b) => b.created_at.localeCompare(a.created_at)).map(view);
      return { ...(list[0] ?? {}), autopays: list };
    },

    async revoke(input) {
      account.require('autopay');
      await core.mutate(async (tx) => {
        const a = (await getRecord<AutopayData>(tx, AUTOPAY, input.token))?.data;
        if (!a || a.customer_identifier !== input.customer_identifier) throw fail.precondition('autopay_not_found', `Customer ${input.customer_identifier} has no autopay ${input.token}`);
        if (a.state !== 'approved') throw fail.precondition('autopay_revoked', `Autopay ${input.token} is already revoked`);
        await put(tx, { ...a, state: 'revoked', revoked_at: tx.at, updated_at: tx.at }, 'autopay.revoked');
      });
    },

    runDue,
    setReceivables(p) {
      port = p;
    },
    receivables: () => port,
  };
}
