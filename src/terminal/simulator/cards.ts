/**
 * The simulator's cards are the sandbox processor's test cards, so a sale on the simulator
 * authorizes (or declines) exactly as the sandbox says: the Visa, Mastercard, Discover and Amex
 * numbers approve, Visa 4264280001234500 declines, and any amount ending in .01 declines at the
 * processor.
 */
export type EntryMode = 'chip' | 'contactless' | 'swipe' | 'manual';
export type Cvm = 'pin' | 'signature' | 'none';

export interface SimCard {
  pan: string;
  brand: 'visa' | 'master' | 'discover' | 'american_express';
  name: string;
  aid: string;
  label: string;
  /** How this card is presented and verified unless a scenario says otherwise. */
  entry: EntryMode;
  cvm: Cvm;
}

export const TEST_CARDS: readonly SimCard[] = [
  { pan: '4895281000000006', brand: 'visa', name: 'VISA TEST/APPROVE', aid: 'A0000000031010', label: 'VISA CREDIT', entry: 'chip', cvm: 'pin' },
  { pan: '5541032000004422', brand: 'master', name: 'MC TEST/APPROVE', aid: 'A0000000041010', label: 'MASTERCARD', entry: 'contactless', cvm: 'none' },
  { pan: '6011000990911111', brand: 'discover', name: 'DISCOVER TEST/APPROVE', aid: 'A0000001523010', label: 'DISCOVER', entry: 'chip', cvm: 'signature' },
  { pan: '341111597242000', brand: 'american_express', name: 'AMEX TEST/APPROVE', aid: 'A000000025010801', label: 'AMERICAN EXPRESS', entry: 'chip', cvm: 'signature' },
  { pan: '4264280001234500', brand: 'visa', name: 'VISA TEST/DECLINE', aid: 'A0000000031010', label: 'VISA CREDIT', entry: 'chip', cvm: 'pin' },
];

export const DEFAULT_CARD = TEST_CARDS[0]!;
export const DECLINE_CARD = TEST_CARDS[4]!;

export function findCard(pan: string): SimCard | undefined {
  return TEST_CARDS.find((c) => c.pan === pan);
}

/** Card brand by its number's leading digits. */
export function brandOf(pan: string): SimCard['brand'] | undefined {
  if (/^4/.test(pan)) return 'visa';
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(pan)) return 'master';
  if (/^3[47]/.test(pan)) return 'american_express';
  if (/^(6011|65|64[4-9]|622)/.test(pan)) return 'discover';
  return undefined;
}

/** A card the person typed that is not a known test card: an approving card of its brand's shape. */
export function adHocCard(pan: string): SimCard {
  const brand = brandOf(pan) ?? 'visa';
  const base = TEST_CARDS.find((c) => c.brand === brand) ?? DEFAULT_CARD;
  return { ...base, pan, name: 'TEST CARD' };
}

export function maskCard(pan: string): string {
  return `${'*'.repeat(Math.max(0, pan.length - 4))}${pan.slice(-4)}`;
}
