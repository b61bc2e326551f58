import type { EngineCore, Tx } from '../core';
import type { Account } from '../account';
import { fail } from '../errors';
import { DAY_MS } from '../clock';
import type { WalletMethodPatch, WalletMethodRequest, WalletRequest } from '../../shared/schemas/wallets';
import type { ContactInput, CreditCardInput } from '../../shared/schemas/gateway';
import {
  bankProblemMessage,
  cardProblemMessage,
  sandboxHelp,
  isExpired,
  parseBank,
  parseCard,
  parseMonth,
  parseYear,
  toAddress,
  type BankInputResult,
  type CardInputResult,
  type Keyer,
} from './instruments';
import { FUNDS, WALLETS, fundDoc, putWallet, type FundData, type FundDoc, type WalletData, type WalletDoc } from './records';
import type { ReceivablesPort } from './autopay-port';
import { walletView, type WalletView } from './views';

export type { FundData, FundDoc, WalletData, WalletDoc } from './records';
export type { WalletView } from './views';

export interface WalletResult {
  wallet_token: string;
  fund_token: string | null;
  wallets: WalletView[];
}

export interface VaultRequest {
  walletToken?: string;
  customer?: { identifier: string | null; name: string | null } | null;
  contact?: ContactInput | null;
  card?: CardInputResult;
  bank?: BankInputResult;
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

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);


