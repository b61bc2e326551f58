import type { EngineCore, Tx } from '../core';
import { fail, notFound } from '../errors';
import { DAY_MS } from '../clock';
import type { WalletMethodPatch, WalletMethodRequest, WalletRequest } from '../../shared/schemas/wallets';
import type { CreditCardInput, MethodSettings } from '../../shared/schemas/gateway';
import type { parseBank, parseCard, BankInputResult, CardInputResult } from './instruments';
import { FUNDS, WALLETS, type FundData, type FundDoc, type WalletData, type WalletDoc } from './records';
import { bankInput, cardInput, str, vaultableMethods, vaultInTx, walletsContext, type VaultRequest, type WalletsContext, type WalletsDeps } from './vault';
import { removeMethodInTx, updateMethodInTx } from './method-updates';
import { walletView, type WalletView } from './views';

export type { FundData, FundDoc, WalletData, WalletDoc } from './records';
export type { WalletView } from './views';
export type { VaultRequest, WalletsDeps } from './vault';

export interface WalletResult {
  wallet_token: string;
  fund_token: string | null;
  wallets: WalletView[];
}

export interface Wallets {
  create(input: WalletRequest): Promise<WalletResult>;
  view(token: string): Promise<WalletView>;
  addMethods(token: string, input: WalletMethodRequest): Promise<WalletResult>;
  updateMethod(walletToken: string, fundToken: string, patch: WalletMethodPatch): Promise<{ fund_token: string }>;
  removeMethod(walletToken: string, fundToken: string): Promise<{ fund_token: string }>;
  search(type: 'email' | 'customer' | 'fund' | 'vault', locator: string): Promise<WalletView[]>;
  exportWallets(page: { after: number; limit: number }): Promise<Array<WalletView & { watermark: number }>>;
  exportRecent(page: { after: number; limit: number }): Promise<Array<WalletView & { watermark: number }>>;
  /** Parses a card for vaulting or paying (throws precondition errors naming the field). */
  parseCard(input: Parameters<typeof parseCard>[0], options: { requireCvv: boolean; requireAddress: boolean }): CardInputResult;
  parseBank(input: Parameters<typeof parseBank>[0]): BankInputResult;
  /** Inside a unit of work: the fund and its wallet. */
  fundInTx(tx: Tx, token: string): Promise<FundData | undefined>;
  /** Inside a unit of work: vaults a card or bank account (two puts: wallet, fund). */
  vaultInTx(tx: Tx, request: VaultRequest): Promise<{ wallet: WalletData; fund: FundData | null }>;
  /**
   * Inside a unit of work: a card of a file import (no CVV: the reference's fund import), vaulted
   * into the customer's wallet (made for the first of its cards), checked as a wallet's card is.
   */
  importCardInTx(tx: Tx, input: { customer: { identifier: string; name: string | null }; credit_card: CreditCardInput }): Promise<{ wallet_token: string; fund_token: string; vault_token: string }>;
}

export function createWallets(deps: WalletsDeps): Wallets {
  const ctx = walletsContext(deps);
  const { core, account } = ctx;
  const requireWallets = () => account.require('wallets');

  return {
    async create(input) {
      requireWallets();
      const methods = vaultableMethods(ctx, input);
      const customer = await checkCustomer(ctx, walletCustomer(input.customer));
      const walletToken = input.wallet ? (typeof input.wallet === 'string' ? input.wallet : input.wallet.token) : undefined;
      return core.mutate(async (tx) => {
        const { wallet, fund } = await vaultInTx(ctx, tx, { ...(walletToken ? { walletToken } : {}), customer, contact: input.contact ?? null, ...methods, ...methodSettingsOf(input) });
        return { wallet_token: wallet.token, fund_token: fund?.token ?? null, wallets: [await walletView(tx, wallet)] };
      });
    },

    async view(token) {
      requireWallets();
      const doc = await loadWallet(core, token);
      return walletView(core, doc.data);
    },

    async addMethods(token, input) {
      requireWallets();
      const methods = vaultableMethods(ctx, input);
      if (!methods.card && !methods.bank) throw notFound('payment_method_not_found', 'Send a credit_card or a bank_account to add', 'precondition');
      return core.mutate(async (tx) => {
        const { wallet, fund } = await vaultInTx(ctx, tx, { walletToken: token, ...methods, ...methodSettingsOf(input) });
        return { wallet_token: wallet.token, fund_token: fund?.token ?? null, wallets: [await walletView(tx, wallet)] };
      });
    },

    async updateMethod(walletToken, fundToken, patch) {
      requireWallets();
      return core.mutate((tx) => updateMethodInTx(ctx, tx, walletToken, fundToken, patch));
    },

    async removeMethod(walletToken, fundToken) {
      requireWallets();
      return core.mutate((tx) => removeMethodInTx(tx, walletToken, fundToken));
    },

    async search(type, locator) {
      requireWallets();
      return searchWallets(core, type, locator);
    },

    async exportWallets(page) {
      requireWallets();
      return exportPage(core, await core.find<WalletDoc>(WALLETS, { selector: { watermark: { $gt: page.after } }, sort: [{ watermark: 'asc' }], limit: page.limit }));
    },

    async exportRecent(page) {
      requireWallets();
      return exportPage(core, await recentWallets(core, page));
    },

    parseCard: (input, options) => cardInput(ctx, input, options),
    parseBank: (input) => bankInput(ctx, input),

    async fundInTx(tx, token) {
      return (await tx.get<FundDoc>(FUNDS, token))?.data;
    },

    vaultInTx: (tx, request) => vaultInTx(ctx, tx, request),

    async importCardInTx(tx, input) {
      requireWallets();
      const { card } = vaultableMethods(ctx, { credit_card: input.credit_card }, { fileImport: true });
      const [existing] = await tx.find<WalletDoc>(WALLETS, { selector: { customer: input.customer.identifier }, sort: [{ customer: 'asc' }, { id: 'asc' }], limit: 1 });
      const { wallet, fund } = await vaultInTx(ctx, tx, { ...(existing ? { walletToken: existing.id } : {}), customer: input.customer, ...(card ? { card } : {}) });
      if (!fund) throw fail.internal('card_not_vaulted', 'the card was not vaulted');
      return { wallet_token: wallet.token, fund_token: fund.token, vault_token: fund.gateway_token };
    },
  };
}

