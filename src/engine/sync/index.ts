import type { EngineCore, Tx } from '../core';
import { authorizeLasting, LANE_SCOPES, type Account, type Principal } from '../account';
import { fail } from '../errors';
import { getRecord, putRecord, recordsOfKind, type RecordDoc } from '../records';
import { editStamps, stampEditInTx, type Resolution } from './customer-merge';
import { receiveStampInTx } from './hlc';
import type { InstallKeys } from '../security/install-keys';
import { HUB_OWNED_KINDS, streamNamed, type SyncDoc } from './streams';

const TRANSACTIONS_STREAM = streamNamed('transactions')!;
import { applyPush, ownerOfStored, pullPage, type PullPage, type PushOutcome, type PushRow } from './master';
import { createPairing, type PairedLane, type PairingGrant } from './pairing';
import { pairedLanes } from './paired-lanes';
import type { NatsOptions } from './jetstream';
import { requireShopName } from './chain-keys';
import { startLaneClient, type LaneClient, type StreamStatus } from './lane-client';
import type { Receivables } from '../receivables';
import type { Orders } from '../orders';
import { createUpstream, type Upstream, type UpstreamView } from './upstream';
import { handleException, listExceptions } from './exceptions';
import { asLaneAnswer, hubCaller, serveLaneGiftCard } from './hub-gift-cards';
import type { Gateway } from '../gateway';
import type { GiftCards } from '../wallets/gift-cards';
import type { LaneGiftRequest } from '../../shared/schemas/sync-gift-cards';
import type { LaneRefundClaim } from '../../shared/schemas/sync-refund-claims';
import { applyHubReversalInTx, claimsCheck, HUB_REVERSAL, laneReversalGate, publishHubReversalInTx, serveRefundClaim } from './lane-refunds';

/** What an upstream does with the install's records: reads them all and writes what it sends back. */
const UPSTREAM_SCOPES = ['api'] as const;

export type { PairedLane, PairingGrant } from './pairing';
export type { StreamStatus } from './lane-client';
export type { UpstreamView } from './upstream';

/**
 * Sync between installs of one shop (docs/sync.md): a hub pairs lanes, serves its documents and
 * takes theirs; a lane replicates with its hub. Sync state is visible per peer (GET
 * /api/sync/status) and every change of it is a `sync.status` event.
 */
export interface PeerStatus {
  peer: string;
  role: 'hub' | 'lane' | 'upstream';
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
  /**
   * `by`: the caller, who must be able to make the lane credential the code is exchanged for
   * (authorizeLasting: not a JWT minted by whoami); absent for the install itself.
   */
  createPairingCode(input: { laneid: string; name?: string }, by?: Principal): Promise<{ code: string; laneid: string; expires_at: string }>;
  redeemPairingCode(code: string): Promise<PairingGrant>;
  lanes(): Promise<PairedLane[]>;
  revokeLane(laneid: string): Promise<PairedLane>;
  pull(credential: string, stream: string, watermark: number, limit: number): Promise<PullPage>;
  push(credential: string, stream: string, rows: readonly PushRow[]): Promise<PushOutcome>;
  /** Hub: a paired lane's gift card request, applied by the hub's own rules (hub-gift-cards.ts). */
  giftCard(credential: string, request: LaneGiftRequest): Promise<unknown>;
  /** Hub: a paired lane's claim before it refunds or voids one of its payments, or its release (lane-refunds.ts). */
  refundClaim(credential: string, request: LaneRefundClaim): Promise<unknown>;
  /** Makes this install a lane of the hub at `url` with a pairing code the hub showed. */
  joinHub(url: string, code: string): Promise<{ laneid: string; hub: string }>;
  /** Starts replication with the hub this install is paired with (nothing when it is none). */
  start(options?: { pollMs?: number; retryMs?: number }): Promise<void>;
  status(): Promise<{ peers: PeerStatus[] }>;
  /** Hub: how concurrent customer edits were merged (newest first), and what was refused. */
  resolutions(limit: number): Promise<{ resolutions: Resolution[]; exceptions: Array<Record<string, unknown>> }>;
  /** Marks a sync exception handled by `by` (exceptions.ts). */
  handleException(key: string, by: string, note?: string): Promise<Record<string, unknown>>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  awaitInSync(): Promise<void>;
  /** Hub → central through NATS JetStream (jetstream.ts): a hub publishes, the central consumes. */
  startChain(options: ChainOptions): Promise<void>;
  /** Hub ↔ upstream service (upstream.ts): its address and API key (the key sealed at rest). */
  /**
   * `by` (absent: the install itself) must be able to make a lasting credential: the upstream goes
   * on receiving this install's customers, invoices and payments, and its answers are imported
   * here, long after the request. A JWT minted by whoami or a manager cannot set one.
   */
  setUpstream(input: { url: string; token: string; key: string }, by?: Principal): Promise<UpstreamView>;
  upstream(): Promise<UpstreamView | null>;
  removeUpstream(): Promise<void>;
  close(): Promise<void>;
}