export function createWallets(deps: { core: EngineCore; account: Account; keyer: Keyer; receivables: () => ReceivablesPort | undefined }): Wallets {
  const { core, account, keyer } = deps;
  const sandbox = () => account.profile().environment === 'sandbox';

  const cardInput: Wallets['parseCard'] = (input, options) =>
    parseCard(input, { keyer, now: core.clock.now(), timeZone: account.profile().timezone, sandbox: sandbox(), ...options });
  const bankInput: Wallets['parseBank'] = (input) => parseBank(input, { keyer, sandbox: sandbox(), defaultCurrency: account.profile().currency });

  /** Wallet checks refuse what the processor would: a vault holds only methods that can pay. */
  const vaultable = (input: WalletMethodRequest, options: { fileImport?: boolean } = {}): { card?: CardInputResult; bank?: BankInputResult } => {
    if (input.credit_card && input.bank_account) throw fail.precondition('payment_method_conflict', 'Send either credit_card or bank_account, not both');
    if ((input.credit_card || input.bank_account) && !sandbox()) {
      throw fail.unavailable('processor_unavailable', 'No payment processor is connected to this production install, so payment methods cannot be vaulted');
    }
    if (input.credit_card) {
      const checked = !input.credit_card.gateway_token && !options.fileImport;
      const card = cardInput(input.credit_card, { requireCvv: checked, requireAddress: checked });
      if (card.problem === 'expired') throw fail.precondition('card_expired', cardProblemMessage('expired', card.card));
      if (card.problem === 'luhn') throw fail.precondition('invalid_card_number', cardProblemMessage('luhn', card.card));
      if (card.problem === 'unknown') throw fail.precondition('card_unknown_to_sandbox', `${cardProblemMessage('unknown', card.card)}; ${sandboxHelp('card')}`);
      return { card };
    }
    if (input.bank_account) {
      const bank = bankInput(input.bank_account);
      if (bank.problem) throw fail.precondition('account_unknown_to_sandbox', `${bankProblemMessage(bank.bank)}; ${sandboxHelp('bank')}`);
      return { bank };
    }
    return {};
  };

  const putFund = (tx: Tx, data: FundData, created: boolean) =>
    tx.put(FUNDS, fundDoc(data), {
      type: created ? 'fund.created' : 'fund.updated',
      entity: 'fund',
      key: data.token,
      data: { wallet: data.wallet, kind: data.kind, locked: data.locked, inactive: data.inactive },
    });

  const vaultInTx: Wallets['vaultInTx'] = async (tx, request) => {
    let wallet: WalletData;
    let created = false;
    if (request.walletToken) {
      const doc = await tx.get<WalletDoc>(WALLETS, request.walletToken);
      if (!doc) throw fail.precondition('wallet_not_found', `No wallet ${request.walletToken}`);
      wallet = structuredClone(doc.data);
    } else {
      wallet = { token: core.ids.token(), customer: null, contacts: [], created_at: tx.at, updated_at: tx.at };
      created = true;
    }
    const customer = request.customer;
    if (customer && (customer.identifier || customer.name)) {
      const identifier = customer.identifier ?? `API-${core.ids.token()}`;
      if (wallet.customer && wallet.customer.identifier !== identifier) {
        throw fail.precondition('payment_method_conflict', `Wallet ${wallet.token} belongs to customer ${wallet.customer.identifier}`);
      }
      wallet.customer = { identifier, name: customer.name ?? wallet.customer?.name ?? null };
    }
    const email = str(request.contact?.email);
    if (email && !wallet.contacts.some((c) => c.email.toLowerCase() === email.toLowerCase())) {
      wallet.contacts.push({ email, first_name: str(request.contact?.first_name), last_name: str(request.contact?.last_name) });
    }

    let fund: FundData | null = null;
    const fingerprint = request.card?.card.fingerprint ?? request.bank?.bank.fingerprint ?? null;
    if (fingerprint && !created) {
      // The same card (same expiry) or account added again to a wallet answers the fund it already has.
      const existing = (await tx.find<FundDoc>(FUNDS, { selector: { wallet: wallet.token } })).map((d) => d.data);
      fund =
        existing.find(
          (f) =>
            !f.inactive &&
            ((f.card && request.card && f.card.fingerprint === fingerprint && f.card.expiry_month === request.card.card.expiry_month && f.card.expiry_year === request.card.card.expiry_year) ||
              (f.bank && f.bank.fingerprint === fingerprint)),
        ) ?? null;
    }
    const newFund = !fund && (request.card || request.bank);
    if (newFund) {
      const kind = request.card ? 'credit_card' : 'bank_account';
      fund = {
        token: `${request.card ? 'CC' : 'BA'}${core.ids.token()}`,
        wallet: wallet.token,
        kind,
        gateway_token: request.card?.gatewayToken ?? request.bank?.gatewayToken ?? core.ids.token().toLowerCase(),
        nickname: null,
        is_default: false,
        is_single_use: false,
        locked: false,
        inactive: false,
        card: request.card?.card ?? null,
        bank: request.bank?.bank ?? null,
        created_at: tx.at,
        updated_at: tx.at,
      };
    }
    wallet.updated_at = tx.at;
    await putWallet(tx, wallet, created);
    if (newFund && fund) await putFund(tx, fund, true);
    return { wallet, fund };
  };

  const walletCustomer = (input: WalletRequest['customer']) => {
    if (!input) return null;
    if (typeof input === 'string') return { identifier: input, name: null };
    return { identifier: str(input.identifier), name: str(input.name) };
  };

  const checkCustomer = async (customer: { identifier: string | null; name: string | null } | null) => {
    const port = deps.receivables();
    // A reference to an existing customer (identifier only) must exist; with a name, the wallet
    // may be created ahead of the customer's import.
    if (port && customer?.identifier && !customer.name && !(await port.customerExists(customer.identifier))) {
      throw fail.precondition('customer_not_found', `No customer ${customer.identifier}`);
    }
  };

  const requireWallets = () => account.require('wallets');

  const loadWallet = async (token: string) => {
    const doc = await core.get<WalletDoc>(WALLETS, token);
    if (!doc) throw fail.precondition('wallet_not_found', `No wallet ${token}`);
    return doc;
  };

  const exportPage = async (docs: WalletDoc[]) => Promise.all(docs.map(async (d) => ({ ...(await walletView(core, d.data)), watermark: d.watermark })));

  return {
    async create(input) {
      requireWallets();
      const methods = vaultable(input);
      const customer = walletCustomer(input.customer);
      await checkCustomer(customer);
      const walletToken = input.wallet ? (typeof input.wallet === 'string' ? input.wallet : input.wallet.token) : undefined;
      return core.mutate(async (tx) => {
        const { wallet, fund } = await vaultInTx(tx, { ...(walletToken ? { walletToken } : {}), customer, contact: input.contact ?? null, ...methods });
        return { wallet_token: wallet.token, fund_token: fund?.token ?? null, wallets: [await walletView(tx, wallet)] };
      });
    },

    async view(token) {
      requireWallets();
      const doc = await loadWallet(token);
      return walletView(core, doc.data);
    },

    async addMethods(token, input) {
      requireWallets();
      const methods = vaultable(input);
      if (!methods.card && !methods.bank) throw fail.precondition('payment_method_not_found', 'Send a credit_card or a bank_account to add');
      return core.mutate(async (tx) => {
        const { wallet, fund } = await vaultInTx(tx, { walletToken: token, ...methods });
        return { wallet_token: wallet.token, fund_token: fund?.token ?? null, wallets: [await walletView(tx, wallet)] };
      });
    },

    async updateMethod(walletToken, fundToken, patch) {
      requireWallets();
      return core.mutate(async (tx) => {
        const doc = await tx.get<FundDoc>(FUNDS, fundToken);
        if (!doc || doc.data.wallet !== walletToken || doc.data.inactive) throw fail.precondition('payment_method_not_found', `No payment method ${fundToken} in wallet ${walletToken}`);
        const f = structuredClone(doc.data);
        const common = f.card ? patch.credit_card : patch.bank_account;
        if (!common) throw fail.precondition('payment_method_not_found', `Payment method ${fundToken} is a ${f.kind}: send a ${f.kind} patch`);
        if (common.nickname !== undefined) f.nickname = common.nickname ?? null;
        if (common.locked !== undefined) f.locked = common.locked;
        if (common.is_default !== undefined) f.is_default = common.is_default;
        if (common.is_single_use !== undefined) f.is_single_use = common.is_single_use;
        if (f.card && patch.credit_card) {
          const p = patch.credit_card;
          if (p.name !== undefined) f.card.cardholder = str(p.name);
          if (p.expiry_month !== undefined || p.expiry_year !== undefined) {
            const month = p.expiry_month !== undefined ? parseMonth(p.expiry_month) : f.card.expiry_month;
            const year = p.expiry_year !== undefined ? parseYear(p.expiry_year) : f.card.expiry_year;
            if (month === undefined || year === undefined) throw fail.precondition('expiry_unspecified', 'credit_card.expiry_month must be 1..12 and expiry_year YYYY');
            if (isExpired(month, year, tx.now, account.profile().timezone)) throw fail.precondition('card_expired', `The new expiry ${month}/${year} has passed`);
            f.card.expiry_month = month;
            f.card.expiry_year = year;
          }
          if (p.address !== undefined) f.card.address = toAddress(p.address);
        }
        if (f.bank && patch.bank_account) {
          const p = patch.bank_account;
          if (p.account_holder !== undefined) f.bank.account_holder = str(p.account_holder) ?? f.bank.account_holder;
          if (p.account_type !== undefined) f.bank.account_type = p.account_type;
          if (p.check_type !== undefined) f.bank.check_type = p.check_type;
          if (p.external_name !== undefined) f.bank.external_name = str(p.external_name);
          if (p.external_number !== undefined) f.bank.external_number = str(p.external_number);
          if (p.address !== undefined) f.bank.address = toAddress(p.address);
        }
        f.updated_at = tx.at;
        await putFund(tx, f, false);
        await touchWallet(tx, walletToken);
        return { fund_token: f.token };
      });
    },

    async removeMethod(walletToken, fundToken) {
      requireWallets();
      return core.mutate(async (tx) => {
        const doc = await tx.get<FundDoc>(FUNDS, fundToken);
        if (!doc || doc.data.wallet !== walletToken) throw fail.precondition('payment_method_not_found', `No payment method ${fundToken} in wallet ${walletToken}`);
        if (doc.data.inactive) throw fail.precondition('payment_method_inactive', `Payment method ${fundToken} was already removed`);
        // Kept (inactive) so past transactions still name it; it can no longer pay.
        await putFund(tx, { ...doc.data, inactive: true, updated_at: tx.at }, false);
        await touchWallet(tx, walletToken);
        return { fund_token: fundToken };
      });
    },

    async search(type, locator) {
      requireWallets();
      let docs: WalletDoc[];
      if (type === 'customer') docs = await core.find<WalletDoc>(WALLETS, { selector: { customer: locator }, sort: [{ customer: 'asc' }, { id: 'asc' }] });
      else if (type === 'email') docs = await core.find<WalletDoc>(WALLETS, { selector: { email: locator.toLowerCase() }, sort: [{ email: 'asc' }, { id: 'asc' }] });
      else {
        const fund = type === 'fund' ? await core.get<FundDoc>(FUNDS, locator) : (await core.find<FundDoc>(FUNDS, { selector: { vault: locator }, limit: 1 }))[0];
        const wallet = fund && !fund.data.inactive ? await core.get<WalletDoc>(WALLETS, fund.data.wallet) : undefined;
        docs = wallet ? [wallet] : [];
      }
      return Promise.all(docs.map((d) => walletView(core, d.data)));
    },

    async exportWallets(page) {
      requireWallets();
      return exportPage(await core.find<WalletDoc>(WALLETS, { selector: { watermark: { $gt: page.after } }, sort: [{ watermark: 'asc' }], limit: page.limit }));
    },

    async exportRecent(page) {
      requireWallets();
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
      return exportPage(out);
    },

    parseCard: cardInput,
    parseBank: bankInput,

    async fundInTx(tx, token) {
      return (await tx.get<FundDoc>(FUNDS, token))?.data;
    },

    vaultInTx,

    async importCardInTx(tx, input) {
      requireWallets();
      const { card } = vaultable({ credit_card: input.credit_card }, { fileImport: true });
      const [existing] = await tx.find<WalletDoc>(WALLETS, { selector: { customer: input.customer.identifier }, sort: [{ customer: 'asc' }, { id: 'asc' }], limit: 1 });
      const { wallet, fund } = await vaultInTx(tx, { ...(existing ? { walletToken: existing.id } : {}), customer: input.customer, ...(card ? { card } : {}) });
      if (!fund) throw fail.internal('card_not_vaulted', 'the card was not vaulted');
      return { wallet_token: wallet.token, fund_token: fund.token, vault_token: fund.gateway_token };
    },
  };

  async function touchWallet(tx: Tx, token: string) {
    const w = await tx.get<WalletDoc>(WALLETS, token);
    if (w) await putWallet(tx, { ...w.data, updated_at: tx.at }, false);
  }
}