/** The settings sent with the request's card or account (only one of them can be sent). */
function methodSettingsOf(input: WalletMethodRequest): { settings?: MethodSettings } {
  const method = input.credit_card ?? input.bank_account;
  if (!method) return {};
  const { nickname, locked, is_default, is_single_use } = method;
  return { settings: { nickname, locked, is_default, is_single_use } };
}

function walletCustomer(input: WalletRequest['customer']) {
  if (!input) return null;
  if (typeof input === 'string') return { identifier: input, name: null };
  return { identifier: str(input.identifier), name: str(input.name) };
}

/**
 * A reference to an existing customer (identifier only) must exist, and the wallet takes its name
 * (a wallet made with `{"identifier":"C1234"}` showed `name: null` where one made with the name
 * showed it); with a name, the wallet may be created ahead of the customer's import.
 */
async function checkCustomer<C extends { identifier: string | null; name: string | null } | null>(ctx: WalletsContext, customer: C): Promise<C> {
  const port = ctx.receivables();
  if (!port || !customer?.identifier || customer.name) return customer;
  const name = await port.customerName(customer.identifier);
  if (name === undefined) throw notFound('customer_not_found', `No customer ${customer.identifier}`, 'precondition');
  return { ...customer, name };
}

async function loadWallet(core: EngineCore, token: string): Promise<WalletDoc> {
  const doc = await core.get<WalletDoc>(WALLETS, token);
  if (!doc) throw notFound('wallet_not_found', `No wallet ${token}`, 'precondition');
  return doc;
}

const exportPage = async (core: EngineCore, docs: WalletDoc[]) => Promise.all(docs.map(async (d) => ({ ...(await walletView(core, d.data)), watermark: d.watermark })));

async function searchWallets(core: EngineCore, type: 'email' | 'customer' | 'fund' | 'vault', locator: string): Promise<WalletView[]> {
  let docs: WalletDoc[];
  if (type === 'customer') docs = await core.find<WalletDoc>(WALLETS, { selector: { customer: locator }, sort: [{ customer: 'asc' }, { id: 'asc' }] });
  else if (type === 'email') docs = await core.find<WalletDoc>(WALLETS, { selector: { email: locator.toLowerCase() }, sort: [{ email: 'asc' }, { id: 'asc' }] });
  else {
    const fund = type === 'fund' ? await core.get<FundDoc>(FUNDS, locator) : (await core.find<FundDoc>(FUNDS, { selector: { vault: locator }, limit: 1 }))[0];
    const wallet = fund && !fund.data.inactive ? await core.get<WalletDoc>(WALLETS, fund.data.wallet) : undefined;
    docs = wallet ? [wallet] : [];
  }
  return Promise.all(docs.map((d) => walletView(core, d.data)));
}

/** Wallets updated in the last 7 days, by watermark. */
async function recentWallets(core: EngineCore, page: { after: number; limit: number }): Promise<WalletDoc[]> {
  const since = core.clock.now() - 7 * DAY_MS;
  // Wallet watermarks and update times grow together, so the oldest wallet updated in the
  // window bounds the watermark range to read; the filter keeps the page exact regardless.
  const [first] = await core.find<WalletDoc>(WALLETS, { selector: { updated_ms: { $gte: since } }, sort: [{ updated_ms: 'asc' }], limit: 1 });
  if (!first) return [];
  const after = Math.max(page.after, first.watermark - 1);
  const out: WalletDoc[] = [];
  let cursor = after;
  for (;;) {
    const chunk = await core.find<WalletDoc>(WALLETS, { selector: { watermark: { $gt: cursor } }, sort: [{ watermark: 'asc' }], limit: 500 });
    for (const d of chunk) if (d.updated_ms >= since && out.length < page.limit) out.push(d);
    if (out.length >= page.limit || chunk.length < 500) break;
    cursor = chunk[chunk.length - 1]!.watermark;
  }
  return out;
}
