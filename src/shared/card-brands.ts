/** Card brands' display names ("Visa **0006"), by the gateway's brand code: the engine's receipts and the screens say them alike. */
const BRAND_NAMES: Record<string, string> = {
  visa: 'Visa',
  master: 'Mastercard',
  american_express: 'Amex',
  discover: 'Discover',
  diners_club: 'Diners Club',
  jcb: 'JCB',
  unionpay: 'UnionPay',
  unknown: 'Card',
  // A settlement batch's brand mix names its other tenders alike.
  ach: 'ACH/EFT',
  gift_card: 'Gift card',
};

export function brandName(code: string): string {
  return BRAND_NAMES[code] ?? code;
}

/** What paid, as a list or a screen names it: "Visa •••• 0006", "Bank account •••• 0016" (never a token). */
export const cardLabel = (brandCode: string, last4: string) => `${brandName(brandCode)} •••• ${last4}`;
export const bankLabel = (last4: string) => `Bank account •••• ${last4}`;

/**
 * A settlement batch's tender group (the engine's `payment_method_group`) in words: the statement
 * PDF and the Settlement screen name a batch alike. Gift cards never batch, so `card` is the
 * card-not-present sales alone.
 */
const TENDER_GROUPS: Record<string, string> = { card: 'Card (keyed / online)', terminal: 'Card-present lanes', bank: 'Bank (ACH/EFT)' };
export const tenderGroupName = (group: string) => TENDER_GROUPS[group] ?? group;

const METHODS: Record<string, string> = { credit_card: 'Card', pos_terminal: 'Card-present terminal', bank_account: 'Bank account', gift_card: 'Gift card' };

/**
 * What paid a transaction, for a list: its card's brand ("Visa") when a card did, else the method
 * ("Bank account"); a settlement view's brand code for the rest ("ach", "other") is no name.
 */
export function paidWith(paymentMethod: string, brandCode: string | null | undefined): string {
  const card = paymentMethod === 'credit_card' || paymentMethod === 'pos_terminal';
  return card && brandCode && brandCode !== 'other' ? brandName(brandCode) : (METHODS[paymentMethod] ?? paymentMethod);
}
