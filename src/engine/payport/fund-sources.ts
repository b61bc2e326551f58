import type { EngineCore } from '../core';
import type { Account } from '../account';
import { fail } from '../errors';
import { getRecord, putRecord, recordsOfKind } from '../records';
import type { Wallets } from '../wallets';
import type { FundSourceView, VaultBankInput } from '../../shared/schemas/payport';

/**
 * The account's own fund sources (GET /api/funds): the bank accounts it vaulted (POST
 * /api/vault/bank) and its balance. A bank account is vaulted by the wallets domain, in the
 * account's own wallet (customer `ACCOUNT-<account token>`), so the vault's rules apply unchanged
 * (sandbox test accounts only, the number used once, last four and a keyed fingerprint kept) and
 * its fund token pays through the gateway like any other. Records kind `fund_source` list which
 * wallet funds are the account's own.
 */
export interface FundSourceData {
  token: string;
  wallet: string;
  name: string;
  state: 'verified' | 'unverified' | 'invalid';
  created_at: string;
}

export const FUND_SOURCE = 'fund_source';
export const BALANCE_NAME = 'Laneway Account';

export interface FundSources {
  list(): Promise<FundSourceView[]>;
  vaultBank(input: VaultBankInput): Promise<FundSourceView>;
  /** The token of the account's balance fund. */
  balanceToken(): string;
  /** A fund source of the account's own, by token (the balance included). */
  find(token: string): Promise<FundSourceView | undefined>;
  /** The account's first bank account: what an approval without fund_token uses. */
  defaultBank(): Promise<FundSourceView | undefined>;
}

export function createFundSources(deps: { core: EngineCore; account: Account; wallets: Wallets }): FundSources {
  const { core, account, wallets } = deps;
  // The balance has no verification state: its key is there, null.
  const balance = (): FundSourceView => ({ type: 'balance', token: `${account.profile().token}VB`.slice(0, 40), name: BALANCE_NAME, state: null });
  const view = (d: FundSourceData): FundSourceView => ({ type: 'bank_account', token: d.token, name: d.name, state: d.state });
  const banks = async () => (await recordsOfKind<FundSourceData>(core, FUND_SOURCE)).map((r) => r.data);

  return {
    async list() {
      return [...(await banks()).map(view), balance()];
    },
    async vaultBank(input) {
      const digits = input.account_number.replace(/[\s-]/g, '');
      const own = (await banks())[0]?.wallet;
      const bank_account = {
        account_holder: input.business_name,
        account_number: digits,
        ...(input.routing_number ? { routing_number: input.routing_number } : {}),
        ...(input.institution_number ? { institution_number: input.institution_number } : {}),
        ...(input.branch_number ? { branch_number: input.branch_number } : {}),
        ...(input.account_type ? { account_type: input.account_type } : {}),
        ...(input.currency ? { currency: input.currency } : {}),
        ...(input.nickname ? { nickname: input.nickname } : {}),
      };
      const profile = account.profile();
      const result = own
        ? await wallets.addMethods(own, { bank_account })
        : await wallets.create({ customer: { identifier: `ACCOUNT-${profile.token}`, name: profile.name }, bank_account });
      if (!result.fund_token) throw fail.internal('vault_failed', 'The bank account was not vaulted');
      const fundToken = result.fund_token;
      const data = await core.mutate(async (tx) => {
        const existing = await getRecord<FundSourceData>(tx, FUND_SOURCE, fundToken);
        if (existing) return existing.data;
        const made: FundSourceData = { token: fundToken, wallet: result.wallet_token, name: `${input.nickname ?? input.business_name} (${digits.slice(-4)})`, state: 'verified', created_at: tx.at };
        await putRecord(tx, FUND_SOURCE, fundToken, made, { type: 'fund_source.created', entity: 'fund_source', key: fundToken });
        return made;
      });
      return view(data);
    },
    balanceToken: () => balance().token,
    async find(token) {
      if (token === balance().token) return balance();
      const r = await getRecord<FundSourceData>(core, FUND_SOURCE, token);
      return r ? view(r.data) : undefined;
    },
    async defaultBank() {
      const first = (await banks())[0];
      return first ? view(first) : undefined;
    },
  };
}