export interface ChainOptions extends NatsOptions {
  role: 'hub' | 'central';
  /** The hub's name in subjects (`laneway.shop.<shop>.<stream>`). */
  shop: string;
  /** How often a hub publishes what changed (ms, default 500). */
  intervalMs?: number;
}

async function upstreamPeer(u: Upstream, now: number): Promise<PeerStatus> {
  const streams = await u.streams();
  const queued = streams.reduce((n, s) => n + s.queued, 0);
  const successes = streams.map((s) => s.last_success_at).filter((t): t is string => t !== null).sort();
  const lastError = streams.find((s) => s.last_error)?.last_error ?? null;
  const config = await u.config();
  // Lag: time since the stream that last confirmed longest ago did, while changes wait or a call fails.
  const oldest = successes.length === streams.length ? successes[0] : undefined;
  const lag = queued === 0 && !lastError ? 0 : oldest ? now - Date.parse(oldest) : 0;
  return { peer: 'upstream', role: 'upstream', url: config?.url ?? null, paused: u.paused(), last_success_at: successes[successes.length - 1] ?? null, last_error: lastError, lag_ms: Math.max(0, lag), queued, streams };
}

export function createSync(deps: { core: EngineCore; account: Account; keys: InstallKeys; receivables?: Receivables; orders?: Orders; gifts?: { gateway: Gateway; giftCards: GiftCards } }): Sync {
  const { core, account, keys } = deps;
  const pairing = createPairing(core, account, keys);
  const seen = new Map<string, LaneSeen>();
  let client: LaneClient | undefined;
  let hubUrl: string | null = null;
  let clientOptions: { pollMs?: number; retryMs?: number } = {};
  const chainStops: Array<() => Promise<void>> = [];
  // A hub or a lane stamps each customer edit made here by its hybrid logical clock
  // (customer-merge.ts), in order, after the edit committed; a replicated edit (`customer.synced`)
  // is not one. The events are published as the unit commits, before replication sees the write,
  // so a lane's push of the customer (which waits for `stamping`) carries the edit's stamp.
  let stamping = Promise.resolve();
  const lanes = pairedLanes(core);
  // Refunds of a lane's payments: the hub decides what is left of one (lane-refunds.ts).
  if (deps.gifts) {
    deps.gifts.gateway.onReversalCheckInTx(claimsCheck);
    deps.gifts.gateway.setReversalGate(laneReversalGate(core, hubCaller<LaneRefundClaim>(core, pairing, '/api/sync/refund-claims', "a lane's payment is given back only with the hub's agreement")));
    // A hub's refund or void of a lane's payment goes down to the lane (its copy, its X and Z).
    deps.gifts.gateway.onReversalInTx(async (tx, made, parent) => {
      if (!(await lanes.any())) return;
      await publishHubReversalInTx(tx, made, parent, (t) => ownerOfStored(tx, TRANSACTIONS_STREAM, { data: t } as unknown as SyncDoc));
    });
  }
  // A lane's own name, read once and again only after its pairing changes (asked on every edit).
  let laneNode: Promise<string | undefined> | undefined;
  const stopLaneNode = core.bus.subscribe((e) => {
    if (e.entity === 'sync_hub') laneNode = undefined;
  });
  const stampNode = async (): Promise<string | undefined> => {
    if (await lanes.any()) return 'hub';
    laneNode ??= getRecord<{ laneid: string }>(core, 'sync_hub', 'hub').then((r) => (r ? `lane:${r.data.laneid}` : undefined));
    return laneNode;
  };
  const stopStamping = core.bus.subscribe((e) => {
    if (e.entity !== 'customer' || (e.type !== 'customer.updated' && e.type !== 'customer.created')) return;
    stamping = stamping
      .then(async () => {
        const node = await stampNode();
        if (!node) return;
        await core.mutate(async (tx) => {
          const doc = (await tx.find<{ id: string; watermark: number }>('customers', { selector: { identifier: e.key } }))[0];
          if (doc) await stampEditInTx(tx, doc.id, node);
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

  // The upstream's state is announced like the hub's: a `sync.status` event, at most one a second.
  let announcing = Promise.resolve();
  let announcePending = false;
  let lastAnnounce = 0;
  const announceUpstream = () => {
    if (announcePending || !upstream) return;
    const u = upstream;
    announcePending = true;
    const wait = Math.max(0, lastAnnounce + 1000 - core.clock.now());
    announcing = announcing
      .then(async () => {
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        announcePending = false;
        lastAnnounce = core.clock.now();
        const streams = await u.streams();
        const data = { paused: u.paused(), queued: streams.reduce((n, s) => n + s.queued, 0), last_error: streams.find((s) => s.last_error)?.last_error ?? null };
        await core.mutate((tx) => putRecord(tx, 'sync_peer', 'upstream', { paused: data.paused }, { type: 'sync.status', entity: 'sync', key: 'upstream', data }));
      })
      .catch((err: unknown) => core.logger.error({ err }, 'upstream status write failed'));
  };
  const upstream = deps.receivables ? createUpstream(core, keys, { receivables: deps.receivables, ...(deps.orders ? { orders: deps.orders } : {}) }, announceUpstream, () => account.profile().environment) : undefined;
  const requireUpstream = () => {
    if (!upstream) throw fail.unavailable('upstream_unavailable', 'This install cannot replicate with an upstream');
    return upstream;
  };

  const startClient = async () => {
    const hub = await pairing.hub();
    if (!hub || client) return;
    hubUrl = hub.url;
    const stored = (await getRecord<PeerRecord>(core, 'sync_peer', 'hub'))?.data;
    const clock = {
      stampsOf: async (ids: readonly string[]) => {
        await stamping;
        return editStamps(core, ids);
      },
      // Queued behind the stamps already waiting, not awaited by the pull: a stamp made after this
      // page's documents are written is queued after it, so it still follows the hub's clock, and
      // the pull never waits on the write queue from inside RxDB's replication.
      receive: async (stamp: string) => {
        stamping = stamping.then(() => core.mutate((tx) => receiveStampInTx(tx, stamp))).catch((err: unknown) => core.logger.error({ err }, 'hub clock receive failed'));
      },
    };
    client = startLaneClient(core, { url: hub.url, token: hub.token, key: hub.key, laneid: hub.laneid }, { ...clientOptions, clock, onChange: save, onPulledInTx: (tx, doc, current) => (deps.gifts ? applyHubReversalInTx(tx, hub.laneid, doc, current, deps.gifts.gateway) : Promise.resolve()), paused: stored?.paused === true, checkpoints: Object.fromEntries((stored?.streams ?? []).map((s) => [s.stream, s.checkpoint])) });
  };

  return {
    async createPairingCode(input, by) {
      authorizeLasting(by, `a pairing code (it is exchanged for lane ${input.laneid}'s credential)`, LANE_SCOPES);
      return pairing.createCode(input);
    },
    redeemPairingCode: (code) => pairing.redeem(code, keys.current('cashier_code').secret),
    lanes: () => pairing.lanes(),
    revokeLane: (laneid) => pairing.revoke(laneid),
    async pull(credential, stream, watermark, limit) {
      const lane = await pairing.laneOfCredential(credential);
      // The page's clock covers every hub edit committed before it (their stamps are queued).
      if (stream === 'customers') await stamping;
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
    async giftCard(credential, request) {
      const lane = await pairing.laneOfCredential(credential);
      if (!deps.gifts) throw fail.unavailable('gift_cards_unavailable', 'This install holds no gift cards');
      touch(lane.laneid, 'push');
      return serveLaneGiftCard({ ...deps.gifts, core, now: () => core.clock.now() }, lane.laneid, request).catch(asLaneAnswer);
    },
    async refundClaim(credential, request) {
      const lane = await pairing.laneOfCredential(credential);
      touch(lane.laneid, 'push');
      const ownerOf = (tx: Tx, doc: SyncDoc) => ownerOfStored(tx, TRANSACTIONS_STREAM, doc);
      return serveRefundClaim(core, lane.laneid, ownerOf, request).catch(asLaneAnswer);
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
        for (const kind of HUB_OWNED_KINDS.filter((k) => k !== 'pos_settings' && k !== 'gift_card_copy' && k !== HUB_REVERSAL)) {
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
      await upstream?.start(options);
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
      if (upstream?.running()) peers.push(await upstreamPeer(upstream, core.clock.now()));
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
        exceptions: await listExceptions(core, limit),
      };
    },
    handleException: (key, by, note) => handleException(core, key, by, note),
    async pause() {
      const withUpstream = upstream?.running() === true;
      if (!client && !withUpstream) throw fail.precondition('sync_not_paired', 'This install is not a lane of a hub and has no upstream: nothing to pause');
      if (withUpstream) await upstream!.pause();
      if (!client) return announceUpstream();
      await client.pause();
      save();
      await saving;
    },
    async resume() {
      const withUpstream = upstream?.running() === true;
      if (!client && !withUpstream) throw fail.precondition('sync_not_paired', 'This install is not a lane of a hub and has no upstream: nothing to resume');
      if (withUpstream) await upstream!.resume();
      if (!client) return announceUpstream();
      await client.resume();
      save();
      await saving;
    },
    async awaitInSync() {
      await client?.awaitInSync();
      await upstream?.awaitInSync();
    },
    setUpstream(input, by) {
      authorizeLasting(by, "an upstream (it receives this install's customers, invoices and payments until removed)", UPSTREAM_SCOPES);
      return requireUpstream().configure(input);
    },
    upstream: () => requireUpstream().config(),
    removeUpstream: () => requireUpstream().remove(),
    async startChain(options) {
      requireShopName(options.shop);
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
      stopLaneNode();
      await stamping;
      for (const stop of chainStops.splice(0)) await stop().catch((err: unknown) => core.logger.error({ err }, 'chain sync did not stop cleanly'));
      await client?.close();
      await upstream?.close();
      await saving;
      await announcing;
      client = undefined;
    },
  };
}
