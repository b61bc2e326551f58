import type { AccountProfile } from '../account';
import { fail } from '../errors';
import type { GatewayContext } from './context';
import type { PaymentMethod } from './transaction-record';

/**
 * The processors of this install, named by the settlement tokens GET /api/whoami lists (merchant
 * account for cards, bank processor for ACH/EFT, terminal processor for card-present, gift card
 * processor). Each gets its own settlement batch per processing day.
 */
export interface SettlementTokens {
  card: string;
  bank: string;
  terminal: string;
  gift: string;
  all: string[];
}

export function settlementTokens(profile: AccountProfile): SettlementTokens {
  // An account made before the tokens were fixed in its profile keeps the ones its records carry.
  const t = (suffix: string) => `${profile.token}${suffix}`;
  const tokens = profile.settlement_tokens ?? { card: t('MA'), bank: t('BA'), terminal: t('TP'), gift: t('GC') };
  return { card: tokens.card, bank: tokens.bank, terminal: tokens.terminal, gift: tokens.gift, all: [tokens.card, tokens.bank, tokens.terminal, tokens.gift] };
}

/** The settlement token of a payment method, honouring an order's explicit routing when it fits. */
export function settlementTokenFor(ctx: GatewayContext, method: PaymentMethod, requested: string | null): string {
  const tokens = settlementTokens(ctx.account.profile());
  const natural = method === 'bank_account' ? tokens.bank : method === 'gift_card' ? tokens.gift : method === 'pos_terminal' ? tokens.terminal : tokens.card;
  if (requested && requested !== natural) {
    throw fail.gateway('settlement_token_mismatch', `settlement_token ${requested} does not route ${method.replace('_', ' ')} payments; this account uses ${natural}`);
  }
  return natural;
}
