import { brandName } from '../gateway/reference-data';
import { isExpired } from './instruments';
import { cardDisplay, type FundData } from './records';

/** How a payment method is named to people: a card's brand and last four, an account's last four; never its token. */
export function fundDisplay(f: FundData): string {
  return f.card ? cardDisplay(brandName(f.card.brand), f.card.last4) : ` (${f.bank!.last4})`;
}

export type FundProblem = 'removed' | 'locked' | 'expired';

/**
 * Why a vaulted method cannot pay today, as the gateway would refuse or decline a charge of it
 * (payment-method-ops.ts: removed and locked are refused, an expired card declines); null when it can.
 */
export function fundProblem(f: FundData, nowMs: number, timeZone: string): FundProblem | null {
  if (f.inactive) return 'removed';
  if (f.locked) return 'locked';
  if (f.card && isExpired(f.card.expiry_month, f.card.expiry_year, nowMs, timeZone)) return 'expired';
  return null;
}
