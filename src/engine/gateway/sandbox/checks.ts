/**
 * The sandbox's CVV and AVS tables (spec "Sandbox behaviour for order transactions", items 4 and 5)
 * and its amount rules (items 2 and 3).
 */

const CVV_TABLE: Record<string, string> = { '123': 'P', '234': 'M', '345': 'N', '456': 'S', '567': 'U' };
const AMEX_CVV_TABLE: Record<string, string> = { '6789': 'M', '1011': 'N', '1213': 'P' };

/** The `cvv_response` for a CVV; null when none was sent (a stored card or a card-present read). */
export function cvvResponse(cvv: string | null | undefined, brand: string): string | null {
  if (!cvv) return null;
  if (brand === 'american_express' && AMEX_CVV_TABLE[cvv]) return AMEX_CVV_TABLE[cvv];
  return CVV_TABLE[cvv] ?? 'M';
}

/** The fixed test street line: the AVS table applies to addresses on it. */
export const AVS_TEST_STREET = '234 Elm Street';

const AVS_TABLE: Record<string, string> = {
  '80801': 'A',
  '80802': 'G',
  '80803': 'N',
  '80804': 'R',
  '80805': 'S',
  '80806': 'U',
  '80809': 'Y',
  '80810': 'Z',
  '80815': 'I',
  '80818': 'E',
  K1A0A9: 'D',
  L6Y2N4: 'M',
  K0K2T0: 'P',
};
const ZIP9 = '808000000';

const normStreet = (s: string) => s.trim().replace(/\s+/g, ' ').replace(/\.$/, '').toLowerCase();
const normZip = (s: string) => s.replace(/[\s-]/g, '').toUpperCase();

/**
 * The `avs_response` for a billing address. On the test street the postal code picks the code; the
 * table lists 808000000 twice (W: zip matches, address does not; X: both match), so the street
 * decides between them. Any other zip and address: Y. No postal code at all: null (not checked).
 */
export function avsResponse(street: string | null | undefined, postal: string | null | undefined): string | null {
  if (!postal || !postal.trim()) return null;
  const zip = normZip(postal);
  const onTestStreet = normStreet(street ?? '') === normStreet(AVS_TEST_STREET);
  if (zip === ZIP9) return onTestStreet ? 'X' : 'W';
  if (onTestStreet && AVS_TABLE[zip]) return AVS_TABLE[zip];
  return 'Y';
}

/** An amount ending in .01 declines (every financial action but a void). */
export const amountDeclines = (cents: number) => Math.abs(cents) % 100 === 1;

/** A void whose amount ends in .02 declines. */
export const voidDeclines = (cents: number) => Math.abs(cents) % 100 === 2;
