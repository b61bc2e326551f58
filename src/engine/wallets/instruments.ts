import { fail } from '../errors';
import { luhnValid } from '../security/card-data';
import { brandOf } from '../gateway/reference-data';
import { localDate } from '../gateway/processing-day';
import {
  ACH_TEST_ROUTING,
  BANK_RETURN_ACCOUNT,
  BANK_TEST_ACCOUNT,
  BANK_TEST_LIST,
  EFT_TEST_BRANCH,
  EFT_TEST_INSTITUTION,
  TEST_CARD_LIST,
  testCard,
  type SandboxProfile,
} from '../gateway/sandbox/test-data';
import type { BankAccountInput, CreditCardInput } from '../../shared/schemas/gateway';

/**
 * Card and bank account input, checked and reduced to what may be kept: brand, BIN, last four,
 * expiry, a keyed fingerprint (to recognise the same card again without keeping its number) and the
 * sandbox's verdict. The full number and the CVV live only in the returned object's `secret` part,
 * which callers use once and drop. Errors name the field and never echo a number.
 */
export interface Address {
  address_1: string | null;
  address_2: string | null;
  city: string | null;
  province: string | null;
  postal_code: string | null;
  country: string | null;
}

export interface StoredCard {
  cardholder: string | null;
  brand: string;
  bin: string | null;
  last4: string;
  length: number | null;
  expiry_month: number;
  expiry_year: number;
  fingerprint: string | null;
  address: Address;
  profile: SandboxProfile;
}

export interface StoredBank {
  account_holder: string | null;
  routing_number: string | null;
  institution_number: string | null;
  branch_number: string | null;
  last4: string;
  account_type: 'checking' | 'savings';
  check_type: 'personal' | 'business' | null;
  currency: string;
  country: string;
  external_name: string | null;
  external_number: string | null;
  fingerprint: string;
  address: Address;
  profile: SandboxProfile;
}

export interface CardInputResult {
  card: StoredCard;
  /** Present only for a new card: used once for the processor, then dropped. */
  secret?: { pan: string; cvv: string | null };
  /** Set when the sandbox or the card's own data already decides the outcome. */
  problem?: CardProblem;
  gatewayToken: string | null;
}

export type CardProblem = 'luhn' | 'unknown' | 'expired';

/** A keyed fingerprint of a number (wallets/secrets.ts: the vault's current key). */
export type Keyer = (value: string) => string;

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

export function toAddress(input: { address_1?: string | null; address_2?: string | null; city?: string | null; province?: string | null; state?: string | null; postal_code?: string | null; zip?: string | null; country?: string | null } | null | undefined): Address {
  return {
    address_1: str(input?.address_1),
    address_2: str(input?.address_2),
    city: str(input?.city),
    province: str(input?.province) ?? str(input?.state),
    postal_code: str(input?.postal_code) ?? str(input?.zip),
    country: str(input?.country)?.toUpperCase() ?? null,
  };
}

export function parseMonth(v: string | number | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isInteger(n) && n >= 1 && n <= 12 ? n : undefined;
}

export function parseYear(v: string | number | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isInteger(n) || n < 0) return undefined;
  return n < 100 ? 2000 + n : n;
}

/** True when the card's expiry month has passed (a card is good through its expiry month). */
export function isExpired(month: number, year: number, nowMs: number, timeZone: string): boolean {
  const today = localDate(nowMs, timeZone);
  const y = Number(today.slice(0, 4));
  const m = Number(today.slice(5, 7));
  return year < y || (year === y && month < m);
}

/**
 * A credit card object from a request. `requireCvv`: wallets insist on it (the reference's
 * validation); transactions accept a card without one (no cvv_response then).
 */
