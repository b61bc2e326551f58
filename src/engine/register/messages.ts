/**
 * What the cashier reads when a tender or a refund does not go through: what happened, whether
 * money moved, and the next step. Keyed by the gateway's and the lanes' stable error codes.
 */
const TENDER: Record<string, (lane: string) => string> = {
  lane_offline: (l) => `The terminal on lane ${l} is offline. Nothing was charged. Check its cable and power, then try again, or take another tender.`,
  lane_not_found: (l) => `Lane ${l} has no terminal set up. Nothing was charged. Take another tender.`,
  device_busy: (l) => `The terminal on lane ${l} is busy with another payment or command. Nothing was charged. Wait a moment, then try again.`,
  cancelled: () => 'The card payment was cancelled. Nothing was charged. Try again or take another tender.',
  timeout: () => 'No card was presented in time. Nothing was charged. Try again or take another tender.',
  card_removed: () => 'The card was removed too early. Nothing was charged. Try again, and leave the card in until the terminal says to remove it.',
  device_error: (l) => `The terminal on lane ${l} had a problem and the payment did not go through. Nothing was charged. Try again or take another tender.`,
  terminal_unavailable: () => 'No card terminal is running on this install. Nothing was charged. Take another tender.',
  terminal_unconfirmed: () => 'The terminal did not confirm the payment, so it was reversed. Nothing was charged. Try again or take another tender.',
  currency_mismatch: (l) => `The terminal on lane ${l} is set up for another currency. Nothing was charged. Take another tender.`,
  capability_disabled: () => 'This account is not enabled for this kind of payment. Nothing was charged. Take another tender.',
  processor_unavailable: () => 'No payment processor is connected to this install. Nothing was charged. Take another tender.',
  incorrect_pin: () => 'The gift card PIN is wrong. Nothing was charged. Check the PIN and try again.',
  insufficient_funds: () => 'The gift card does not have enough balance. Nothing was charged. Use a smaller amount or another tender.',
  gift_card_inactive: () => 'This gift card is not activated. Nothing was charged. Take another tender.',
  interrupted: () => 'The payment was interrupted (Laneway restarted). Nothing was charged. Try again or take another tender.',
};

export function tenderFailureMessage(code: string, laneid: string, detail?: string): string {
  const known = TENDER[code];
  if (known) return known(laneid);
  return `The payment did not go through${detail ? ` (${detail})` : ''}. Nothing was charged. Try again or take another tender.`;
}

/**
 * The processor's reason as a cashier reads it ("expired card"), or nothing when it only says
 * "DECLINED" again: the sentence says declined already.
 */
function declineReason(processorMessage: string): string {
  const text = processorMessage.trim().toLowerCase();
  if (!text || /^declined?\b[\s.!]*$/.test(text)) return '';
  return `: ${text.replace(/\bpin\b/g, 'PIN')}`;
}

export function declineMessage(type: 'card' | 'gift_card', processorMessage: string): string {
  const why = declineReason(processorMessage);
  return type === 'card'
    ? `The card was declined${why}. Try another card or another tender.`
    : `The gift card was declined${why}. Try another tender.`;
}

export function refundFailureMessage(code: string, label: string): string {
  switch (code) {
    case 'void_window_closed':
      return `${label} was already sent in the day's card batch, so it cannot be voided. Refund the sale instead.`;
    case 'insufficient_funds':
      return `The gift card's balance was already spent, so ${label} cannot be reversed. Give the money back in cash instead.`;
    case 'declined':
      return `The refund to ${label} was declined. Retry it, or give the money back in cash.`;
    case 'amount_exceeds_refundable':
    case 'nothing_to_refund':
    case 'transaction_already_voided':
      // Not a refusal to make up in cash: the money already went back to the card another way.
      return `${label} was already refunded outside the register (in the back office or through the API), so this part went back to the card already. Do not give it in cash.`;
    case 'hub_unreachable':
    case 'hub_refused':
      // The hub decides what is left of this payment and may have given it back already (its back
      // office, its API): cash now could pay the customer twice.
      return `${label} is given back only with the hub's agreement, and the hub cannot be reached now: it may have refunded this payment already. Retry once the lane is back in touch with it. Do not give it in cash meanwhile.`;
    case 'offline_spend_not_synced':
      return `${label} was paid while this lane was apart from the hub, which has not received that payment yet. Retry in a moment, or give the money back in cash.`;
    default:
      return `The refund to ${label} did not go through (${code}). Retry it, or give the money back in cash.`;
  }
}
