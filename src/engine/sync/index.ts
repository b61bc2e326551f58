import type { EngineCore } from '../core';
import type { Account } from '../account';
import { fail } from '../errors';
import { getRecord, putRecord, recordsOfKind, type RecordDoc } from '../records';
import { stampHubEditInTx, type Resolution } from './customer-merge';
import type { InstallKeys } from '../security/install-keys';
import { HUB_OWNED_KINDS } from './streams';
import { applyPush, pullPage, type PullPage, type PushOutcome, type PushRow } from './master';
import { createPairing, type PairedLane, type PairingGrant } from './pairing';
import { pairedLanes } from './paired-lanes';
import type { NatsOptions } from './jetstream';
import { startLaneClient, type LaneClient, type StreamStatus } from './lane-client';

export type { PairedLane, PairingGrant } from './pairing';
export type { StreamStatus } from './lane-client';

/**
 * Sync between installs of one shop (docs/sync.md): a hub pairs lanes, serves its documents and
 * takes theirs; a lane replicates with its hub. Sync state is visible per peer (GET
 * /api/sync/status) and every change of it is a `sync.status` event.
 */
export interface PeerStatus {
  peer: string;
  role: 'hub' | 'lane';
  url: string | null;
  paused: boolean;
  last_success_at: string | null;
  last_error: string | null;
  /** How long since the peer last confirmed a page (0 when nothing waits and the last call worked). */
  lag_ms: number;
  queued: number;
  streams: StreamStatus[];
}

interface LaneSeen {
  last_pull_at: string | null;
  last_push_at: string | null;
  pushed: number;
}

interface PeerRecord {
  paused: boolean;
  streams: StreamStatus[];
}

export interface Sync {
  createPairingCode(input: { laneid: string; name?: string }): Promise<{ code: string; laneid: string; expires_at: string }>;
  redeemPairingCode(code: string): Promise<PairingGrant>;
  lanes(): Promise<PairedLane[]>;
  revokeLane(laneid: string): Promise<PairedLane>;
  pull(credential: string, stream: string, watermark: number, limit: number): Promise<PullPage>;
  push(credential: string, stream: string, rows: readonly PushRow[]): Promise<PushOutcome>;
  /** Makes this install a lane of the hub at `url` with a pairing code the hub showed. */
  joinHub(url: string, code: string): Promise<{ laneid: string; hub: string }>;
  /** Starts replication with the hub this install is paired with (nothing when it is none). */
  start(options?: { pollMs?: number; retryMs?: number }): Promise<void>;
  status(): Promise<{ peers: PeerStatus[] }>;
  /** Hub: how concurrent customer edits were merged (newest first), and what was refused. */
  resolutions(limit: number): Promise<{ resolutions: Resolution[]; exceptions: Array<Record<string, unknown>> }>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  awaitInSync(): Promise<void>;
  /** Hub → central through NATS JetStream (jetstream.ts): a hub publishes, the central consumes. */
  startChain(options: ChainOptions): Promise<void>;
  close(): Promise<void>;
}

export interface ChainOptions extends NatsOptions {
  role: 'hub' | 'central';
  /** The hub's name in subjects (`laneway.shop.<shop>.<stream>`). */
  shop: string;
  /** How often a hub publishes what changed (ms, default 500). */
  intervalMs?: number;
}

