import type { CardRead } from '../card-present';
import { fail } from '../errors';
import { luhnValid, maskPan } from '../security/card-data';
import type { DeviceCard } from './driver-port';

export type CardBrand = 'visa' | 'master' | 'american_express' | 'discover';

/** What readCard returns: the port's CardRead plus what a receipt and the tip need. */
export interface LaneCardRead extends CardRead {
  /** A tip the customer added on the device (sales with tips on); authorize amountCents + tipCents. */
  tipCents: number;
  brand: CardBrand | null;
  bin: string;
  last4: string;
  /** First six and last four, as a receipt may show it. */
  maskedPan: string;
}

export function cardBrand(pan: string): CardBrand | null {
  if (/^4/.test(pan)) return 'visa';
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(pan)) return 'master';
  if (/^3[47]/.test(pan)) return 'american_express';
  if (/^(6011|65|64[4-9]|622)/.test(pan)) return 'discover';
  return null;
}

/**
 * Checks what the device sent and shapes it for the gateway. The messages name what is wrong,
 * never the number itself.
 */
export function toCardRead(card: DeviceCard, manualAllowed: boolean): LaneCardRead {
  if (!/^\d{12,19}$/.test(card.pan) || !luhnValid(card.pan)) throw fail.gateway('device_error', 'The device sent a card number that is not valid');
  if (!/^(0[1-9]|1[0-2])$/.test(card.expMonth) || !/^\d{4}$/.test(card.expYear)) throw fail.gateway('device_error', 'The device sent an invalid expiry date');
  if (card.entryMode === 'manual' && !manualAllowed) throw fail.gateway('device_error', 'The device accepted a keyed-in card although manual entry was not enabled');
  const read: LaneCardRead = {
    entryMode: card.entryMode,
    pan: card.pan,
    expiryMonth: card.expMonth,
    expiryYear: card.expYear,
    ...(card.name ? { cardholderName: card.name } : {}),
    cvm: card.cvm,
    ...(card.emv && (card.entryMode === 'chip' || card.entryMode === 'contactless') ? { emv: { ...card.emv } } : {}),
    tipCents: card.tipCents,
    brand: cardBrand(card.pan),
    bin: card.pan.slice(0, 6),
    last4: card.pan.slice(-4),
    maskedPan: maskPan(card.pan),
  };
  return read;
}
