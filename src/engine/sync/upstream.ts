import { createHash } from 'node:crypto';
import { interval, map, Subject, type Subscription } from 'rxjs';
import { replicateRxCollection, type RxReplicationState } from 'rxdb/plugins/replication';
import { getComposedPrimaryKeyOfDocumentData, type RxCollection, type RxConflictHandler } from 'rxdb';
import type { EngineCore } from '../core';
import type { InstallKeys } from '../security/install-keys';
import type { Receivables } from '../receivables';
import type { Orders } from '../orders';
import { fail } from '../errors';
import { getRecord, putRecord, recordId } from '../records';
import { openSecret, sealSecret, type SealedSecret } from '../webhooks/signing';
import { pageRecords } from '../../sync/poller';
import type { StreamStatus } from './lane-client';
import { docsOf, localSide, sameBody, UPSTREAM_DOC_SCHEMA, upstreamFork, type LocalSide, type UpstreamDoc } from './upstream-fork';
import { invoicesOfPayment, invoiceBody, UPSTREAM_ENTITIES, type Body, type EntitySpec } from './upstream-shapes';

/**
 * A hub's replication with an upstream service speaking this API (another Laneway, or the cloud
 * service): per entity (customers, invoices, payments) one RxDB replication
 * (`replicateRxCollection`). Pull polls the upstream's export operation by the spec's watermark
 * protocol (`watermark`, `list=true`, `limit` 2500; the greatest watermark seen is the checkpoint);
 * push sends this install's changed records to the upstream's import operation, which upserts on
 * the record's identifier (so a record pushed twice is one record). RxDB persists both checkpoints
 * and each record's last exchanged version in its meta table (same SQLite file): a restart, a cut
 * link or a SIGKILL resumes from the last confirmed page, and a record is sent again only when its
 * body changed.
 */
export interface UpstreamConfig {
  url: string;
  token: string;
  key: SealedSecret;
  set_at: string;
  paused: boolean;
}

export interface UpstreamView {
  url: string;
  token: string;
  set_at: string;
  paused: boolean;
}

export interface Upstream {
  configure(input: { url: string; token: string; key: string }): Promise<UpstreamView>;
  config(): Promise<UpstreamView | null>;
  remove(): Promise<void>;
  start(options?: { pollMs?: number; retryMs?: number }): Promise<void>;
  running(): boolean;
  paused(): boolean;
  pause(): Promise<void>;
  resume(): Promise<void>;
  streams(): Promise<StreamStatus[]>;
  awaitInSync(): Promise<void>;
  close(): Promise<void>;
}

const KIND = 'sync_upstream';
const TIMEOUT_MS = 30_000;
export const UPSTREAM_PAGE = 2500;

class UpstreamRefused extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`upstream answered ${status}: ${body.slice(0, 300)}`);
  }
}

