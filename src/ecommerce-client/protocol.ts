/**
 * The messages between the shop's page (client.js) and the hosted payment frame, both ways through
 * `postMessage` with an exact target origin. Each side accepts a message only from the exact
 * window and origin it expects (the frame: its parent at the origin the server allowed; the page:
 * the iframe it made, at the script's origin) and only on its session. No message ever carries a
 * card or account number: the frame sends the number to the server and the page gets a token.
 */
export const CHANNEL = 'versapay';

export type PaymentTypeName = 'creditCard' | 'ach' | 'giftCard' | 'applePay';

export interface Approval {
  paymentType: PaymentTypeName;
  token: string;
  /** The label the buyer saw ("Payment Card"). */
  paymentTypeName: string;
  /** A gift card: its balance (what it can pay); otherwise the session's amount, when it has one. */
  amount?: number;
}

export interface Rejection {
  paymentType: PaymentTypeName;
  error: string;
}

export interface PartialPayment extends Approval {
  /** What is left to pay with another method. */
  remaining: number;
}

export type FrameMessage =
  /** The frame's script runs: sent first, so the page can tell a frame the browser refused to show. */
  | { type: 'loaded' }
  | { type: 'ready' }
  | { type: 'initialized' }
  | { type: 'approval'; result: Approval }
  /** `invalid`: a field of the frame holds the problem (the page then moves focus into the frame). */
  | { type: 'rejection'; error: Rejection; invalid?: boolean }
  | { type: 'partial'; result: PartialPayment }
  | { type: 'failed'; error: string };

/** `focus`: the page handed its focus to the frame (after a rejection naming a field): the field takes it. */
export type PageMessage = { type: 'init'; styles: unknown; fontUrls: unknown } | { type: 'submit' } | { type: 'focus' };

export type Envelope<T> = T & { channel: typeof CHANNEL; session: string };

export function isEnvelope(data: unknown, session: string): data is Envelope<{ type: string }> {
  if (!data || typeof data !== 'object') return false;
  const d = data as Record<string, unknown>;
  return d.channel === CHANNEL && d.session === session && typeof d.type === 'string';
}
