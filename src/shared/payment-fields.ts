/**
 * Checks of payment fields that both sides need: the engine (authoritative, before anything is
 * vaulted) and the hosted payment frame (to show an error beside the field before anything is
 * sent). Pure functions, no imports: the frame's bundle carries them.
 */

/** Luhn check over a digit string. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** ABA routing number check digit (3-7-1 weights). */
export function abaValid(routing: string): boolean {
  if (!/^[0-9]{9}$/.test(routing)) return false;
  const d = [...routing].map(Number);
  const sum = 3 * ((d[0] ?? 0) + (d[3] ?? 0) + (d[6] ?? 0)) + 7 * ((d[1] ?? 0) + (d[4] ?? 0) + (d[7] ?? 0)) + ((d[2] ?? 0) + (d[5] ?? 0) + (d[8] ?? 0));
  return sum % 10 === 0;
}

/** American Express numbers (34, 37) carry a 4-digit security code; the other brands 3. */
export function cvvLengthFor(pan: string): 3 | 4 {
  return /^3[47]/.test(pan) ? 4 : 3;
}

/** True when a card good through `month`/`year` has expired by `today` (YYYY-MM-DD). */
export function expiryPassed(month: number, year: number, today: string): boolean {
  const y = Number(today.slice(0, 4));
  const m = Number(today.slice(5, 7));
  return year < y || (year === y && month < m);
}
