import { openTestEngine, type TestEngine } from '../helpers/engine';
import { startApi, type ApiClient } from '../helpers/http';
import type { CardPresentPort } from '../../src/engine/card-present';
import type { ReceivablesPort } from '../../src/engine/wallets/autopay-port';
import type { TransactionResponse } from '../../src/shared/schemas/gateway';

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

export interface Harness {
  t: TestEngine;
  api: ApiClient;
  close(): Promise<void>;
}

export async function startGateway(options: { timezone?: string; cardPresent?: CardPresentPort; receivables?: ReceivablesPort } = {}): Promise<Harness> {
  const t = await openTestEngine(options.timezone ? { timezone: options.timezone } : {});
  if (options.cardPresent) t.engine.gateway.setCardPresent(options.cardPresent);
  if (options.receivables) t.engine.autopay.setReceivables(options.receivables);
  const api = await startApi(t.engine);
  return {
    t,
    api,
    async close() {
      await api.close();
      await t.close();
    },
  };
}

export type TxBody = TransactionResponse;
export type GatewayError = { success: false; errors: string[]; error: string };

/** POST a gateway operation; returns status and body. */
export async function op<T = TxBody>(api: ApiClient, action: string, body: unknown) {
  return api.post<T>(`/api/gateway/v1/orders/${action}`, body);
}