export function parseCard(
  input: CreditCardInput,
  ctx: { keyer: Keyer; now: number; timeZone: string; sandbox: boolean; requireCvv: boolean; requireAddress: boolean },
): CardInputResult {
  const month = parseMonth(input.expiry_month);
  const year = parseYear(input.expiry_year);
  if (month === undefined || year === undefined) throw fail.precondition('expiry_unspecified', 'credit_card.expiry_month and credit_card.expiry_year are required (MM and YYYY)');
  const address = toAddress(input.address);

  // A card vaulted elsewhere: brand, last four and its vault token, no number.
  if (!input.card_number && input.gateway_token) {
    if (!input.last_4_digits || !input.brand) throw fail.precondition('card_unspecified', 'An imported card needs credit_card.brand, last_4_digits and gateway_token');
    const card: StoredCard = {
      cardholder: str(input.name),
      brand: normalizeBrand(input.brand),
      bin: null,
      last4: input.last_4_digits,
      length: null,
      expiry_month: month,
      expiry_year: year,
      fingerprint: null,
      address,
      profile: 'imported',
    };
    return { card, gatewayToken: input.gateway_token, ...(isExpired(month, year, ctx.now, ctx.timeZone) ? { problem: 'expired' as const } : {}) };
  }

  if (!input.card_number) throw fail.precondition('card_number_unspecified', 'credit_card.card_number is required');
  const pan = input.card_number.replace(/[\s-]/g, '');
  if (!/^[0-9]{12,19}$/.test(pan)) throw fail.precondition('invalid_card_number', 'credit_card.card_number must be 12 to 19 digits');
  if (!str(input.name)) throw fail.precondition('name_unspecified', 'credit_card.name (the cardholder name) is required');
  if (ctx.requireAddress && !input.address) throw fail.precondition('fund_address_unspecified', 'credit_card.address (the billing address) is required');
  const cvv = str(input.cvv ?? undefined);
  if (cvv !== null || ctx.requireCvv) {
    const problems = cvvProblems(cvv);
    if (problems.length > 0) {
      const sentence = `Validation failed: ${problems.join(', ')}`;
      throw fail.precondition(sentence, sentence);
    }
  }

  const known = ctx.sandbox ? testCard(pan) : undefined;
  const brand = known?.brand ?? brandOf(pan);
  const card: StoredCard = {
    cardholder: str(input.name),
    brand,
    bin: pan.slice(0, 6),
    last4: pan.slice(-4),
    length: pan.length,
    expiry_month: month,
    expiry_year: year,
    fingerprint: ctx.keyer(`card:${pan}`),
    address,
    profile: known?.profile ?? 'approve',
  };
  let problem: CardProblem | undefined;
  if (!luhnValid(pan)) problem = 'luhn';
  else if (ctx.sandbox && !known) problem = 'unknown';
  else if (isExpired(month, year, ctx.now, ctx.timeZone)) problem = 'expired';
  return { card, secret: { pan, cvv }, gatewayToken: null, ...(problem ? { problem } : {}) };
}

/**
 * The reference's CVV validations, in its order and words (a Rails model's: presence, numericality,
 * length, format). A missing CVV fails all four, as the reference's sandbox answers it. The failure
 * is the whole sentence, `Validation failed: CVV can't be blank, ...`, which the reference returns as
 * the error itself (in `errors` of a transaction, in `wallets.error` of a wallet).
 */
export function cvvProblems(cvv: string | null): string[] {
  const value = cvv ?? '';
  const problems: string[] = [];
  if (value === '') problems.push("CVV can't be blank");
  if (!/^[0-9]+$/.test(value)) problems.push('CVV should be a number');
  if (value.length < 3) problems.push('CVV too short (minimum is 3 characters)');
  if (value.length > 4) problems.push('CVV too long (maximum is 4 characters)');
  if (!/^[0-9]{3,4}$/.test(value)) problems.push('CVV should be 3 digits');
  return problems;
}

/** The reference's answer to a new card whose expiry has passed (its vault has no token for it). */
export const EXPIRED_CARD_ERROR = 'Validation failed: Credit card gateway token not found';

/**
 * What each card problem means, for people (no number in it). This text is stored on declined
 * transactions, so it never carries the sandbox's list of test numbers: that help goes only into
 * errors that are answered and not kept (`sandboxHelp`).
 */
export function cardProblemMessage(problem: CardProblem, card: StoredCard): string {
  switch (problem) {
    case 'luhn':
      return `INVALID ACCOUNT NUMBER: the card number ending ${card.last4} fails its check digit`;
    case 'unknown':
      return `INVALID ACCOUNT NUMBER: the card ending ${card.last4} is not a sandbox test card (the test cards are listed in the README)`;
    case 'expired':
      return `EXPIRED CARD: the card expired ${String(card.expiry_month).padStart(2, '0')}/${card.expiry_year}`;
  }
}

