import { fail } from '../errors';
import type { Wallets } from '../wallets';
import type { FundSources } from './fund-sources';

/**
 * The fund a request or a debit agreement of the person at `email` is paid from: the account's own
 * fund (answered), or a vaulted method in a wallet of that person (the wallet's e-mail, or a contact
 * of its customer), never another customer's card: approving with any vaulted token charged
 * whichever customer held it. `whose` says who the person is, for the refusal.
 */
export async function payingFund(wallets: Wallets, funds: FundSources, fund: string, email: string, whose: string): Promise<{ name: string } | undefined> {
  const own = await funds.find(fund);
  if (own) return own;
  const wallet = (await wallets.search('fund', fund))[0];
  if (!wallet) throw fail.precondition('fund_not_found', `No fund ${fund}`);
  const lower = email.toLowerCase();
  const theirs = new Set((await wallets.search('email', email)).map((w) => w.token));
  if (theirs.has(wallet.token) || wallet.customers.some((c) => c.contacts.some((contact) => contact.email.toLowerCase() === lower))) return undefined;
  throw fail.precondition('fund_not_authorized', `Payment method ${fund} is not in a wallet of ${email}, whom ${whose}`);
}