export function createUpstream(core: EngineCore, keys: InstallKeys, domains: { receivables: Receivables; orders?: Orders }, onChange: () => void): Upstream {
  let states: Array<{ entity: EntitySpec; state: RxReplicationState<UpstreamDoc, { watermark: number }>; subs: Subscription[] }> = [];
  let options: { pollMs?: number; retryMs?: number } = {};
  let isPaused = false;
  const status = new Map<string, StreamStatus>();
  const iso = () => new Date(core.clock.now()).toISOString();
  const locals = new Map(UPSTREAM_ENTITIES.map((e) => [e.name, localSide(core, domains.receivables, domains.orders, e)]));
  const local = (name: EntitySpec['name']) => locals.get(name) as LocalSide;

  const view = (c: UpstreamConfig): UpstreamView => ({ url: c.url, token: c.token, set_at: c.set_at, paused: c.paused });
  const stored = async () => (await getRecord<UpstreamConfig>(core, KIND, 'config'))?.data;
  const saveConfig = (c: UpstreamConfig) => core.mutate((tx) => putRecord(tx, KIND, 'config', c, { type: 'sync_upstream.updated', entity: 'sync', key: 'upstream' }));

  const exception = (entity: string, key: string, direction: 'pull' | 'push', err: unknown) =>
    core.mutate((tx) =>
      putRecord(tx, 'sync_exception', `upstream:${direction}:${entity}:${key}`, { peer: 'upstream', document: `${entity}/${key}`, reason: 'upstream_refused', direction, message: err instanceof Error ? err.message : String(err), at: tx.at }, { type: 'sync_exception.created', entity: 'sync_exception', key: `${entity}/${key}` }),
    );

  const build = (config: UpstreamConfig) => {
    const base = config.url.replace(/\/$/, '');
    const auth = `Basic ${Buffer.from(`${config.token}:${openSecret(keys, config.key)}`).toString('base64')}`;
    const call = async (path: string, init: RequestInit = {}): Promise<unknown> => {
      const res = await fetch(`${base}${path}`, { ...init, headers: { authorization: auth, accept: 'application/json', ...(init.body ? { 'content-type': 'application/json' } : {}) }, signal: AbortSignal.timeout(TIMEOUT_MS) });
      const text = await res.text();
      // A refusal of the record itself (4xx but auth) is the record's; anything else is the link's.
      if (res.status >= 400 && res.status < 500 && res.status !== 401 && res.status !== 403 && res.status !== 429) throw new UpstreamRefused(res.status, text);
      if (!res.ok) throw new Error(`upstream answered ${res.status}: ${text.slice(0, 200)}`);
      return text ? (JSON.parse(text) as unknown) : {};
    };
    const send = async (entity: EntitySpec, body: Body) => {
      try {
        await call(entity.importPath, { method: 'POST', body: JSON.stringify(body) });
      } catch (err) {
        // The order import creates with POST (the same content again is fine) and updates with PATCH.
        if (!(entity.name === 'orders' && err instanceof UpstreamRefused && err.body.includes('order_exists'))) throw err;
        await call(entity.importPath, { method: 'PATCH', body: JSON.stringify(body) });
      }
    };
    const invoices = UPSTREAM_ENTITIES.find((e) => e.name === 'invoices')!;
    const succeed = (s: StreamStatus, checkpoint?: number) => {
      const wasFailing = s.last_error !== null;
      s.last_success_at = iso();
      s.last_error = null;
      if (checkpoint !== undefined && checkpoint > s.checkpoint) s.checkpoint = checkpoint;
      if (wasFailing) onChange();
    };
    // The spec's polling: the greatest watermark seen is the next start, and RxDB persists it.
    const pullHandler = (entity: EntitySpec, s: StreamStatus, poll$: Subject<'RESYNC'>) => ({
      batchSize: UPSTREAM_PAGE,
      stream$: poll$.asObservable(),
      handler: async (checkpoint: { watermark: number } | undefined, batchSize: number) => {
        const from = checkpoint?.watermark ?? 0;
        const page = (await call(`${entity.exportPath}?watermark=${from}&list=true&limit=${batchSize}`)) as Record<string, unknown>;
        const records = pageRecords(page[entity.name]);
        const top = records.reduce((w, r) => Math.max(w, r.watermark), from);
        succeed(s, top);
        if (records.length > 0) onChange();
        return { documents: docsOf(entity, records) as never, checkpoint: { watermark: top } };
      },
    });
    // The identifier is the upstream's address: another upstream starts from watermark 0.
    const peerId = createHash('sha256').update(base).digest('hex').slice(0, 12);

    for (const entity of UPSTREAM_ENTITIES) {
      const s = status.get(entity.name)!;
      const real = core.store.collection(entity.collection);
      const schema = UPSTREAM_DOC_SCHEMA(real.schema.version);
      const ownInvoice = async (number: string) => docsOf(invoices, await local('invoices').page(((await local('invoices').watermarkOf(number)) ?? 1) - 1, 1))[0];
      const fork = upstreamFork(core, entity, local(entity.name), schema, {
        refused: async (key, _body, err) => {
          await exception(entity.name, key, 'pull', err);
        },
        // A pulled payment may name an invoice the invoice stream has not brought yet.
        prepare:
          entity.name === 'payments'
            ? async (body) => {
                for (const number of invoicesOfPayment(body)) {
                  if ((await local('invoices').watermarkOf(number)) !== undefined) continue;
                  const inv = invoiceBody((await call(invoices.viewPath(number))) as Record<string, unknown>);
                  if (inv) await local('invoices').import(inv);
                }
              }
            : undefined,
      });
      const conflictHandler: RxConflictHandler<UpstreamDoc> = {
        isEqual: (a, b) => sameBody(a, b),
        // Changed on both sides while apart: this install's version is pushed (see docs/sync.md).
        resolve: async (input) => input.newDocumentState,
      };
      const facade = Object.create(real, {
        storageInstance: { value: fork },
        conflictHandler: { value: conflictHandler },
        schema: { value: { jsonSchema: schema, primaryPath: 'id', version: real.schema.version } },
        onClose: { value: [] },
      }) as RxCollection<UpstreamDoc>;
      const poll$ = new Subject<'RESYNC'>();
      const subs: Subscription[] = [interval(options.pollMs ?? 5000).pipe(map(() => 'RESYNC' as const)).subscribe(poll$)];
      const state = replicateRxCollection<UpstreamDoc, { watermark: number }>({
        replicationIdentifier: `laneway-upstream-${entity.name}-${peerId}`,
        collection: facade,
        live: true,
        retryTime: options.retryMs ?? 2000,
        waitForLeadership: false,
        autoStart: true,
        toggleOnDocumentVisible: false,
        ...(entity.direction === 'both' ? { pull: pullHandler(entity, s, poll$) } : {}),
        push: {
          batchSize: 100,
          handler: async (rows) => {
            for (const row of rows) {
              const doc = row.newDocumentState as UpstreamDoc;
              try {
                await send(entity, doc.body);
              } catch (err) {
                if (!(err instanceof UpstreamRefused)) throw err;
                // A payment of an invoice the upstream lacks: the invoice first, then the payment again.
                const missing = entity.name === 'payments' && err.body.includes('invoice_not_found') ? invoicesOfPayment(doc.body) : [];
                const sent = missing.length > 0 && (await Promise.all(missing.map(ownInvoice))).every((d) => !!d);
                if (!sent) {
                  await exception(entity.name, doc.id, 'push', err);
                  continue;
                }
                for (const number of missing) await send(invoices, (await ownInvoice(number))!.body);
                await send(entity, doc.body).catch(async (again: unknown) => {
                  if (!(again instanceof UpstreamRefused)) throw again;
                  await exception(entity.name, doc.id, 'push', again);
                });
              }
            }
            succeed(s);
            onChange();
            return [];
          },
        },
      });
      subs.push(
        state.error$.subscribe((err) => {
          const first = (err as { parameters?: { errors?: Array<{ message?: string }> } }).parameters?.errors?.[0]?.message;
          const wasOk = s.last_error === null;
          s.last_error = first ?? err.message;
          s.last_error_at = iso();
          if (wasOk) onChange();
        }),
      );
      states.push({ entity, state, subs });
    }
  };

  const stopAll = async () => {
    const stopping = states;
    states = [];
    for (const { subs } of stopping) for (const sub of subs) sub.unsubscribe();
    await Promise.all(stopping.map(({ state }) => state.cancel()));
  };

  const persistedCheckpoint = async (state: RxReplicationState<UpstreamDoc, { watermark: number }>, direction: 'up' | 'down'): Promise<number | undefined> => {
    const meta = state.metaInstance;
    if (!meta) return undefined;
    const id = getComposedPrimaryKeyOfDocumentData(meta.schema, { isCheckpoint: '1', itemId: direction } as never);
    const [doc] = await meta.findDocumentsById([id], false);
    const data = (doc as { checkpointData?: { watermark?: number } } | undefined)?.checkpointData;
    return typeof data?.watermark === 'number' ? data.watermark : undefined;
  };

  for (const e of UPSTREAM_ENTITIES) status.set(e.name, { stream: e.name, direction: e.direction, last_success_at: null, last_error: null, last_error_at: null, queued: 0, checkpoint: 0 });

  const startFrom = async () => {
    const config = await stored();
    if (!config || states.length > 0) return;
    isPaused = config.paused;
    if (!isPaused) build(config);
  };

  return {
    async configure(input) {
      let url: URL;
      try {
        url = new URL(input.url);
      } catch {
        throw fail.invalid('upstream_url_invalid', `${input.url} is not an address`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw fail.invalid('upstream_url_invalid', 'The upstream address must be http or https');
      await stopAll();
      const previous = await stored();
      const config: UpstreamConfig = { url: input.url.replace(/\/$/, ''), token: input.token, key: sealSecret(keys, input.key), set_at: iso(), paused: previous?.paused ?? false };
      await saveConfig(config);
      for (const s of status.values()) Object.assign(s, { last_success_at: null, last_error: null, last_error_at: null, checkpoint: 0 });
      await startFrom();
      onChange();
      return view(config);
    },
    async config() {
      const c = await stored();
      return c ? view(c) : null;
    },
    async remove() {
      await stopAll();
      await core.mutate(async (tx) => {
        if (await tx.get('records', recordId(KIND, 'config'))) await tx.remove('records', recordId(KIND, 'config'), { type: 'sync_upstream.removed', entity: 'sync', key: 'upstream' });
      });
      onChange();
    },
    async start(next = {}) {
      options = next;
      await startFrom();
    },
    running: () => states.length > 0 || isPaused,
    paused: () => isPaused,
    async pause() {
      const config = await stored();
      if (!config || isPaused) return;
      isPaused = true;
      await stopAll();
      await saveConfig({ ...config, paused: true });
    },
    async resume() {
      const config = await stored();
      if (!config || !isPaused) return;
      isPaused = false;
      await saveConfig({ ...config, paused: false });
      build(config);
    },
    async streams() {
      const out: StreamStatus[] = [];
      for (const entity of UPSTREAM_ENTITIES) {
        const s = status.get(entity.name)!;
        const state = states.find((x) => x.entity === entity)?.state;
        // The checkpoint shown: the upstream watermark pulled, or for a push-only entity this install's watermark confirmed.
        const down = state ? await persistedCheckpoint(state, entity.direction === 'up' ? 'up' : 'down').catch(() => undefined) : undefined;
        if (down !== undefined && down > s.checkpoint) s.checkpoint = down;
        const up = state ? ((await persistedCheckpoint(state, 'up').catch(() => undefined)) ?? 0) : 0;
        s.queued = state ? await core.store.count(entity.collection, { watermark: { $gt: up } }) : 0;
        out.push({ ...s });
      }
      return out;
    },
    async awaitInSync() {
      await Promise.all(states.map(({ state }) => state.awaitInSync()));
    },
    close: stopAll,
  };
}
