import type { EngineCore, Tx } from '../core';
import { referenceToken } from '../ids';
import type { Account } from '../account';
import { fail, notFound } from '../errors';
import type { WalletMethodRequest } from '../../shared/schemas/wallets';
import type { ContactInput, MethodSettings } from '../../shared/schemas/gateway';
import {
  bankProblemMessage,
  cardProblemMessage,
  sandboxHelp,
  parseBank,
  parseCard,
  type BankInputResult,
  type CardInputResult,
  type Keyer,
} from './instruments';
import { FUNDS, WALLETS, putFund, putWallet, type FundData, type FundDoc, type WalletData, type WalletDoc } from './records';
import type { ReceivablesPort } from './autopay-port';
import { applyMethodSettings } from './method-settings';

export interface WalletsDeps {
  core: EngineCore;
  account: Account;
  keyer: Keyer;
  receivables: () => ReceivablesPort | undefined;
}

/** What every wallets function works with: the deps and the install's environment. */
export interface WalletsContext extends WalletsDeps {
  sandbox(): boolean;
}

export interface VaultRequest {
  walletToken?: string;
  customer?: { identifier: string | null; name: string | null } | null;
  contact?: ContactInput | null;
  card?: CardInputResult;
  bank?: BankInputResult;
  /** The card's or account's nickname, lock and default as the request gave them (PATCH's rule). */
  settings?: MethodSettings;
}

export const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

export function walletsContext(deps: WalletsDeps): WalletsContext {
  return { ...deps, sandbox: () => deps.account.profile().environment === 'sandbox' };
}

export const cardInput = (ctx: WalletsContext, input: Parameters<typeof parseCard>[0], options: { requireCvv: boolean; requireAddress: boolean }): CardInputResult =>
  parseCard(input, { keyer: ctx.keyer, now: ctx.core.clock.now(), timeZone: ctx.account.profile().timezone, sandbox: ctx.sandbox(), ...options });

export const bankInput = (ctx: WalletsContext, input: Parameters<typeof parseBank>[0]): BankInputResult =>
  parseBank(input, { keyer: ctx.keyer, sandbox: ctx.sandbox(), defaultCurrency: ctx.account.profile().currency });

/** Wallet checks refuse what the processor would: a vault holds only methods that can pay. */
export function vaultableMethods(ctx: WalletsContext, input: WalletMethodRequest, options: { fileImport?: boolean } = {}): { card?: CardInputResult; bank?: BankInputResult } {
  if (input.credit_card && input.bank_account) throw fail.precondition('payment_method_conflict', 'Send either credit_card or bank_account, not both');
  if ((input.credit_card || input.bank_account) && !ctx.sandbox()) {
    throw fail.unavailable('processor_unavailable', 'No payment processor is connected to this production install, so payment methods cannot be vaulted');
  }
  if (input.credit_card) {
    // A file import carries no CVV (the reference's fund import), as a gateway token carries none.
    const checked = !input.credit_card.gateway_token && !options.fileImport;
    const card = cardInput(ctx, input.credit_card, { requireCvv: checked, requireAddress: checked });
    if (card.problem === 'expired') throw fail.precondition('card_expired', cardProblemMessage('expired', card.card));
    if (card.problem === 'luhn') throw fail.precondition('invalid_card_number', cardProblemMessage('luhn', card.card));
    if (card.problem === 'unknown') throw fail.precondition('card_unknown_to_sandbox', `${cardProblemMessage('unknown', card.card)}; ${sandboxHelp('card')}`);
    return { card };
  }
  if (input.bank_account) {
    const bank = bankInput(ctx, input.bank_account);
    if (bank.problem) throw fail.precondition('account_unknown_to_sandbox', `${bankProblemMessage(bank.bank)}; ${sandboxHelp('bank')}`);
    return { bank };
  }
  return {};
}

