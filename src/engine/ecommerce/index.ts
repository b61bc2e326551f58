import type { EngineCore } from '../core';
import type { Account } from '../account';
import { fail } from '../errors';
import type { Orders } from '../orders';
import type { Wallets } from '../wallets';
import type { GiftCards } from '../wallets/gift-cards';
import type { Gateway } from '../gateway';
import { cardProblemMessage, bankProblemMessage } from '../wallets/instruments';
import { FUNDS, type FundDoc } from '../wallets/records';
import { getRecord } from '../records';
import type { ApplePayMerchantSession, ApplePayValidationRequest, CreditCardTokenUpdate, SessionOptions, SessionView, TokenRequest } from '../../shared/schemas/ecommerce';
import { SESSION_TTL_MS, TOKEN, loadSession, paymentTypesOf, putSession, putToken, sessionView, type SessionData, type TokenData } from './sessions';
import { createSalesFlow, type SalesFlow } from './payments';
import { allowedOrigins, readSettings, writeSettings, type EcommerceSettingsData } from './settings';

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

  const sessionWalletFund = async (s: SessionData, walletId: string, fundId: string, kind: 'credit_card' | 'bank_account', allow: 'allowEdit' | 'allowDelete') => {
    if (!s.wallet || s.wallet !== walletId) throw fail.notFound('wallet_not_found', `Wallet ${walletId} is not this session's wallet`);
    if (s.options.wallet?.[allow] !== true) throw fail.forbidden('wallet_change_not_allowed', `This session's options do not allow ${allow === 'allowEdit' ? 'editing' : 'removing'} wallet entries (wallet.${allow})`);
    const fund = (await core.get<FundDoc>(FUNDS, fundId))?.data;
    if (!fund || fund.wallet !== walletId || fund.kind !== kind || fund.inactive) throw fail.notFound('payment_method_not_found', `No ${kind.replace('_', ' ')} ${fundId} in wallet ${walletId}`);
    if (s.options.wallet?.tokens?.length && !s.options.wallet.tokens.includes(fundId)) throw fail.forbidden('wallet_change_not_allowed', `Payment method ${fundId} is not offered on this session`);
  };

  const flow = createSalesFlow({ ...deps, alive });

  return {
    ...flow,

    async createSession(options, actor) {
      account.require('orders');
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

    async createToken(id, request) {
      const s = await alive(id);
      if (!paymentTypesOf(s.options).some((t) => t.name === request.type)) {
        throw fail.forbidden('payment_type_not_allowed', `This session does not take ${request.type}`);
      }
      if (request.type === 'applePay') throw fail.invalid('apple_pay_not_tokenized', 'Apple Pay payments are sent with the sale (applePayPayment), not tokenized here', [{ field: '/type', message: 'applePay is not tokenized' }]);
      if (!sandbox()) throw fail.gateway('processor_unavailable', 'No payment processor is connected to this production install, so nothing can be tokenized');
      const need = (field: keyof TokenRequest) => {
        if (request[field] === undefined) throw fail.invalid('field_unspecified', `${field} is required for ${request.type}`, [{ field: `/${field}`, message: `${field} is required` }]);
      };
      const intoWallet = request.addToWallet === true && s.wallet && s.options.wallet?.allowAdd !== false ? s.wallet : undefined;
      if (request.type === 'giftCard') return giftToken(s, request, need);
      need('accountNumber');
      if (request.type === 'creditCard') {
        need('expirationMonth');
        need('expirationYear');
        const input = wallets.parseCard(
          { name: request.accountHolder ?? 'Cardholder', card_number: request.accountNumber!, expiry_month: request.expirationMonth!, expiry_year: request.expirationYear!, cvv: request.cardVerificationValue ?? null },
          { requireCvv: true, requireAddress: false },
        );
        if (input.problem) throw fail.precondition(`card_${input.problem}`, cardProblemMessage(input.problem, input.card));
        return core.mutate(async (tx) => {
          const { fund } = await wallets.vaultInTx(tx, { ...(intoWallet ? { walletToken: intoWallet } : {}), card: input });
          await putToken(tx, { token: fund!.token, session: s.id, type: 'creditCard', last4: input.card.last4, brand: input.card.brand, created_at: tx.at });
          return { token: fund!.token };
        });
      }
      need('routingNumber');
      const bank = wallets.parseBank({
        account_number: request.accountNumber!,
        routing_number: request.routingNumber!,
        account_type: request.accountType ?? 'checking',
        check_type: request.checkType ?? 'personal',
        account_holder: request.accountHolder ?? null,
        currency: request.currency ?? account.profile().currency.toUpperCase(),
      });
      if (bank.problem) throw fail.precondition('bank_account_unknown', bankProblemMessage(bank.bank));
      return core.mutate(async (tx) => {
        const { fund } = await wallets.vaultInTx(tx, { ...(intoWallet ? { walletToken: intoWallet } : {}), bank });
        await putToken(tx, { token: fund!.token, session: s.id, type: 'ach', last4: bank.bank.last4, brand: null, created_at: tx.at });
        return { token: fund!.token };
      });
    },

    async createWallet() {
      const created = await wallets.create({});
      return { walletId: created.wallet_token };
    },

    async updateWalletMethod(id, walletId, fundId, kind, patch) {
      const s = await alive(id);
      await sessionWalletFund(s, walletId, fundId, kind, 'allowEdit');
      if (kind === 'bank_account') {
        await wallets.updateMethod(walletId, fundId, { bank_account: { ...(patch.accountHolder ? { account_holder: patch.accountHolder } : {}) } });
        return;
      }
      await wallets.updateMethod(walletId, fundId, {
        credit_card: {
          ...(patch.accountHolder ? { name: patch.accountHolder } : {}),
          ...(patch.expirationMonth !== undefined ? { expiry_month: patch.expirationMonth } : {}),
          ...(patch.expirationYear !== undefined ? { expiry_year: patch.expirationYear } : {}),
        },
      });
    },

    async deleteWalletMethod(id, walletId, fundId, kind) {
      const s = await alive(id);
      await sessionWalletFund(s, walletId, fundId, kind, 'allowDelete');
      await wallets.removeMethod(walletId, fundId);
    },

    async giftCardBalance(id, token) {
      const s = await alive(id);
      const issued = await getRecord<TokenData>(core, TOKEN, token);
      if (!issued || issued.data.session !== s.id || issued.data.type !== 'giftCard') throw fail.notFound('gift_card_not_found', `No gift card ${token} on this session`);
      const card = await giftCards.view(token);
      return { balance: flow.decimalOf(card.balance, card.currency) };
    },

    async applePayMerchantSession(id, request) {
      await alive(id);
      if (!sandbox()) {
        throw fail.invalid('apple_pay_unavailable', 'Apple Pay needs a production merchant identity certificate from Apple, and this install has none: Apple Pay cannot be validated here', [{ field: '/validationUrl', message: 'Apple Pay merchant validation needs a merchant certificate' }]);
      }
      const at = now();
      const c = request.applePayConfig;
      const domain = c.initiativeContext ?? 'localhost';
      // A simulated session (sandbox only): the shape Apple answers, signed by nobody.
      return {
        epochTimestamp: at,
        expiresAt: at + 5 * 60_000,
        merchantSessionIdentifier: `SANDBOX${core.ids.token()}`,
        nonce: core.ids.secret(4),
        merchantIdentifier: c.merchantIdentifier ?? 'merchant.laneway.sandbox',
        domainName: domain,
        displayName: c.displayName ?? account.profile().name,
        signature: Buffer.from(`laneway-sandbox-simulated-merchant-session:${domain}`).toString('base64'),
        operationalAnalyticsIdentifier: `laneway-sandbox:${domain}`,
        retries: 0,
        pspId: 'LANEWAYSANDBOX',
      };
    },

    settings: () => readSettings(core),
    setSettings: (settings) => core.mutate((tx) => writeSettings(tx, settings)),
    async frameAncestors() {
      return allowedOrigins(await readSettings(core), sandbox());
    },
  };

  async function giftToken(s: SessionData, request: TokenRequest, need: (f: keyof TokenRequest) => void): Promise<{ token: string }> {
    need('accountNumber');
    const attempt = await giftCards.attemptPin(request.accountNumber!, request.pin ?? null);
    if (!attempt) throw fail.precondition('gift_card_unknown', 'This gift card is not known');
    if (!attempt.ok) throw fail.precondition(attempt.gate === 'open' ? 'incorrect_pin' : 'pin_tries_exceeded', attempt.gate === 'open' ? 'Incorrect PIN' : 'Too many wrong PINs: try later');
    const card = await giftCards.view(attempt.token);
    if (!card.activated) throw fail.precondition('gift_card_inactive', 'This gift card is not activated');
    return core.mutate(async (tx) => {
      await putToken(tx, { token: attempt.token, session: s.id, type: 'giftCard', last4: card.last4, brand: null, created_at: tx.at });
      return { token: attempt.token };
    });
  }
}

