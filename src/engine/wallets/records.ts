import type { StoredDoc } from '../../store/schema';
import type { Tx } from '../core';
import type { StoredBank, StoredCard } from './instruments';

/** A wallet: a customer's (or a ghost's) set of vaulted payment methods. */
export interface WalletData {
  token: string;
  customer: { identifier: string; name: string | null } | null;
  contacts: Array<{ email: string; first_name: string | null; last_name: string | null }>;
  created_at: string;
  updated_at: string;
}

export interface WalletRow {
  id: string;
  customer: string;
  email: string;
  updated_ms: number;
  data: WalletData;
}

export interface WalletDoc extends StoredDoc, WalletRow {}

/** A payment method in a wallet. Never a full card or account number (DESIGN rule 5). */
export interface FundData {
  token: string;
  wallet: string;
  kind: 'credit_card' | 'bank_account';
  /** The vault token (the reference's gateway_token), searchable with type `vault`. */
  gateway_token: string;
  nickname: string | null;
  is_default: boolean;
  is_single_use: boolean;
  locked: boolean;
  inactive: boolean;
  card: StoredCard | null;
  bank: StoredBank | null;
  created_at: string;
  updated_at: string;
}

export interface FundRow {
  id: string;
  wallet: string;
  vault: string;
  data: FundData;
}

export interface FundDoc extends StoredDoc, FundRow {}

export const WALLETS = 'wallets';
export const FUNDS = 'funds';

export function walletDoc(data: WalletData, nowMs: number): WalletRow {
  return {
    id: data.token,
    customer: data.customer?.identifier ?? '',
    email: (data.contacts[0]?.email ?? '').toLowerCase().slice(0, 200),
    updated_ms: nowMs,
    data,
  };
}

/** Stores a wallet, with its event. */
export const putWallet = (tx: Tx, data: WalletData, created: boolean) =>
  tx.put(WALLETS, walletDoc(data, tx.now), { type: created ? 'wallet.created' : 'wallet.updated', entity: 'wallet', key: data.token });

export function fundDoc(data: FundData): FundRow {
  return { id: data.token, wallet: data.wallet, vault: data.gateway_token, data };
}

/** How a fund shows its card: `Visa **0006`. */
export function cardDisplay(brandName: string, last4: string): string {
  return `${brandName} **${last4}`;
}

/** Stores a payment method, with its event. */
export const putFund = (tx: Tx, data: FundData, created: boolean) =>
  tx.put(FUNDS, fundDoc(data), {
    type: created ? 'fund.created' : 'fund.updated',
    entity: 'fund',
    key: data.token,
    data: { wallet: data.wallet, kind: data.kind, locked: data.locked, inactive: data.inactive },
  });

/** Marks a wallet updated (one of its methods changed). */
export async function touchWallet(tx: Tx, token: string): Promise<void> {
  const w = await tx.get<WalletDoc>(WALLETS, token);
  if (w) await putWallet(tx, { ...w.data, updated_at: tx.at }, false);
}