/** Inside a unit of work: vaults a card or bank account (two puts: wallet, fund). */
export async function vaultInTx(ctx: WalletsContext, tx: Tx, request: VaultRequest): Promise<{ wallet: WalletData; fund: FundData | null }> {
  const { wallet, created } = await walletToVaultIn(ctx, tx, request);
  await refuseTakenVaultToken(tx, wallet.token, request);
  let fund: FundData | null = null;
  const fingerprint = request.card?.card.fingerprint ?? request.bank?.bank.fingerprint ?? null;
  if (fingerprint && !created) fund = await sameMethodInWallet(tx, wallet.token, request, fingerprint);
  const newFund = !fund && (request.card || request.bank);
  if (newFund) fund = newFundData(ctx.core, tx, wallet.token, request);
  else if (fund) fund = structuredClone(fund);
  // A method sent again with settings gets them as a new one would: the answer shows what was sent.
  const settingsChanged = fund && request.settings ? await applyMethodSettings(tx, fund, request.settings) : false;
  wallet.updated_at = tx.at;
  await putWallet(tx, wallet, created);
  if (newFund && fund) await putFund(tx, fund, true);
  else if (fund && settingsChanged) await putFund(tx, { ...fund, updated_at: tx.at }, false);
  return { wallet, fund };
}

/** The wallet named (which must exist) or a new one, with the request's customer and contact. */
async function walletToVaultIn(ctx: WalletsContext, tx: Tx, request: VaultRequest): Promise<{ wallet: WalletData; created: boolean }> {
  let wallet: WalletData;
  let created = false;
  if (request.walletToken) {
    const doc = await tx.get<WalletDoc>(WALLETS, request.walletToken);
    if (!doc) throw notFound('wallet_not_found', `No wallet ${request.walletToken}`, 'precondition');
    wallet = structuredClone(doc.data);
  } else {
    wallet = { token: referenceToken(ctx.core.ids), customer: null, contacts: [], created_at: tx.at, updated_at: tx.at };
    created = true;
  }
  const customer = request.customer;
  if (customer && (customer.identifier || customer.name)) {
    const identifier = customer.identifier ?? `API-${ctx.core.ids.token()}`;
    if (wallet.customer && wallet.customer.identifier !== identifier) {
      throw fail.precondition('payment_method_conflict', `Wallet ${wallet.token} belongs to customer ${wallet.customer.identifier}`);
    }
    wallet.customer = { identifier, name: customer.name ?? wallet.customer?.name ?? null };
  }
  const email = str(request.contact?.email);
  if (email && !wallet.contacts.some((c) => c.email.toLowerCase() === email.toLowerCase())) {
    wallet.contacts.push({ email, first_name: str(request.contact?.first_name), last_name: str(request.contact?.last_name) });
  }
  return { wallet, created };
}

/**
 * A method imported by its vault token (a card or account vaulted before, no number) takes a token
 * no other wallet's method holds, and, in the wallet that holds it, the label it has: a token names
 * the real card behind it, so another customer's token (this vault's own included) re-added with
 * any brand and last four charged that card from a wallet that does not own it, shown as a card
 * that does not exist.
 */
async function refuseTakenVaultToken(tx: Tx, walletToken: string, request: VaultRequest): Promise<void> {
  const token = request.card?.gatewayToken ?? request.bank?.gatewayToken;
  if (!token) return;
  for (const { data: held } of await tx.find<FundDoc>(FUNDS, { selector: { vault: token } })) {
    if (held.wallet !== walletToken) throw fail.precondition('gateway_token_in_use', `This vault token is a payment method of another wallet (${held.token}): a card or account is vaulted once`);
    const sent = request.card?.card;
    if (sent && held.card && (held.card.last4 !== sent.last4 || held.card.brand !== sent.brand)) {
      throw fail.precondition('card_mismatch', `This vault token is the ${held.card.brand} ending ${held.card.last4} (${held.token}), not a ${sent.brand} ending ${sent.last4}`);
    }
  }
}

/** The same card (same expiry) or account added again to a wallet answers the fund it already has. */
async function sameMethodInWallet(tx: Tx, walletToken: string, request: VaultRequest, fingerprint: string): Promise<FundData | null> {
  const existing = (await tx.find<FundDoc>(FUNDS, { selector: { wallet: walletToken } })).map((d) => d.data);
  return (
    existing.find(
      (f) =>
        !f.inactive &&
        ((f.card && request.card && f.card.fingerprint === fingerprint && f.card.expiry_month === request.card.card.expiry_month && f.card.expiry_year === request.card.card.expiry_year) ||
          (f.bank && f.bank.fingerprint === fingerprint)),
    ) ?? null
  );
}

function newFundData(core: EngineCore, tx: Tx, walletToken: string, request: VaultRequest): FundData {
  return {
    token: referenceToken(core.ids, request.card ? 'CC' : 'BA'),
    wallet: walletToken,
    kind: request.card ? 'credit_card' : 'bank_account',
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
