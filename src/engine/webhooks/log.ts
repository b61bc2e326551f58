import type { EngineCore, Tx } from '../core';
import { getRecord, putRecord } from '../records';

/** The persisted side of deliveries: where each endpoint is in the stream, retries, and the attempt log. */
export const CURSOR = 'webhook_cursor';
export const DELIVERY = 'webhook_delivery';
export const ATTEMPT = 'webhook_attempt';

/** A delivery that needed more than one attempt (a first-time success leaves only its attempt). */
export interface DeliveryData {
  id: string;
  endpoint: string;
  watermark: number;
  type: string;
  entity: string;
  key: string;
  state: 'retrying' | 'delivered' | 'failed';
  attempts: number;
  first_attempt_ms: number;
  next_attempt_ms: number;
  last_status: number;
  updated_at: string;
}

/** One POST of a delivery: the delivery log at /api/developers/webhook_responses. */
export interface AttemptData {
  id: string;
  delivery: string;
  endpoint: string;
  url: string;
  event_watermark: number;
  event_type: string;
  entity: string;
  key: string;
  attempt: number;
  manual: boolean;
  at: string;
  status: number;
  latency_ms: number;
  outcome: 'delivered' | 'retry' | 'failed';
  error: string | null;
  body_excerpt: string;
}

export const deliveryId = (endpoint: string, watermark: number) => `${endpoint}.${watermark}`;

export async function readCursor(reader: Tx | EngineCore, endpoint: string): Promise<number | undefined> {
  return (await getRecord<{ watermark: number }>(reader, CURSOR, endpoint))?.data.watermark;
}

export async function writeCursor(tx: Tx, endpoint: string, watermark: number): Promise<void> {
  await putRecord(tx, CURSOR, endpoint, { watermark }, { type: 'webhook_cursor.updated', entity: 'webhook_cursor', key: endpoint }, endpoint);
}

export async function writeDelivery(tx: Tx, d: DeliveryData): Promise<void> {
  await putRecord(tx, DELIVERY, d.id, d, { type: 'webhook_delivery.updated', entity: 'webhook_delivery', key: d.id, data: { state: d.state, attempts: d.attempts } }, d.endpoint);
}

export async function writeAttempt(tx: Tx, a: AttemptData): Promise<number> {
  return (await putRecord(tx, ATTEMPT, a.id, a, { type: 'webhook_attempt.created', entity: 'webhook_attempt', key: a.id, data: { status: a.status, outcome: a.outcome } }, a.endpoint)).watermark;
}

/** Attempts newest first, before a watermark (the log's pages). */
export async function attemptsBefore(core: EngineCore, before: number, limit: number, endpoint?: string): Promise<Array<AttemptData & { watermark: number }>> {
  const rows = await core.find<{ id: string; watermark: number; data: AttemptData; [k: string]: unknown }>('records', {
    selector: { kind: ATTEMPT, watermark: { $lt: before }, ...(endpoint ? { ref: endpoint } : {}) },
    sort: [{ kind: 'desc' }, { watermark: 'desc' }],
    limit,
  });
  return rows.map((r) => ({ ...r.data, watermark: r.watermark }));
}
