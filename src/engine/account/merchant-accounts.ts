import type { EngineCore, Tx } from '../core';
import { getRecord, putRecord } from '../records';
import { defaultProfile, type AccountProfile, type Capabilities } from './profile';

/**
 * Sandbox merchant accounts made by approved onboarding applications (records kind
 * `merchant_account`). The install serves one supplier account (`ACCOUNT_KEY`): its data (customers,
 * invoices, wallets, sales) has no owner column, so a second account cannot share it without
 * seeing it. A merchant account is therefore hosted as an identity only: its credentials
 * (credential kind `merchant`, `account` = its token) authenticate and answer GET /api/whoami
 * with the merchant's own profile, and every other operation refuses them (403
 * `account_not_hosted`, see the server's route gate) until the install hosts accounts' data apart.
 */
export interface MerchantAccount {
  token: string;
  name: string;
  legal_name: string;
  application_token: string;
  external_link: string | null;
  currency: AccountProfile['currency'];
  created_at: string;
}

export const MERCHANT_ACCOUNT = 'merchant_account';

export async function putMerchantAccountInTx(tx: Tx, account: MerchantAccount): Promise<void> {
  await putRecord(tx, MERCHANT_ACCOUNT, account.token, account, { type: 'merchant_account.created', entity: 'merchant_account', key: account.token }, account.application_token);
}

/** A hosted merchant account as an account profile (whoami): sandbox, no optional capability on. */
export async function merchantProfile(core: EngineCore, token: string, timezone: string): Promise<AccountProfile | undefined> {
  const m = (await getRecord<MerchantAccount>(core, MERCHANT_ACCOUNT, token))?.data;
  if (!m) return undefined;
  const base = defaultProfile(m.token, m.created_at, timezone);
  const capabilities = Object.fromEntries(Object.keys(base.capabilities).map((c) => [c, false])) as Capabilities;
  return { ...base, name: m.name, sender_identifier: m.token.toLowerCase(), currency: m.currency, external_link: m.external_link, capabilities };
}
