import type { EngineCore, Tx } from '../core';
import { authorizeLasting, type Account, type Principal } from '../account';
import type { DomainEvent } from '../events';
import { fail } from '../errors';
import { getRecord, recordId } from '../records';
import type { InstallKeys } from '../security/install-keys';
import { isWebhookKind, renderPayload, type PayloadSources } from './kinds';
import { signatureOf } from './signing';
import {
  ENDPOINT,
  getEndpoint,
  listEndpoints,
  loadSigningKey,
  newEndpoint,
  patchEndpoint,
  putEndpoint,
  rollSigningKey,
  signingKeyInfo,
  type EndpointData,
  type EndpointInput,
  type SigningKeyInfo,
} from './settings';
import { attemptById, attemptsBefore, CURSOR, packable, writeAttempt, writeCursor, writeDelivery, writePacks, type AttemptData, type DeliveryData } from './log';
import { SharedBodies } from './bodies';
import { attemptRecord, DEFAULT_DELIVERY, EndpointWorker, type DeliveryOptions } from './worker';

export type { EndpointData, EndpointInput, SigningKeyInfo } from './settings';
export type { AttemptData } from './log';
export { WEBHOOK_EVENT_KINDS, WEBHOOK_KIND_NAMES } from './kinds';
export { signatureOf } from './signing';

/** What an endpoint's deliveries let its receiver read: the records, as a `read` credential would. */
const FEED_SCOPES = ['read'] as const;

export interface Webhooks {
  settings(): Promise<{ endpoints: EndpointData[]; signing_key: SigningKeyInfo | null }>;
  /** A new endpoint; the account's first one also makes the signing key, shown in this answer only. */
  /**
   * `by` (absent: the install itself) must be able to make a lasting credential (authorizeLasting):
   * an endpoint goes on receiving records after the request, so a JWT minted by whoami, which
   * would leave a feed outliving it, cannot add one or point one elsewhere.
   */
  create(input: EndpointInput, by?: Principal): Promise<{ endpoint: EndpointData; signing_key?: string }>;
  /** Changing the address or the events, or turning an endpoint on, is held to create's rule; the rest is not. */
  update(id: string, input: EndpointInput, by?: Principal): Promise<EndpointData>;
  remove(id: string): Promise<void>;
  /** A new signing key: deliveries are signed with it from now on; shown in this answer only. */
  rollSigningKey(): Promise<{ signing_key: string } & SigningKeyInfo>;
  /** The delivery log, newest first. */
  responses(page: { before?: number; limit: number; endpoint?: string }): Promise<{ webhook_responses: Array<AttemptData & { watermark: number }>; next_before: number | null }>;
  /** Sends an attempt's event to its endpoint again now, with the record as it stands; logs and answers the attempt. */
  resend(attemptId: string): Promise<AttemptData & { watermark: number }>;
  /** The server's public base URL, for pay links in invoice bodies (the server sets it). */
  setPublicUrl(url: () => string): void;
  /** Resolves once no delivery is in flight or due and the log is written (tests, benchmarks). */
  drain(): Promise<void>;
  close(): Promise<void>;
}

export interface WebhookDeps {
  core: EngineCore;
  account: Account;
  keys: InstallKeys;
  sources: Omit<PayloadSources, 'publicUrl'>;
  options?: Partial<DeliveryOptions>;
  /** False: settings only, nothing is delivered (the admin CLI's engine). */
  deliver?: boolean;
}

interface Buffered {
  attempts: AttemptData[];
  deliveries: Map<string, DeliveryData>;
  cursors: Map<string, number>;
}

const FLUSH_MS = 200;
const FLUSH_AT = 500;

/**
 * Webhooks on the engine's one event stream (spec, Events). Settings are records; each enabled
 * endpoint has a worker (worker.ts) reading the `events` outbox from its own cursor.
 */
