import type { ApiClient } from '../helpers/harness';
import { TEST_KEY, TEST_TOKEN } from '../helpers/harness';

/** The reference's credentials-in-the-body, with the harness's API token and key. */
export const gatewayAuthorization = { apiToken: TEST_TOKEN, apiKey: TEST_KEY };

export const ADDRESS = { contactFirstName: 'Jane', contactLastName: 'Smith', address1: '123 Main Street', city: 'Anytown', stateOrProvince: 'CA', postCode: '55555', country: 'US', email: 'jane@example.com' };

/** A sale as the reference's example has it: two lines, shipping and tax, decimal amounts. */
export function sale(orderNumber: string, extra: Record<string, unknown> = {}) {
  return {
    gatewayAuthorization,
    orderNumber,
    currency: 'USD',
    billingAddress: ADDRESS,
    shippingAddress: ADDRESS,
    lines: [
      { number: 'W1', description: 'Widget', price: 10.5, quantity: 2 },
      { number: 'G1', description: 'Gadget', price: 4, quantity: 1, discount: 1 },
    ],
    shippingAmount: 5.05,
    taxAmount: 1.45,
    ...extra,
  };
}
/** 10.50 x 2 + (4 - 1) + 5.05 + 1.45 */
export const SALE_TOTAL = 30.5;

export async function newSession(api: ApiClient, options: Record<string, unknown> = {}): Promise<string> {
  const res = await api.post<{ id: string }>('/api/v2/sessions', { gatewayAuthorization, options }, null);
  if (res.status !== 201) throw new Error(`session: ${res.status} ${res.text}`);
  return res.body.id;
}

export const card = (accountNumber: string, extra: Record<string, unknown> = {}) => ({
  type: 'creditCard',
  accountHolder: 'Jane Smith',
  accountNumber,
  expirationMonth: 12,
  expirationYear: 2030,
  cardVerificationValue: accountNumber.startsWith('34') ? '6789' : '123',
  ...extra,
});

export async function tokenFor(api: ApiClient, session: string, body: Record<string, unknown>): Promise<string> {
  const res = await api.post<{ token: string }>(`/api/v2/sessions/${session}/tokens`, body, null);
  if (res.status !== 201) throw new Error(`token: ${res.status} ${res.text}`);
  return res.body.token;
}
