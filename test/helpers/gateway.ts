import type { TransactionResponse } from '../../src/shared/schemas/gateway';
import { openHarness, type ApiClient, type Harness, type HarnessOptions } from './harness';

export * from './cards';
export type { Harness } from './harness';

/** The gateway rig: the harness with its API on loopback. */
export function startGateway(options: Omit<HarnessOptions, 'api'> = {}): Promise<Harness> {
  return openHarness({ ...options, api: true });
}

export type TxBody = TransactionResponse;
export type GatewayError = { success: false; errors: string[]; error: string };

/** POST a gateway operation; returns status and body. */
export async function op<T = TxBody>(api: ApiClient, action: string, body: unknown) {
  return api.post<T>(`/api/gateway/v1/orders/${action}`, body);
}
