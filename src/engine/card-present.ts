/**
 * The seam between gateway transactions and the EMV devices on the lanes. The gateway asks for a
 * card on a lane, sends the card's data to the processor, then tells the device the outcome. The
 * lanes domain (src/engine/lanes) implements this over the serial driver (src/terminal).
 *
 * A full card number crosses this seam once, in memory, for the processor: it is never stored or
 * logged (DESIGN rule 5).
 */
export type CardPresentKind = 'sale' | 'auth' | 'capture' | 'refund' | 'credit';

export interface CardPresentRequest {
  /** Idempotency id of this payment on the device: a lost answer is asked for again by it, never re-run. */
  requestId: string;
  laneId: string;
  kind: CardPresentKind;
  amountCents: number;
  /** ISO 4217, lower or upper case. */
  currency: string;
  /** The device may offer keyed entry when the card cannot be read. */
  enableManualEntry: boolean;
}

export type EntryMode = 'chip' | 'contactless' | 'swipe' | 'manual';
export type CardholderVerification = 'pin' | 'signature' | 'none';

export interface CardRead {
  entryMode: EntryMode;
  /** Full PAN: for the processor only, dropped after authorization. */
  pan: string;
  expiryMonth: string; // '01'..'12'
  expiryYear: string; // 'YYYY'
  cardholderName?: string;
  cvm: CardholderVerification;
  /** A tip the customer added on the device (lanes with tips on): authorize amountCents + tipCents. */
  tipCents?: number;
  /** Chip/contactless details a receipt needs; absent for swipe and manual entry. */
  emv?: { aid: string; applicationLabel: string; tvr: string; tsi: string };
}

export interface CardPresentOutcome {
  approved: boolean;
  authorizationCode?: string;
  /** Short text for the device's screen: 'APPROVED', 'DECLINED', ... */
  message: string;
}

export interface CapturedSignature {
  /** e.g. image/svg+xml or image/png */
  mediaType: string;
  /** Base64 of the image. */
  data: string;
}

export interface CardPresentPort {
  /**
   * Shows the amount and waits for the customer's card (and PIN when the card asks for it).
   * Rejects with EngineError codes: `lane_not_found`, `lane_offline`, `device_busy`, `cancelled`,
   * `card_removed`, `timeout`, `device_error`.
   */
  readCard(request: CardPresentRequest): Promise<CardRead>;
  /**
   * Shows the processor's outcome on the device; when the payment was approved and the card's
   * verification is a signature, collects it. Rejects when the device cannot confirm (unplugged,
   * reset): the caller must then treat the payment's outcome as unknown and reverse it.
   */
  complete(request: CardPresentRequest, outcome: CardPresentOutcome): Promise<{ signature?: CapturedSignature }>;
}
