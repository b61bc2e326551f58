/** The sandbox's test cards and accounts (spec/reference), shared by the gateway and register tests. */
export const VISA = '4895281000000006';
export const VISA_DECLINE = '4264280001234500';
export const MASTERCARD = '5541032000004422';
export const DISCOVER = '6011000990911111';
export const AMEX = '341111597242000';
export const TEST_PANS = [VISA, VISA_DECLINE, MASTERCARD, DISCOVER, AMEX];

export const ADDRESS = { address_1: '456 My Street', city: 'Ottawa', province: 'ON', postal_code: 'K1C2N6', country: 'CAN' };

export function card(number = VISA, overrides: Record<string, unknown> = {}) {
  return { name: 'Longbob Longsen', expiry_month: '12', expiry_year: 2030, card_number: number, cvv: '123', address: { ...ADDRESS }, ...overrides };
}

export const ACH = { currency: 'USD', account_type: 'checking', account_holder: 'Tim Coffee Ltd', account_number: '0000000016', routing_number: '122105278', address: { ...ADDRESS, country: 'US' } };
