import type { EngineCore } from '../core';
import type { Account } from '../account';
import type { Gateway } from '../gateway';
import type { Wallets } from '../wallets';
import { createFundSources, type FundSources } from './fund-sources';
import { createDebitAgreements, type DebitAgreements } from './agreements';
import { createPayportTransactions, type PayportTransactions } from './transactions';

export type { FundSources } from './fund-sources';
export type { DebitAgreements } from './agreements';
export type { PayportTransactions } from './transactions';

/**
 * The reference's Fund Sources, Transactions and Agreements: the account's own funds, money
 * requested or sent by email, and pre-authorized debit agreements. Built on the wallets (vaulting)
 * and the gateway (every movement of money is an order transaction of the sandbox processor).
 */
export interface Payport {
  funds: FundSources;
  transactions: PayportTransactions;
  agreements: DebitAgreements;
}

export function createPayport(deps: { core: EngineCore; account: Account; gateway: Gateway; wallets: Wallets }): Payport {
  const funds = createFundSources(deps);
  const agreements = createDebitAgreements({ ...deps, funds });
  const transactions = createPayportTransactions({ ...deps, funds, agreements });
  return { funds, transactions, agreements };
}
