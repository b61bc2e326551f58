import type { AccountProfile } from '../account';

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
  const t = (suffix: string) => `${profile.token}${suffix}`;
  const tokens = { card: t('MA'), bank: t('BA'), terminal: t('TP'), gift: t('GC') };
  return { ...tokens, all: Object.values(tokens) };
}
