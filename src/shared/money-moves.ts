/** Transactions that send money back to the payer: the settlement books and every list count them against sales. */
export function isOutgoing(action: string | null | undefined): boolean {
  return action === 'refund' || action === 'credit';
}

/** A transaction's amount as a list shows it: money going back is negative, as a batch counts it. */
export function signedCents(action: string | null | undefined, cents: number): number {
  return isOutgoing(action) ? -cents : cents;
}
