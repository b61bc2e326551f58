import type { EngineCore, Tx } from '../core';
import type { Account } from '../account';
import { payingFund } from './fund-holder';
import { fail } from '../errors';
import { getRecord, putRecord, recordsOfKind } from '../records';
import type { Wallets } from '../wallets';
import type { AgreementInput, AgreementState, AgreementView } from '../../shared/schemas/payport';
import type { FundSources } from './fund-sources';
import { move, type Machine } from './state-machine';

/**
 * Pre-authorized debit agreements (records kind `debit_agreement`): the account asks the customer
 * at `email` to let it debit their fund without approving each debit. The customer approves it
 * with a fund (in this single-account sandbox, the API caller acts for the customer, as it does
 * for a money request), and from then on direct_debit transactions with that email debit the
 * fund. States:
 *
 *   pending --approve--> approved --revoke (by the customer)--> revoked
 *   pending --reject--> rejected
 *   pending | approved --cancel (by the creator)--> cancelled
 */
type Action = 'approve' | 'reject' | 'cancel' | 'revoke';
const MACHINE: Machine<AgreementState, Action> = {
  approve: { from: ['pending'], to: 'approved' },
  reject: { from: ['pending'], to: 'rejected' },
  cancel: { from: ['pending', 'approved'], to: 'cancelled' },
  revoke: { from: ['approved'], to: 'revoked' },
};

interface AgreementData {
  token: string;
  state: AgreementState;
  email: string;
  name: string | null;
  reference: string | null;
  message: string | null;
  rejection_reason: string | null;
  created_by: string;
  account_name: string;
  fund: string | null;
  fund_name: string | null;
  /** The account this agreement was sent to, when it is hosted here; none on a single-account install. */
  recipient_account: string | null;
  seq: number;
  created_at: string;
  updated_at: string;
}

const AGREEMENT = 'debit_agreement';
const PAGE = 50;

export interface DebitAgreements {
  create(input: AgreementInput, actor: string): Promise<AgreementView>;
  sent(page: number): Promise<AgreementView[]>;
  /** Agreements other accounts sent to this one (none until accounts are hosted apart). */
  received(page: number): Promise<AgreementView[]>;
  approve(token: string, fundToken: string | undefined): Promise<AgreementView>;
  reject(token: string, reason: string | undefined): Promise<AgreementView>;
  cancel(token: string): Promise<AgreementView>;
  revoke(token: string): Promise<AgreementView>;
  /** The approved agreement a direct debit to `email` uses (its fund). */
  approvedFor(email: string): Promise<{ token: string; fund: string } | undefined>;
}

const view = (d: AgreementData): AgreementView => ({
  token: d.token,
  type: 'debit_agreement',
  state: d.state,
  email: d.email,
  name: d.name,
  reference: d.reference,
  message: d.message,
  rejection_reason: d.rejection_reason,
  created_by_user: d.created_by,
  created_by_account: d.account_name,
  fund: d.fund_name,
  created_at: d.created_at,
  updated_at: d.updated_at,
});

export function createDebitAgreements(deps: { core: EngineCore; account: Account; wallets: Wallets; funds: FundSources }): DebitAgreements {
  const { core, account, wallets, funds } = deps;
  const all = async () => (await recordsOfKind<AgreementData>(core, AGREEMENT)).map((r) => r.data).sort((a, b) => b.seq - a.seq);
  const page = (list: AgreementData[], n: number) => list.slice((n - 1) * PAGE, n * PAGE).map(view);

  const transition = async (token: string, action: Action, change: (d: AgreementData, tx: Tx) => Partial<AgreementData> = () => ({})) => {
    const data = await core.mutate(async (tx) => {
      const d = (await getRecord<AgreementData>(tx, AGREEMENT, token))?.data;
      if (!d) throw fail.notFound('agreement_not_found', `No debit agreement ${token}`);
      const next: AgreementData = { ...d, ...change(d, tx), state: move(MACHINE, 'debit agreement', token, d.state, action), updated_at: tx.at };
      await putRecord(tx, AGREEMENT, token, next, { type: `debit_agreement.${next.state}`, entity: 'debit_agreement', key: token, data: { state: next.state } });
      return next;
    });
    return view(data);
  };

  return {
    async create(input, actor) {
      account.require('autopay');
      const holder = (await wallets.search('email', input.email))[0]?.customers[0]?.name ?? null;
      const data = await core.mutate(async (tx) => {
        const count = (await getRecord<{ value: number }>(tx, 'sequence', AGREEMENT))?.data.value ?? 0;
        await putRecord(tx, 'sequence', AGREEMENT, { value: count + 1 }, { type: 'sequence.updated', entity: 'sequence', key: AGREEMENT });
        const d: AgreementData = {
          token: core.ids.token(),
          state: 'pending',
          email: input.email,
          name: holder,
          reference: input.reference ?? null,
          message: input.message ?? null,
          rejection_reason: null,
          created_by: actor,
          account_name: account.profile().name,
          fund: null,
          fund_name: null,
          recipient_account: null,
          seq: count + 1,
          created_at: tx.at,
          updated_at: tx.at,
        };
        await putRecord(tx, AGREEMENT, d.token, d, { type: 'debit_agreement.pending', entity: 'debit_agreement', key: d.token, data: { state: d.state } });
        return d;
      });
      return view(data);
    },
    sent: async (n) => page(await all(), n),
    received: async (n) => page((await all()).filter((d) => d.recipient_account === account.profile().token), n),
    async approve(token, fundToken) {
      // The state is checked first: a fund question does not hide an illegal move.
      const current = (await getRecord<AgreementData>(core, AGREEMENT, token))?.data;
      if (!current) throw fail.notFound('agreement_not_found', `No debit agreement ${token}`);
      move(MACHINE, 'debit agreement', token, current.state, 'approve');
      const chosen = fundToken ?? (await funds.defaultBank())?.token;
      if (!chosen) throw fail.precondition('fund_token_required', 'Name the fund_token the agreement debits: there is no bank account in GET /api/funds to default to');
      if (chosen === funds.balanceToken()) throw fail.precondition('fund_not_supported', 'A debit agreement debits a bank account or card, not the balance');
      // Direct debits under the agreement charge this fund: the account's own, or the holder's.
      const own = await payingFund(wallets, funds, chosen, current.email, 'the agreement is with');
      return transition(token, 'approve', () => ({ fund: chosen, fund_name: own?.name ?? chosen }));
    },
    reject: (token, reason) => transition(token, 'reject', () => ({ rejection_reason: reason ?? null })),
    cancel: (token) => transition(token, 'cancel'),
    revoke: (token) => transition(token, 'revoke'),
    async approvedFor(email) {
      const found = (await all()).find((d) => d.state === 'approved' && d.email.toLowerCase() === email.toLowerCase() && d.fund);
      return found ? { token: found.token, fund: found.fund! } : undefined;
    },
  };
}
