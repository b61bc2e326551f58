import type { EngineCore } from '../core';
import type { Account } from '../account';
import { fail } from '../errors';
import type { Orders } from '../orders';
import type { Wallets } from '../wallets';
import type { GiftCards } from '../wallets/gift-cards';
import type { Gateway } from '../gateway';
import { getRecord } from '../records';
import type { ApplePayMerchantSession, ApplePayValidationRequest, CreditCardTokenUpdate, SessionOptions, SessionView, TokenRequest } from '../../shared/schemas/ecommerce';
import { SESSION_TTL_MS, TOKEN, loadSession, putSession, sessionView, type TokenData } from './sessions';
import { createSalesFlow, type SalesFlow } from './payments';
import { toMinor } from './sales';
import { createTokenizer } from './tokens';
import { createWalletEntries } from './wallet-entries';
import { simulatedMerchantSession } from './apple-pay';
import { allowedOrigins, implicitOrigins, readSettings, writeSettings, type EcommerceSettingsData } from './settings';

export { SESSION_TTL_MS } from './sessions';
export type { SaleOutcome } from './payments';

export interface Ecommerce extends SalesFlow {
  createSession(options: SessionOptions, actor: string): Promise<{ id: string }>;
  session(id: string): Promise<SessionView>;
  /** The frame's tokenization: the number is used once (vaulted as brand, last four and fingerprint). */
  createToken(id: string, request: TokenRequest): Promise<{ token: string }>;
  createWallet(): Promise<{ walletId: string }>;
  updateWalletMethod(id: string, walletId: string, fundId: string, kind: 'credit_card' | 'bank_account', patch: CreditCardTokenUpdate): Promise<void>;
  deleteWalletMethod(id: string, walletId: string, fundId: string, kind: 'credit_card' | 'bank_account'): Promise<void>;
  giftCardBalance(id: string, token: string): Promise<{ balance: number }>;
  applePayMerchantSession(id: string, request: ApplePayValidationRequest): Promise<ApplePayMerchantSession>;
  settings(): Promise<EcommerceSettingsData>;
  setSettings(settings: EcommerceSettingsData): Promise<EcommerceSettingsData>;
  /** What this environment allows besides the setting (the sandbox's localhost), for a screen to say so. */
  sandboxOrigins(): string[];
  /** The origins whose pages may frame the payment page (CSP frame-ancestors). */
  frameAncestors(): Promise<string[]>;
}

/** A version 4 UUID from 16 random bytes (the reference's session ids are UUIDs). */
function uuidOf(hex: string): string {
  const b = hex.slice(0, 32).split('');
  b[12] = '4';
  b[16] = '89ab'[parseInt(b[16] ?? '0', 16) & 3]!;
  const s = b.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20, 32)}`;
}

export function createEcommerce(deps: { core: EngineCore; account: Account; orders: Orders; wallets: Wallets; giftCards: GiftCards; gateway: Gateway }): Ecommerce {
  const { core, account, wallets, giftCards } = deps;
  const now = () => core.clock.now();
  const sandbox = () => account.profile().environment === 'sandbox';
  const alive = (id: string) => loadSession(core, id, now());

  const resolveWallet = async (options: SessionOptions): Promise<string | null> => {
    const w = options.wallet;
    if (!w) return null;
    if (w.id) {
      await wallets.view(w.id).catch(() => {
        throw fail.invalid('wallet_not_found', `No wallet ${w.id}`, [{ field: '/options/wallet/id', message: `No wallet ${w.id}` }]);
      });
      return w.id;
    }
    if (w.customerId) {
      const [found] = await wallets.search('customer', w.customerId);
      if (found) return found.token;
      const created = await wallets.create({ customer: { identifier: w.customerId, name: w.customerId } });
      return created.wallet_token;
    }
    return null;
  };

  const flow = createSalesFlow({ ...deps, alive });
  const tokenizer = createTokenizer({ ...deps, alive });
  const entries = createWalletEntries({ ...deps, alive });

  return {
    ...flow,

    async createSession(options, actor) {
      account.require('orders');
      // The amount the frame will pass on to a sale: the sales' own money rule (the currency's
      // decimals, more than zero), so that a session never offers an amount its sale refuses.
      const currency = account.profile().currency.toUpperCase();
      if (options.amount !== undefined) {
        if (toMinor(options.amount, currency, '/options/amount') <= 0) throw fail.invalid('invalid_amount', 'options.amount must be more than zero', [{ field: '/options/amount', message: 'options.amount must be more than zero' }]);
      }
      // The frame shows amounts in the session's currency, and a sale is charged in the account's:
      // they are one, so a buyer never reads euros where dollars are taken.
      if (options.currency !== undefined && options.currency !== currency) {
        const message = `options.currency must be the account's currency, ${currency}: sales here are charged in it`;
        throw fail.invalid('currency_mismatch', message, [{ field: '/options/currency', message }]);
      }
      options = { ...options, currency };
      const wallet = await resolveWallet(options);
      return core.mutate(async (tx) => {
        const id = uuidOf(core.ids.secret(16));
        await putSession(tx, { id, options, wallet, created_by: actor, created_at: tx.at, expires_ms: tx.now + SESSION_TTL_MS });
        return { id };
      });
    },

    async session(id) {
      return sessionView(core, await alive(id), account.profile().environment);
    },

    createToken: tokenizer,

    async createWallet() {
      const created = await wallets.create({});
      return { walletId: created.wallet_token };
    },

    ...entries,

    async giftCardBalance(id, token) {
      const s = await alive(id);
      const issued = await getRecord<TokenData>(core, TOKEN, token);
      if (!issued || issued.data.session !== s.id || issued.data.type !== 'giftCard') throw fail.notFound('gift_card_not_found', `No gift card ${token} on this session`);
      const card = await giftCards.view(token);
      return { balance: flow.decimalOf(card.balance, card.currency) };
    },

    async applePayMerchantSession(id, request) {
      await alive(id);
      return simulatedMerchantSession({ sandbox: sandbox(), now: now(), ids: core.ids, storeName: account.profile().name }, request);
    },

    settings: () => readSettings(core),
    setSettings: (settings) => core.mutate((tx) => writeSettings(tx, settings)),
    sandboxOrigins: () => implicitOrigins(sandbox()),
    async frameAncestors() {
      return allowedOrigins(await readSettings(core), sandbox());
    },
  };
}