export function createSync(deps: { core: EngineCore; account: Account; keys: InstallKeys }): Sync {
  const { core, account, keys } = deps;
  const pairing = createPairing(core, account, keys);
  const seen = new Map<string, LaneSeen>();
  let client: LaneClient | undefined;
  let hubUrl: string | null = null;
  let clientOptions: { pollMs?: number; retryMs?: number } = {};
  const chainStops: Array<() => Promise<void>> = [];
  // A hub stamps each customer edit made here by its hybrid logical clock (customer-merge.ts),
  // in order, after the edit committed; a merged lane edit (`customer.synced`) is not one.
  let stamping = Promise.resolve();
  const lanes = pairedLanes(core);
  const stopStamping = core.bus.subscribe((e) => {
    if (e.entity !== 'customer' || (e.type !== 'customer.updated' && e.type !== 'customer.created')) return;
    stamping = stamping
      .then(async () => {
        if (!(await lanes.any())) return;
        await core.mutate(async (tx) => {
          const doc = (await tx.find<{ id: string; watermark: number }>('customers', { selector: { identifier: e.key } }))[0];
          if (doc) await stampHubEditInTx(tx, doc.id);
        });
      })
      .catch((err: unknown) => core.logger.error({ err }, 'customer edit stamp failed'));
  });
  const now = () => new Date(core.clock.now()).toISOString();
  const touch = (laneid: string, what: 'pull' | 'push', count = 0) => {
    const s = seen.get(laneid) ?? { last_pull_at: null, last_push_at: null, pushed: 0 };
    if (what === 'pull') s.last_pull_at = now();
    else {
      s.last_push_at = now();
      s.pushed += count;
    }
    seen.set(laneid, s);
  };

  // Status changes are persisted (queued survives a restart) and announced as sync.status
  // events, at most one write a second while pages flow.
  let saving = Promise.resolve();
  let pending = false;
  let lastSave = 0;
  const save = () => {
    if (!client || pending) return;
    const c = client;
    pending = true;
    const wait = Math.max(0, lastSave + 1000 - core.clock.now());
    saving = saving.then(async () => {
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      pending = false;
      lastSave = core.clock.now();
      const streams = await c.streams();
      const data: PeerRecord = { paused: c.paused(), streams };
      await core.mutate((tx) =>
        putRecord(tx, 'sync_peer', 'hub', data, {
          type: 'sync.status',
          entity: 'sync',
          key: 'hub',
          data: { paused: data.paused, queued: streams.reduce((n, s) => n + s.queued, 0), last_error: streams.find((s) => s.last_error)?.last_error ?? null },
        }),
      );
    }).catch((err: unknown) => core.logger.error({ err }, 'sync status write failed'));
  };

  const startClient = async () => {
    const hub = await pairing.hub();
    if (!hub || client) return;
    hubUrl = hub.url;
    const stored = (await getRecord<PeerRecord>(core, 'sync_peer', 'hub'))?.data;
    client = startLaneClient(core, { url: hub.url, token: hub.token, key: hub.key, laneid: hub.laneid }, { ...clientOptions, onChange: save, paused: stored?.paused === true, checkpoints: Object.fromEntries((stored?.streams ?? []).map((s) => [s.stream, s.checkpoint])) });
  };

  return {
    createPairingCode: (input) => pairing.createCode(input),
    redeemPairingCode: (code) => pairing.redeem(code, keys.current('cashier_code').secret),
    lanes: () => pairing.lanes(),
    revokeLane: (laneid) => pairing.revoke(laneid),
    async pull(credential, stream, watermark, limit) {
      const lane = await pairing.laneOfCredential(credential);
      const page = await pullPage(core, stream, watermark, limit);
      touch(lane.laneid, 'pull');
      return page;
    },
    async push(credential, stream, rows) {
      const lane = await pairing.laneOfCredential(credential);
      const outcome = await applyPush(core, stream, lane.laneid, rows);
      touch(lane.laneid, 'push', outcome.written);
      return outcome;
    },
    async joinHub(url, code) {
      if (await pairing.hub()) throw fail.conflict('sync_already_paired', 'This install is a lane of a hub already');
      const res = await fetch(`${url.replace(/\/$/, '')}/api/sync/pair`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code }),
        signal: AbortSignal.timeout(15_000),
      }).catch((err: unknown) => {
        throw fail.unavailable('hub_unreachable', `The hub at ${url} did not answer: ${err instanceof Error ? err.message : String(err)}`);
      });
      const body = (await res.json().catch(() => ({}))) as Partial<PairingGrant> & { error?: string };
      if (!res.ok || !body.token || !body.key || !body.laneid || !body.cashier_code_key) {
        throw fail.forbidden('pairing_refused', `The hub refused the pairing code: ${body.error ?? res.status}`);
      }
      // The hub's cashiers sign in here with the codes the hub hashed under its key.
      keys.adoptLegacy('cashier_code', body.cashier_code_key);
      // The hub owns the catalog, cashiers and settings: this install's own products and cashiers
      // are deactivated (the hub's, pulled next, replace those with the same key; settings too).
      await core.mutate(async (tx) => {
        for (const kind of HUB_OWNED_KINDS.filter((k) => k !== 'pos_settings')) {
          for (const doc of await tx.find<RecordDoc<{ active?: boolean }> & { [k: string]: unknown }>('records', { selector: { kind } })) {
            if (doc.data.active === false) continue;
            await tx.put('records', { ...doc, data: { ...doc.data, active: false } }, { type: `${kind}.deactivated`, entity: kind, key: doc.key });
          }
        }
      });
      await pairing.saveHub(url, body as PairingGrant);
      await startClient();
      return { laneid: body.laneid, hub: url };
    },
    async start(options = {}) {
      clientOptions = options;
      await startClient();
    },
    async status() {
      const peers: PeerStatus[] = [];
      if (client) {
        const streams = await client.streams();
        const queued = streams.reduce((n, s) => n + s.queued, 0);
        const successes = streams.map((s) => s.last_success_at).filter((t): t is string => t !== null).sort();
        const oldest = successes.length === streams.length ? successes[0] : undefined;
        const lastError = streams.find((s) => s.last_error)?.last_error ?? null;
        const since = oldest ? core.clock.now() - Date.parse(oldest) : null;
        peers.push({
          peer: 'hub',
          role: 'hub',
          url: hubUrl,
          paused: client.paused(),
          last_success_at: successes[successes.length - 1] ?? null,
          last_error: lastError,
          lag_ms: queued === 0 && !lastError ? 0 : (since ?? 0),
          queued,
          streams,
        });
      }
      for (const lane of await pairing.lanes()) {
        if (lane.revoked_at) continue;
        const s = seen.get(lane.laneid);
        const last = [s?.last_pull_at, s?.last_push_at].filter((t): t is string => !!t).sort().pop() ?? null;
        peers.push({ peer: `lane:${lane.laneid}`, role: 'lane', url: null, paused: false, last_success_at: last, last_error: null, lag_ms: last ? core.clock.now() - Date.parse(last) : 0, queued: 0, streams: [] });
      }
      return { peers };
    },
    async resolutions(limit) {
      const newest = <T>(rows: Array<RecordDoc<T>>) => rows.slice(-limit).reverse().map((r) => r.data);
      return {
        resolutions: newest(await recordsOfKind<Resolution>(core, 'sync_resolution')),
        exceptions: newest(await recordsOfKind<Record<string, unknown>>(core, 'sync_exception')),
      };
    },
    async pause() {
      if (!client) throw fail.precondition('sync_not_paired', 'This install is not a lane of a hub: nothing to pause');
      await client.pause();
      save();
      await saving;
    },
    async resume() {
      if (!client) throw fail.precondition('sync_not_paired', 'This install is not a lane of a hub: nothing to resume');
      await client.resume();
      save();
      await saving;
    },
    async awaitInSync() {
      await client?.awaitInSync();
    },
    async startChain(options) {
      const nats = { servers: options.servers, ...(options.replicas ? { replicas: options.replicas } : {}) };
      if (options.role === 'central') {
        // The nats client loads only for an install in a chain (`--nats`).
        const { startCentralConsumer } = await import('./jetstream');
        const consumer = await startCentralConsumer(core, `central-${options.shop}`, nats);
        const running = consumer.run();
        chainStops.push(async () => {
          await consumer.close();
          await running;
        });
        return;
      }
      const { startHubPublisher } = await import('./jetstream');
      const publisher = await startHubPublisher(core, options.shop, nats);
      let stopped = false;
      const loop = (async () => {
        while (!stopped) {
          await publisher.flush();
          await new Promise((r) => setTimeout(r, options.intervalMs ?? 500));
        }
      })();
      chainStops.push(async () => {
        stopped = true;
        await loop;
        await publisher.close();
      });
    },
    async close() {
      stopStamping();
      lanes.stop();
      await stamping;
      for (const stop of chainStops.splice(0)) await stop().catch((err: unknown) => core.logger.error({ err }, 'chain sync did not stop cleanly'));
      await client?.close();
      await saving;
      client = undefined;
    },
  };
}
