import { timingSafeEqual } from 'node:crypto';

/**
 * A click-to-pay link's key: the invoice's numeric id and its pay token (`/pay/123456-K3J9…`). The
 * id finds the invoice without an index of tokens; the token, random and compared in constant time,
 * is what makes the link a key (an id alone is guessable, a counter).
 */
export const payKey = (iid: number, token: string) => `${iid}-${token}`;

const KEY = /^(\d{1,15})-([A-Za-z0-9]{8,64})$/;

export function parsePayKey(key: string): { id: string; token: string } | undefined {
  const m = KEY.exec(key);
  return m ? { id: m[1]!, token: m[2]! } : undefined;
}

export function sameSecret(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What a click-to-pay page shows of an invoice, and what paying it needs. */
export interface PayableInvoice {
  number: string;
  display_number: string;
  customer_identifier: string;
  customer_name: string;
  currency: string;
  date: string;
  due_date: string | null;
  amount_cents: number;
  /** 0 once paid, closed or deleted. */
  owing_cents: number;
  /** The shop's date this was read on: a payment made from it is of that day (its discount too). */
  as_of: string;
  /** The early-payment discount a payment of the whole balance takes on as_of (early-discount.ts); 0 for none. */
  discount_cents: number;
  discount_expiry_date: string | null;
  deleted: boolean;
}
