import type { EngineCore, Tx } from '../core';
import { eventId } from '../core';
import type { DomainEvent } from '../events';
import { getRecord, putRecord, type RecordDoc } from '../records';
import { EXCERPT_CHARS } from './deliver';

/** The persisted side of deliveries: where each endpoint is in the stream, retries, and the attempt log. */
export const CURSOR = 'webhook_cursor';
export const DELIVERY = 'webhook_delivery';
export const ATTEMPT = 'webhook_attempt';
/** First-attempt successes, many to a record (see AttemptPack). */
export const ATTEMPT_PACK = 'webhook_attempt_pack';

/**
 * Places in the log per log record: an entry's place (`watermark` in the log's answers, and the
 * `before` of its pages) is its record's watermark times this, plus its index in a pack, so a page
 * can end inside a pack and the next one starts right after it.
 */
export const PACK_SLOTS = 1000;

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

/** A first-attempt success in a pack: event watermark, type, entity, key, at, latency, answer excerpt (status 200). */
type PackedAttempt = [number, string, string, string, string, number, string];

/**
 * The first attempts that succeeded, of one endpoint, logged by one flush: nearly every delivery,
 * so one record (and one event) holds up to PACK_SLOTS of them instead of one each. Retries,
 * failures and resends keep a record of their own (AttemptData) with their delivery's state.
 */
export interface AttemptPack {
  endpoint: string;
  url: string;
  entries: PackedAttempt[];
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
  const written = await putRecord(tx, ATTEMPT, a.id, a, { type: 'webhook_attempt.created', entity: 'webhook_attempt', key: a.id, data: { status: a.status, outcome: a.outcome } }, a.endpoint);
  return written.watermark * PACK_SLOTS;
}

export const packable = (a: AttemptData) => a.attempt === 1 && a.outcome === 'delivered' && !a.manual;

/** Logs first-attempt successes, one record per endpoint (and URL) and PACK_SLOTS of them. */
export async function writePacks(tx: Tx, attempts: AttemptData[], newKey: () => string): Promise<void> {
  const packs = new Map<string, AttemptPack>();
  for (const a of attempts) {
    const slot = `${a.endpoint}\u0000${a.url}`;
    let pack = packs.get(slot);
    if (!pack || pack.entries.length >= PACK_SLOTS) {
      if (pack) await writePack(tx, pack, newKey());
      pack = { endpoint: a.endpoint, url: a.url, entries: [] };
      packs.set(slot, pack);
    }
    pack.entries.push([a.event_watermark, a.event_type, a.entity, a.key, a.at, a.latency_ms, a.body_excerpt]);
  }
  for (const pack of packs.values()) await writePack(tx, pack, newKey());
}

async function writePack(tx: Tx, pack: AttemptPack, token: string): Promise<void> {
  const key = `${pack.endpoint}.${token}`;
  await putRecord(tx, ATTEMPT_PACK, key, pack, { type: 'webhook_attempts.logged', entity: 'webhook_attempt_pack', key, data: { count: pack.entries.length } }, pack.endpoint);
}

function unpack(pack: AttemptPack, i: number): AttemptData {
  const [watermark, type, entity, key, at, latency, excerpt] = pack.entries[i]!;
  const delivery = deliveryId(pack.endpoint, watermark);
  return {
    id: `${delivery}.1`,
    delivery,
    endpoint: pack.endpoint,
    url: pack.url,
    event_watermark: watermark,
    event_type: type,
    entity,
    key,
    attempt: 1,
    manual: false,
    at,
    status: 200,
    latency_ms: latency,
    outcome: 'delivered',
    error: null,
    body_excerpt: excerpt.slice(0, EXCERPT_CHARS),
  };
}

type LogRecord = RecordDoc<AttemptData | AttemptPack>;

/** Log records of a kind, newest first, with watermark < below, read a few at a time. */
async function* newestFirst(core: EngineCore, kind: string, below: number, endpoint: string | undefined, chunk: number): AsyncGenerator<LogRecord> {
  for (;;) {
    const rows = await core.find<LogRecord & { [k: string]: unknown }>('records', {
      selector: { kind, watermark: { $lt: below }, ...(endpoint ? { ref: endpoint } : {}) },
      sort: [{ kind: 'desc' }, { watermark: 'desc' }],
      limit: chunk,
    });
    yield* rows;
    if (rows.length < chunk) return;
    below = rows[rows.length - 1]!.watermark;
  }
}

/** Attempts newest first, at places before `before` (the log's pages): single records and packs merged by watermark. */
export async function attemptsBefore(core: EngineCore, before: number, limit: number, endpoint?: string): Promise<Array<AttemptData & { watermark: number }>> {
  const below = Math.floor((before - 1) / PACK_SLOTS) + 1;
  const chunk = Math.min(limit + 1, 50);
  const singles = newestFirst(core, ATTEMPT, below, endpoint, chunk);
  const packs = newestFirst(core, ATTEMPT_PACK, below, endpoint, Math.min(chunk, 8));
  let single = (await singles.next()).value as LogRecord | undefined;
  let pack = (await packs.next()).value as LogRecord | undefined;
  const out: Array<AttemptData & { watermark: number }> = [];
  while (out.length < limit && (single || pack)) {
    if (single && (!pack || single.watermark > pack.watermark)) {
      const place = single.watermark * PACK_SLOTS;
      const own = single.data as AttemptData;
      // Attempts logged when excerpts were longer are shown as short as new ones.
      if (place < before) out.push({ ...own, body_excerpt: own.body_excerpt.slice(0, EXCERPT_CHARS), watermark: place });
      single = (await singles.next()).value as LogRecord | undefined;
    } else {
      const data = pack!.data as AttemptPack;
      for (let i = data.entries.length - 1; i >= 0 && out.length < limit; i--) {
        const place = pack!.watermark * PACK_SLOTS + i;
        if (place < before) out.push({ ...unpack(data, i), watermark: place });
      }
      pack = (await packs.next()).value as LogRecord | undefined;
    }
  }
  await singles.return(undefined);
  await packs.return(undefined);
  return out;
}

/**
 * An attempt of the log by its id: its own record, or a packed first attempt
 * (`<endpoint>.<event watermark>.1`), whose event is read back from the outbox.
 */
export async function attemptById(core: EngineCore, id: string): Promise<{ endpoint: string; event: DomainEvent; attempt: number; packed: boolean } | undefined> {
  const own = (await getRecord<AttemptData>(core, ATTEMPT, id))?.data;
  if (own) return { endpoint: own.endpoint, attempt: own.attempt, packed: false, event: { watermark: own.event_watermark, type: own.event_type, entity: own.entity, key: own.key, at: own.at } };
  const packed = /^(.+)\.(\d{1,15})\.1$/.exec(id);
  if (!packed) return undefined;
  const row = await core.get<{ id: string; watermark: number; type: string; entity: string; key: string; data: { at: string }; [k: string]: unknown }>('events', eventId(Number(packed[2])));
  if (!row) return undefined;
  return { endpoint: packed[1]!, attempt: 1, packed: true, event: { watermark: row.watermark, type: row.type, entity: row.entity, key: row.key, at: row.data.at } };
}
