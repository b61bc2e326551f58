/**
 * The sandbox's test numbers (the reference's "Testing Order Transactions"), and the two sandbox
 * ACH/EFT accounts. A card or account that is not listed here is unknown to the sandbox and declines
 * with response code 211 (invalid account number).
 */
export type SandboxProfile = 'approve' | 'decline' | 'ach_settles' | 'ach_returns' | 'imported';

export interface TestCard {
  number: string;
  brand: string;
  profile: SandboxProfile;
}

export const TEST_CARDS: readonly TestCard[] = [
  { number: '4895281000000006', brand: 'visa', profile: 'approve' },
  { number: '4264280001234500', brand: 'visa', profile: 'decline' },
  { number: '5541032000004422', brand: 'master', profile: 'approve' },
  { number: '6011000990911111', brand: 'discover', profile: 'approve' },
  { number: '341111597242000', brand: 'american_express', profile: 'approve' },
];

export const TEST_CARD_LIST = 'Visa 4895281000000006, Mastercard 5541032000004422, Discover 6011000990911111, Amex 341111597242000 (Visa 4264280001234500 always declines)';

export const ACH_TEST_ROUTING = '122105278';
export const EFT_TEST_INSTITUTION = '001';
export const EFT_TEST_BRANCH = '00011';
/** Settles normally. */
export const BANK_TEST_ACCOUNT = '0000000016';
/** Accepted and settled, then returned R01 (insufficient funds) three days after its processing day. */
export const BANK_RETURN_ACCOUNT = '0000000024';

export const BANK_TEST_LIST = `ACH routing ${ACH_TEST_ROUTING} (or EFT institution ${EFT_TEST_INSTITUTION} transit ${EFT_TEST_BRANCH}) with account ${BANK_TEST_ACCOUNT} (settles) or ${BANK_RETURN_ACCOUNT} (returned R01 days later)`;

export function testCard(pan: string): TestCard | undefined {
  return TEST_CARDS.find((c) => c.number === pan);
}

/** Days after its processing day at whose cut-off an ACH/EFT transaction settles, and is returned. */
export const BANK_SETTLE_DAYS = 1;
export const BANK_RETURN_DAYS = 3;

/**
 * The sandbox's chargeback: an approved card sale or capture (keyed or on a lane) whose amount ends
 * in .66 is charged back, for what is left of it after refunds, at the cut-off ten processing days
 * after its processing day, reason 10.4 (Visa's "Other fraud: card-absent environment").
 */
export const CHARGEBACK_CENTS_ENDING = 66;
export const CHARGEBACK_DAYS = 10;
export const CHARGEBACK_REASON = { code: '10.4', description: 'Other Fraud - Card Absent Environment' };

export const chargedBack = (cents: number) => Math.abs(cents) % 100 === CHARGEBACK_CENTS_ENDING;

/**
 * The sandbox's processing fees, taken from each batch's deposit (fees `included_in_batch_deposit`):
 * cards and lanes pay interchange of 1.50% of the batch's sales (rounded half up, once per batch)
 * and 10 cents a sale to the processor; ACH/EFT pays 25 cents a debit. Fee-exempt transactions pay none.
 */
export const FEE_SCHEDULE = { interchange_basis_points: 150, card_per_sale_cents: 10, bank_per_debit_cents: 25 };
