import binTable from '../../../resources/bin-table.json';
import responseCodeTable from '../../../resources/response-codes.json';

/**
 * Reference data shipped in resources/: the BIN table (issuer records plus network ranges, which is
 * also how a card's brand is detected) and the response codes the sandbox processor returns.
 */
export interface BinRecord {
  bin: string;
  brand: string;
  type: string | null;
  category: string | null;
  country: string | null;
  bank: string | null;
  phone: string | null;
  url: string | null;
}

interface BinRange {
  from: string;
  to: string;
  brand: string;
}

const BINS: readonly BinRecord[] = (binTable as { bins: BinRecord[] }).bins;
const RANGES: readonly BinRange[] = (binTable as { ranges: BinRange[] }).ranges;
// Longest first, so an 8-digit issuer record wins over a 6-digit one with the same prefix.
const BY_LENGTH = [...BINS].sort((a, b) => b.bin.length - a.bin.length);

/** Brand codes as transactions carry them (the reference's `credit_card_brand`). */
const BRAND_CODES: Record<string, string> = {
  VISA: 'visa',
  MASTERCARD: 'master',
  'AMERICAN EXPRESS': 'american_express',
  DISCOVER: 'discover',
  'DINERS CLUB': 'diners_club',
  JCB: 'jcb',
  UNIONPAY: 'unionpay',
};

export function allBins(): BinRecord[] {
  return BINS.map((b) => ({ ...b }));
}

/**
 * The issuer record whose BIN is a prefix of `digits` (a 6 to 8 digit BIN, or a card number), or a
 * record built from the network range (brand only) when no issuer record matches; undefined when
 * neither does.
 */
export function lookupBin(digits: string): BinRecord | undefined {
  const issuer = BY_LENGTH.find((b) => digits.startsWith(b.bin));
  if (issuer) return { ...issuer };
  const six = digits.slice(0, 6);
  const range = RANGES.find((r) => six >= r.from && six <= r.to);
  if (!range) return undefined;
  const bin = digits.length <= 8 ? digits : six;
  return { bin, brand: range.brand, type: null, category: null, country: null, bank: null, phone: null, url: null };
}

/** The brand code of a card number (by BIN table), 'unknown' when no range covers it. */
export function brandOf(digits: string): string {
  const record = lookupBin(digits);
  return record ? (BRAND_CODES[record.brand] ?? record.brand.toLowerCase().replace(/\s+/g, '_')) : 'unknown';
}

export { brandName } from '../../shared/card-brands';

export interface ResponseCodeEntry {
  code: number;
  error_code: string | null;
  description: string;
}

const CODES: readonly ResponseCodeEntry[] = (responseCodeTable as { codes: ResponseCodeEntry[] }).codes;

export function responseCodes(): ResponseCodeEntry[] {
  return CODES.map((c) => ({ ...c }));
}

/** The response code paired with a gateway error code; every code the processor uses is in the table. */
export function responseCodeFor(errorCode: string | null): ResponseCodeEntry {
  const entry = CODES.find((c) => c.error_code === errorCode);
  if (!entry) throw new Error(`response code table has no entry for ${String(errorCode)}`);
  return entry;
}

const OPERATION_ERROR_CODE = 999;

/**
 * The `response_code` of an operation error (HTTP 500, nothing recorded): the reference's sandbox
 * answers 250 for an unknown prior transaction (`order_not_found`) and 999 for the others.
 */
export function operationErrorResponseCode(errorCode: string): number {
  return errorCode === 'order_not_found' ? responseCodeFor('order_not_found').code : OPERATION_ERROR_CODE;
}