export async function createWebhooks(deps: WebhookDeps): Promise<Webhooks> {
  const { core, account, keys } = deps;
  const options: DeliveryOptions = { ...DEFAULT_DELIVERY, ...deps.options };
  let publicUrl = () => '';
  let signingKey: Promise<string | undefined> | undefined;
  const workers = new Map<string, EndpointWorker>();
  let buffer: Buffered = { attempts: [], deliveries: new Map(), cursors: new Map() };
  let flushTimer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();
  let closed = false;

  const flush = (): Promise<void> => {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = undefined;
    const batch = buffer;
    buffer = { attempts: [], deliveries: new Map(), cursors: new Map() };
    if (batch.attempts.length === 0 && batch.deliveries.size === 0 && batch.cursors.size === 0) return flushing;
    flushing = flushing.then(() =>
      core
        .mutate(async (tx) => {
          for (const d of batch.deliveries.values()) await writeDelivery(tx, d);
          await writePacks(tx, batch.attempts.filter(packable), () => core.ids.token());
          for (const a of batch.attempts) if (!packable(a)) await writeAttempt(tx, a);
          for (const [endpoint, watermark] of batch.cursors) if (await getRecord(tx, ENDPOINT, endpoint)) await writeCursor(tx, endpoint, watermark);
        })
        .catch((err: unknown) => core.logger.error({ err }, 'webhook log not written')),
    );
    return flushing;
  };

  const sources: PayloadSources = { ...deps.sources, publicUrl: () => publicUrl() };
  const renderNow = async (event: DomainEvent) => {
    const view = await renderPayload(sources, event.entity, event.key);
    return view === undefined ? undefined : Buffer.from(JSON.stringify(view));
  };
  const bodies = new SharedBodies(renderNow);
  // A shared body is signed once: the same bytes and the same key make the same signature.
  const signatures = new WeakMap<Buffer, { key: string; signature: string }>();
  const ports = {
    core,
    options,
    externalOnly: () => account.profile().environment === 'production',
    render: (event: DomainEvent) => bodies.body(event),
    async sign(body: Buffer) {
      signingKey ??= loadSigningKey(core, keys);
      const key = await signingKey;
      if (!key) return undefined;
      let signed = signatures.get(body);
      if (signed?.key !== key) signatures.set(body, (signed = { key, signature: signatureOf(key, body) }));
      return { 'X-Service-Signature': signed.signature };
    },
    record(endpoint: string, w: { attempt?: AttemptData; delivery?: DeliveryData; cursor?: number }) {
      if (w.attempt) buffer.attempts.push(w.attempt);
      if (w.delivery) buffer.deliveries.set(w.delivery.id, w.delivery);
      if (w.cursor !== undefined) buffer.cursors.set(endpoint, w.cursor);
      if (buffer.attempts.length >= FLUSH_AT) void flush();
      else flushTimer ??= setTimeout(() => void flush(), FLUSH_MS);
    },
    async disable(endpoint: EndpointData, reason: string) {
      await flush();
      const next = await core.mutate(async (tx) => {
        const current = await getEndpoint(tx, endpoint.id);
        return putEndpoint(tx, { ...current, enabled: false, disabled_reason: reason, disabled_at: tx.at, updated_at: tx.at }, 'webhook_endpoint.disabled');
      });
      core.logger.warn({ endpoint: endpoint.id, url: endpoint.url, reason }, 'webhook endpoint disabled: a delivery failed for the whole retry period');
      workers.get(endpoint.id)?.update(next);
    },
  };

  const track = (endpoint: EndpointData) => {
    if (deps.deliver === false) return;
    const existing = workers.get(endpoint.id);
    if (existing) return existing.update(endpoint);
    const worker = new EndpointWorker(endpoint, ports);
    workers.set(endpoint.id, worker);
    worker.pump();
  };
  for (const endpoint of await listEndpoints(core)) track(endpoint);

  const unsubscribe = core.bus.subscribe((event) => {
    bodies.published(event);
    if (event.type === 'webhook_signing_key.rolled') signingKey = undefined;
    if (!isWebhookKind(event.type)) return;
    for (const w of workers.values()) if (w.endpoint.enabled && w.endpoint.events.includes(event.type)) w.pump();
  });
  core.onTick('webhooks', async () => {
    for (const w of workers.values()) w.pump();
  });

  const environment = () => account.profile().environment;
  const startCursor = async (tx: Tx, id: string) => writeCursor(tx, id, core.currentWatermark());

  return {
    async settings() {
      return { endpoints: await listEndpoints(core), signing_key: await signingKeyInfo(core) };
    },
    async create(input, by) {
      authorizeLasting(by, 'a webhook endpoint', FEED_SCOPES);
      const made = await core.mutate(async (tx) => {
        const endpoint = await putEndpoint(tx, newEndpoint(core.ids.token(), tx.at, input, environment()), 'webhook_endpoint.created');
        // It takes events from now on: the cursor is the stream's end as this unit commits.
        await startCursor(tx, endpoint.id);
        const key = (await signingKeyInfo(tx)) ? undefined : await rollSigningKey(tx, keys);
        return { endpoint, ...(key ? { signing_key: key.signing_key } : {}) };
      });
      signingKey = undefined;
      track(made.endpoint);
      return made;
    },
    async update(id, input, by) {
      if (input.url !== undefined || input.events !== undefined || input.enabled === true) authorizeLasting(by, "a webhook endpoint's address, events or delivery", FEED_SCOPES);
      const next = await core.mutate(async (tx) => putEndpoint(tx, patchEndpoint(await getEndpoint(tx, id), tx.at, input, environment()), 'webhook_endpoint.updated'));
      track(next);
      return next;
    },
    async remove(id) {
      await core.mutate(async (tx) => {
        await getEndpoint(tx, id);
        await tx.remove('records', recordId(ENDPOINT, id), { type: 'webhook_endpoint.deleted', entity: 'webhook_endpoint', key: id });
        await tx.remove('records', recordId(CURSOR, id), { type: 'webhook_cursor.deleted', entity: 'webhook_cursor', key: id });
      });
      workers.get(id)?.stop();
      workers.delete(id);
    },
    async rollSigningKey() {
      const rolled = await core.mutate((tx) => rollSigningKey(tx, keys));
      signingKey = undefined;
      return rolled;
    },
    async responses(page) {
      const rows = await attemptsBefore(core, page.before ?? Number.MAX_SAFE_INTEGER, page.limit, page.endpoint);
      return { webhook_responses: rows, next_before: rows.length === page.limit ? rows[rows.length - 1]!.watermark : null };
    },
    async resend(attemptId) {
      const previous = await attemptById(core, attemptId);
      if (!previous) throw fail.notFound('webhook_response_not_found', `No webhook response ${attemptId}`);
      const endpoint = await getEndpoint(core, previous.endpoint);
      const { event } = previous;
      // A packed attempt's id is made of its delivery: it must name an event the endpoint takes.
      if (previous.packed && !endpoint.events.includes(event.type)) throw fail.notFound('webhook_response_not_found', `No webhook response ${attemptId}`);
      const body = await renderNow(event);
      if (!body) throw fail.notFound('webhook_record_gone', `The ${event.entity} ${event.key} no longer exists`);
      const worker = workers.get(endpoint.id) ?? new EndpointWorker(endpoint, ports);
      // Still retrying on a schedule: this is that delivery's next attempt, and a success ends it.
      const held = endpoint.enabled ? worker.takeForResend(event.watermark) : undefined;
      const number = held?.attempt ?? previous.attempt + 1;
      const at = new Date(core.clock.now()).toISOString();
      const outcome = await worker.send(event, body, number).catch((err: unknown) => {
        held?.done(false, 0);
        throw err;
      });
      // A failed resend of a delivery on a schedule leaves it retrying there.
      const attempt = attemptRecord(endpoint, event, number, true, at, outcome, outcome.ok ? 'delivered' : held ? 'retry' : 'failed', `r${core.ids.token()}`);
      const watermark = await core.mutate((tx) => writeAttempt(tx, attempt));
      held?.done(outcome.ok, outcome.status);
      return { ...attempt, watermark };
    },
    setPublicUrl(url) {
      publicUrl = url;
    },
    async drain() {
      for (;;) {
        for (const w of workers.values()) w.pump();
        await Promise.all([...workers.values()].map((w) => w.settled()));
        if (![...workers.values()].some((w) => w.busy())) break;
      }
      await flush();
    },
    async close() {
      if (closed) return;
      closed = true;
      unsubscribe();
      for (const w of workers.values()) w.stop();
      await flush();
    },
  };
}