const BRAND_ALIASES: Record<string, string> = {
  visa: 'visa',
  mastercard: 'master',
  master: 'master',
  mc: 'master',
  amex: 'american_express',
  american_express: 'american_express',
  'american express': 'american_express',
  discover: 'discover',
  diners: 'diners_club',
  diners_club: 'diners_club',
  jcb: 'jcb',
  unionpay: 'unionpay',
};

function normalizeBrand(brand: string): string {
  const key = brand.trim().toLowerCase();
  return BRAND_ALIASES[key] ?? key.replace(/\s+/g, '_');
}

// Shared with the payment frame's bundle (src/shared/payment-fields.ts).
import { abaValid } from '../../shared/payment-fields';
export { abaValid };

export interface BankInputResult {
  bank: StoredBank;
  /** Set when the sandbox does not know the account. */
  problem?: 'unknown';
  gatewayToken: string | null;
}

/** A bank account object from a request (ACH with a routing number, EFT with institution and transit). */
export function parseBank(input: BankAccountInput, ctx: { keyer: Keyer; sandbox: boolean; defaultCurrency: string }): BankInputResult {
  const holder = str(input.account_holder);
  if (!holder) throw fail.precondition('name_unspecified', 'bank_account.account_holder is required');
  const routing = str(input.routing_number);
  const institution = str(input.institution_number);
  const branch = str(input.branch_number);
  if (!routing && !(institution && branch)) {
    throw fail.precondition('routing_unspecified', 'bank_account.routing_number (US) or institution_number and branch_number (CA) are required');
  }
  if (routing && !abaValid(routing)) throw fail.precondition('invalid_routing_number', 'bank_account.routing_number is not a valid 9-digit ABA routing number');
  if (!routing && (!/^[0-9]{3}$/.test(institution ?? '') || !/^[0-9]{5}$/.test(branch ?? ''))) {
    throw fail.precondition('invalid_routing_number', 'bank_account.institution_number must be 3 digits and branch_number 5 digits');
  }
  const imported = !input.account_number && str(input.gateway_token);
  const account = (input.account_number ?? '').replace(/[\s-]/g, '');
  if (!imported && !/^[0-9]{4,17}$/.test(account)) throw fail.precondition('malformed_account_number', 'bank_account.account_number must be 4 to 17 digits');

  let profile: SandboxProfile = imported ? 'imported' : 'ach_settles';
  let problem: 'unknown' | undefined;
  if (ctx.sandbox && !imported) {
    const testRoute = routing ? routing === ACH_TEST_ROUTING : institution === EFT_TEST_INSTITUTION && branch === EFT_TEST_BRANCH;
    if (testRoute && account === BANK_TEST_ACCOUNT) profile = 'ach_settles';
    else if (testRoute && account === BANK_RETURN_ACCOUNT) profile = 'ach_returns';
    else problem = 'unknown';
  }
  const country = routing ? 'US' : 'CA';
  const bank: StoredBank = {
    account_holder: holder,
    routing_number: routing,
    institution_number: routing ? null : institution,
    branch_number: routing ? null : branch,
    last4: imported ? '' : account.slice(-4),
    account_type: input.account_type ?? 'checking',
    check_type: input.check_type ?? null,
    currency: (input.currency ?? ctx.defaultCurrency).toLowerCase(),
    country,
    external_name: str(input.external_name),
    external_number: str(input.external_number),
    fingerprint: ctx.keyer(`bank:${routing ?? `${institution}-${branch}`}:${imported ? String(input.gateway_token) : account}`),
    address: toAddress(input.address),
    profile,
  };
  return { bank, gatewayToken: imported ? String(input.gateway_token) : null, ...(problem ? { problem } : {}) };
}

/** Stored on declined transactions like cardProblemMessage: no test numbers in it. */
export function bankProblemMessage(bank: StoredBank): string {
  return `INVALID ACCOUNT NUMBER: the account ending ${bank.last4} is not a sandbox test account (the test accounts are listed in the README)`;
}

/** The sandbox's test numbers, for an error answered at once and kept nowhere. */
export function sandboxHelp(kind: 'card' | 'bank'): string {
  return kind === 'card' ? `use ${TEST_CARD_LIST}` : `use ${BANK_TEST_LIST}`;
}
