import type { EngineCore, Tx } from '../core';
import { TRANSACTIONS, type TxDoc } from '../gateway/transaction-record';
import type { Address } from './instruments';
import { FUNDS, type FundData, type FundDoc, type WalletData } from './records';
import { fundDisplay } from './fund-state';

/** The reference's Wallet, CreditCard and BankAccount views. */
export interface WalletView {
  token: string;
  credit_cards: Array<Record<string, unknown>>;
  bank_accounts: Array<Record<string, unknown>>;
  customers: Array<{ identifier: string; name: string | null; contacts: Array<{ email: string }> }>;
  created_at: string;
  updated_at: string;
}

function addressView(a: Address) {
  return {
    address_1: a.address_1,
    address_2: a.address_2,
    city: a.city,
    state: a.province,
    province: a.province,
    country: a.country,
    zip: a.postal_code,
    postal_code: a.postal_code,
  };
}

const lastActivity = async (reader: Tx | EngineCore, fund: string) => {
  const [last] = await reader.find<TxDoc>(TRANSACTIONS, { selector: { fund }, sort: [{ fund: 'asc' }, { recency: 'asc' }], limit: 1 });
  return last?.data;
};

export const methodView = async (reader: Tx | EngineCore, f: FundData): Promise<Record<string, unknown>> => {
  const last = await lastActivity(reader, f.token);
  const common = {
    token: f.token,
    gateway_token: f.gateway_token,
    nickname: f.nickname,
    is_default: f.is_default,
    is_single_use: f.is_single_use,
    created: f.created_at,
    locked: f.locked,
    inactive: f.inactive,
    last_transaction_date: last?.created_at ?? null,
    last_transaction: last?.token ?? null,
    last_payment: last?.payments[0]?.identifier ?? null,
  };
  if (f.card) {
    const c = f.card;
    const display = fundDisplay(f);
    return {
      ...common,
      cardholder: c.cardholder,
      card_number: display,
      display_name: display,
      expiry_month: c.expiry_month,
      expiry_year: c.expiry_year,
      is_debit: false,
      brand: c.brand,
      bin: c.bin,
      last_4_digits: c.last4,
      address: addressView(c.address),
    };
  }
  const b = f.bank!;
  return {
    ...common,
    account_holder: b.account_holder,
    account_number: fundDisplay(f),
    display_name: fundDisplay(f),
    routing_number: b.routing_number,
    institution_number: b.institution_number,
    branch_number: b.branch_number,
    account_type: b.account_type,
    check_type: b.check_type,
    external_name: b.external_name,
    external_number: b.external_number,
    currency: b.currency,
    domicile: b.country,
    state: 'verified',
    address: addressView(b.address),
  };
};

export const walletView = async (reader: Tx | EngineCore, w: WalletData): Promise<WalletView> => {
  const funds = (await reader.find<FundDoc>(FUNDS, { selector: { wallet: w.token }, sort: [{ wallet: 'asc' }, { id: 'asc' }] }))
    .map((d) => d.data)
    .filter((f) => !f.inactive)
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.token.localeCompare(b.token));
  const credit_cards: Array<Record<string, unknown>> = [];
  const bank_accounts: Array<Record<string, unknown>> = [];
  for (const f of funds) (f.card ? credit_cards : bank_accounts).push(await methodView(reader, f));
  return {
    token: w.token,
    credit_cards,
    bank_accounts,
    customers: w.customer ? [{ identifier: w.customer.identifier, name: w.customer.name, contacts: w.contacts.map((c) => ({ email: c.email })) }] : [],
    created_at: w.created_at,
    updated_at: w.updated_at,
  };
};

