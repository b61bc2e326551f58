import type { Subscription } from 'rxjs';
import { isInternalHost } from '../webhooks/address-rules';
import { persistedCheckpoint } from './replication-parts';
import type { RxReplicationState } from 'rxdb/plugins/replication';
import type { EngineCore } from '../core';
import type { InstallKeys } from '../security/install-keys';
import type { Receivables } from '../receivables';
import type { Orders } from '../orders';
import { fail } from '../errors';
import { getRecord, putRecord, recordId } from '../records';
import { openSecret, sealSecret, type SealedSecret } from '../webhooks/signing';
import type { StreamStatus } from './lane-client';
import { localSide, type LocalSide, type UpstreamDoc } from './upstream-fork';
import { upstreamLink } from './upstream-link';
import { replicateEntity, type PullCheckpoint } from './upstream-replication';
import { UPSTREAM_ENTITIES, type EntitySpec } from './upstream-shapes';
import type { RecordException } from './upstream-retire';
import { recordPulledCuts } from './upstream-served';

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

export function createUpstream(core: EngineCore, keys: InstallKeys, domains: { receivables: Receivables; orders?: Orders }, onChange: () => void, environment: () => string): Upstream {
  let states: Array<{ entity: EntitySpec; state: RxReplicationState<UpstreamDoc, PullCheckpoint>; subs: Subscription[] }> = [];
  let options: { pollMs?: number; retryMs?: number } = {};
  let isPaused = false;
  const status = new Map<string, StreamStatus>();
  const confirmedUp = new Map<string, number>();
  const iso = () => new Date(core.clock.now()).toISOString();
  const locals = new Map(UPSTREAM_ENTITIES.map((e) => [e.name, localSide(core, domains.receivables, domains.orders, e)]));
  const local = (name: EntitySpec['name']) => locals.get(name) as LocalSide;

  const view = (c: UpstreamConfig): UpstreamView => ({ url: c.url, token: c.token, set_at: c.set_at, paused: c.paused });
  const stored = async () => (await getRecord<UpstreamConfig>(core, KIND, 'config'))?.data;
  const saveConfig = (c: UpstreamConfig) => core.mutate((tx) => putRecord(tx, KIND, 'config', c, { type: 'sync_upstream.updated', entity: 'sync', key: 'upstream' }));

  const exception: RecordException = (entity, key, direction, err, detail) =>
    core.mutate((tx) =>
      putRecord(tx, 'sync_exception', `upstream:${direction}:${entity}:${key}`, { peer: 'upstream', document: `${entity}/${key}`, reason: 'upstream_refused', direction, message: err instanceof Error ? err.message : String(err), at: tx.at, ...detail }, { type: 'sync_exception.created', entity: 'sync_exception', key: `${entity}/${key}` }),
    );

  const succeed = (s: StreamStatus, checkpoint?: number) => {
    const wasFailing = s.last_error !== null;
    s.last_success_at = iso();
    s.last_error = null;
    if (checkpoint !== undefined && checkpoint > s.checkpoint) s.checkpoint = checkpoint;
    if (wasFailing) onChange();
  };
  const failed = (s: StreamStatus, message: string) => {
    const wasOk = s.last_error === null;
    s.last_error = message;
    s.last_error_at = iso();
    if (wasOk) onChange();
  };

  const build = (config: UpstreamConfig) => {
    const link = upstreamLink(config.url, config.token, openSecret(keys, config.key), TIMEOUT_MS);
    for (const entity of UPSTREAM_ENTITIES) {
      const s = status.get(entity.name)!;
      const started = replicateEntity({ core, link, entity, local, options, onChange, refused: exception, reduced: (via, cuts) => recordPulledCuts(core, via, cuts), succeed: (checkpoint) => succeed(s, checkpoint), failed: (message) => failed(s, message) });
      states.push({ entity, ...started });
    }
  };

  const stopAll = async () => {
    const stopping = states;
    states = [];
    for (const { subs } of stopping) for (const sub of subs) sub.unsubscribe();
    await Promise.all(stopping.map(({ state }) => state.cancel()));
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
        throw fail.invalid('upstream_url_invalid', `${input.url} is not an address`, [{ field: 'url', message: 'is not an address' }]);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw fail.invalid('upstream_url_invalid', 'The upstream address must be http or https', [{ field: 'url', message: 'must be http or https' }]);
      if (url.username || url.password) throw fail.invalid('upstream_url_credentials', 'The upstream address may not carry a user name or password (they go in token and key)', [{ field: 'url', message: 'no credentials in the address' }]);
      // The hub sends its upstream key to this address: in production, over https only and never to
      // this machine or a link-local address (a cloud's metadata service), as webhooks.
      if (environment() === 'production' && url.protocol !== 'https:') throw fail.invalid('upstream_url_insecure', 'A production install reaches its upstream over https only (the key would travel in clear)', [{ field: 'url', message: 'https required' }]);
      if (environment() === 'production' && isInternalHost(url.hostname)) {
        throw fail.invalid('upstream_url_internal', 'A production install does not replicate to this machine (localhost, loopback) or to a link-local address', [{ field: 'url', message: 'an address other machines reach' }]);
      }
      await stopAll();
      const previous = await stored();
      const config: UpstreamConfig = { url: input.url.replace(/\/$/, ''), token: input.token, key: sealSecret(keys, input.key), set_at: iso(), paused: previous?.paused ?? false };
      await saveConfig(config);
      for (const s of status.values()) Object.assign(s, { last_success_at: null, last_error: null, last_error_at: null, checkpoint: 0 });
      confirmedUp.clear();
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
        // While paused (no replication running) the queue counts from the last push confirmed.
        const up = state ? await persistedCheckpoint(state, 'up').catch(() => undefined) : undefined;
        if (up !== undefined) confirmedUp.set(entity.name, up);
        const configured = states.length > 0 || isPaused;
        s.queued = configured ? await core.store.count(entity.collection, { watermark: { $gt: confirmedUp.get(entity.name) ?? 0 } }) : 0;
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
