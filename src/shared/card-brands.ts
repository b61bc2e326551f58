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
};

export function brandName(code: string): string {
  return BRAND_NAMES[code] ?? code;
}

/** What paid, as a list or a screen names it: "Visa •••• 0006", "Bank account •••• 0016" (never a token). */
export const cardLabel = (brandCode: string, last4: string) => `${brandName(brandCode)} •••• ${last4}`;
export const bankLabel = (last4: string) => `Bank account •••• ${last4}`;
