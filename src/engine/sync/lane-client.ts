import { Subject, interval, map, type Subscription } from 'rxjs';
import { lostPushGuard, persistedCheckpoint, type Repush } from './replication-parts';
import { replicateRxCollection, type RxReplicationState } from 'rxdb/plugins/replication';
import type { RxCollection, RxConflictHandler } from 'rxdb';
import type { EngineCore } from '../core';
import type { StoredDoc } from '../../store/schema';
import { engineFork, type PulledHook } from './fork';
import { bodyOf, changesSince, countSince, sameDocument, SYNC_STREAMS, type SyncDoc, type SyncStream } from './streams';
import type { PullPage } from './master';

/**
 * A lane's replication with its hub: one RxDB replication (`replicateRxCollection`) per stream,
 * over the stream's fork on this install (fork.ts) and the hub's pull and push operations. The
 * watermark is the checkpoint on both sides; RxDB persists both checkpoints in its meta instance
 * (a table of the same SQLite file), so a restart resumes where the last confirmed page ended.
 * A failed pull or push is retried every `retryMs` until it goes through.
 */
export interface HubAddress {
  url: string;
  token: string;
  key: string;
  laneid: string;
}

export interface StreamStatus {
  stream: string;
  direction: 'up' | 'down' | 'both';
  last_success_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
  /** Documents this lane holds that the hub has not confirmed (push streams). */
  queued: number;
  /** Highest local watermark the hub confirmed (push streams) or highest hub watermark pulled. */
  checkpoint: number;
}

export interface LaneClient {
  streams(): Promise<StreamStatus[]>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  paused(): boolean;
  /** Resolves once every stream is in sync with the hub (tests, the benchmark). */
  awaitInSync(): Promise<void>;
  close(): Promise<void>;
}

const TIMEOUT_MS = 15_000;

/** The lane's hybrid logical clock (hlc.ts): its stamps of customer edits, and the hub's stamps it receives. */
export interface LaneClock {
  stampsOf(customerIds: readonly string[]): Promise<Map<string, string>>;
  receive(stamp: string): Promise<unknown>;
}

export interface LaneClientOptions {
  pollMs?: number;
  retryMs?: number;
  onChange?: () => void;
  paused?: boolean;
  checkpoints?: Record<string, number>;
  clock?: LaneClock;
  /** Work done with each pulled document, in the unit of work that writes it (fork.ts). */
  onPulledInTx?: PulledHook;
}

export function startLaneClient(core: EngineCore, hub: HubAddress, options: LaneClientOptions = {}): LaneClient {
  const auth = `Basic ${Buffer.from(`${hub.token}:${hub.key}`).toString('base64')}`;
  const call = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${hub.url.replace(/\/$/, '')}${path}`, {
      ...init,
      headers: { authorization: auth, 'content-type': 'application/json', ...(init.headers ?? {}) },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`hub answered ${res.status}: ${text.slice(0, 200)}`);
    return JSON.parse(text) as unknown;
  };
  const pollMs = options.pollMs ?? 1000;
  const status = new Map<string, StreamStatus>();
  const states: Array<{ stream: SyncStream; state: RxReplicationState<StoredDoc, { watermark: number }>; subs: Subscription[] }> = [];
  let isPaused = options.paused ?? false;
  const iso = () => new Date(core.clock.now()).toISOString();
  const changed = () => options.onChange?.();
  const succeed = (s: StreamStatus, checkpoint?: number) => {
    const wasFailing = s.last_error !== null;
    s.last_success_at = iso();
    s.last_error = null;
    if (checkpoint !== undefined && checkpoint > s.checkpoint) s.checkpoint = checkpoint;
    return wasFailing;
  };

  for (const stream of SYNC_STREAMS) {
    status.set(stream.name, { stream: stream.name, direction: stream.direction, last_success_at: null, last_error: null, last_error_at: null, queued: 0, checkpoint: options.checkpoints?.[stream.name] ?? 0 });
  }
  // Pausing cancels the replications and resuming builds them again on the same persisted
  // checkpoints: RxDB's own pause() can persist the upstream checkpoint of documents a paused
  // push never sent (a second queued persist run stores it), which would lose them.
  const build = () => {
  for (const stream of SYNC_STREAMS) {
    const s = status.get(stream.name)!;
    const real = core.store.collection(stream.collection);
    const conflictHandler: RxConflictHandler<StoredDoc> = {
      isEqual: (a, b) => sameDocument(a as unknown as Record<string, unknown>, b as unknown as Record<string, unknown>),
      // Owner wins: the hub's version for what the hub owns, the lane's for what the lane owns.
      // Customers (two-way) are merged on the hub, whose answer is then the document.
      resolve: async (input) => (stream.direction === 'up' ? input.newDocumentState : input.realMasterState),
    };
    const repush$ = new Subject<Repush>();
    const facade = Object.create(real, {
      storageInstance: { value: engineFork(core, stream, repush$, stream.direction === 'down' ? options.onPulledInTx : undefined) },
      conflictHandler: { value: conflictHandler },
      onClose: { value: [] },
    }) as RxCollection<StoredDoc>;
    const poll$ = new Subject<'RESYNC'>();
    const streamSubs: Subscription[] = [];
    streamSubs.push(interval(pollMs).pipe(map(() => 'RESYNC' as const)).subscribe(poll$));
    const guard = stream.direction === 'both' ? bothWaysGuard(core, stream, pollMs, streamSubs, () => state, repush$) : undefined;
    const state: RxReplicationState<StoredDoc, { watermark: number }> = replicateRxCollection<StoredDoc, { watermark: number }>({
      replicationIdentifier: `laneway-${stream.name}-lane-${hub.laneid}`,
      collection: facade,
      live: true,
      retryTime: options.retryMs ?? 1000,
      waitForLeadership: false,
      autoStart: true,
      toggleOnDocumentVisible: false,
      ...(stream.direction !== 'up'
        ? {
            pull: {
              batchSize: 500,
              stream$: poll$.asObservable(),
              handler: async (checkpoint, batchSize) => {
                const from = checkpoint?.watermark ?? 0;
                const page = (await call(`/api/sync/pull/${stream.name}?watermark=${from}&limit=${batchSize}`)) as PullPage;
                // Received before the page's documents are written: an edit made after them is later.
                if (page.clock) await options.clock?.receive(page.clock);
                // A two-way stream's status follows its push side (this install's watermark).
                const recovered = succeed(s, stream.direction === 'down' ? page.checkpoint?.watermark : undefined);
                if (page.documents.length > 0 || recovered) changed();
                return { documents: page.documents as never, checkpoint: page.checkpoint ?? { watermark: from } };
              },
            },
          }
        : {}),
      ...(stream.direction !== 'down'
        ? {
            push: {
              batchSize: 1000,
              handler: async (rows) => {
                // The assumed master state is the hub's version this lane last had: the merge's base.
                // bodyOf's rest copy is fresh: the watermark set on it, not spread into a new object with a new key (slow on Node 20).
                const plain = (d: unknown) => Object.assign(bodyOf(d as Record<string, unknown>), { watermark: (d as SyncDoc).watermark });
                const stamps = stream.collection === 'customers' ? await options.clock?.stampsOf(rows.map((r) => String(r.newDocumentState.id))) : undefined;
                const clean = rows.map((r) => {
                  const stamp = stamps?.get(String(r.newDocumentState.id));
                  return { newDocumentState: plain(r.newDocumentState), ...(r.assumedMasterState ? { assumedMasterState: plain(r.assumedMasterState) } : {}), ...(stamp ? { stamp } : {}) };
                });
                const answer = (await call(`/api/sync/push/${stream.name}`, { method: 'POST', body: JSON.stringify({ rows: clean }) })) as { conflicts?: StoredDoc[] };
                guard?.pushed(clean.map((r) => r.newDocumentState));
                succeed(s, Math.max(0, ...clean.map((r) => Number(r.newDocumentState.watermark) || 0)));
                changed();
                // The hub's merges, which RxDB writes here (conflictHandler: the hub's version).
                return (stream.direction === 'both' ? (answer?.conflicts ?? []) : []) as never;
              },
            },
          }
        : {}),
    });
    streamSubs.push(
      state.error$.subscribe((err) => {
        const first = (err as { parameters?: { errors?: Array<{ message?: string }> } }).parameters?.errors?.[0]?.message;
        const wasOk = s.last_error === null;
        s.last_error = first ?? err.message;
        s.last_error_at = iso();
        if (wasOk) changed();
      }),
    );
    states.push({ stream, state, subs: streamSubs });
  }
  };
  if (!options.paused) build();

  const stopAll = async () => {
    const stopping = states.splice(0);
    for (const { subs } of stopping) for (const sub of subs) sub.unsubscribe();
    await Promise.all(stopping.map(({ state }) => state.cancel()));
  };


  return {
    async streams() {
      const out: StreamStatus[] = [];
      for (const stream of SYNC_STREAMS) {
        const s = status.get(stream.name)!;
        const state = states.find((x) => x.stream === stream)?.state;
        const confirmed = state ? await persistedCheckpoint(state, stream.direction === 'down' ? 'down' : 'up').catch(() => undefined) : undefined;
        if (confirmed !== undefined && confirmed > s.checkpoint) s.checkpoint = confirmed;
        if (stream.direction !== 'down') s.queued = await countSince(core, stream, s.checkpoint);
        out.push({ ...s });
      }
      return out;
    },
    async pause() {
      if (isPaused) return;
      isPaused = true;
      await stopAll();
    },
    async resume() {
      if (!isPaused) return;
      isPaused = false;
      build();
    },
    paused: () => isPaused,
    async awaitInSync() {
      await Promise.all(states.map(({ state }) => state.awaitInSync()));
    },
    async close() {
      await stopAll();
    },
  };
}

/**
 * A stream edited on both sides (customers): a push RxDB forgot is offered again
 * (replication-parts.ts); every document of the stream is looked at once after a start.
 */
function bothWaysGuard(core: EngineCore, stream: SyncStream, everyMs: number, subs: Subscription[], state: () => RxReplicationState<StoredDoc, { watermark: number }> | undefined, repush$: Subject<Repush>) {
  return lostPushGuard({
    ...{ core, label: stream.name, everyMs, subs, state, repush$, same: sameDocument },
    read: async (ids) => (await core.store.getMany(stream.collection, ids)).filter((d) => !d._deleted),
    seedPage: async (after, limit) => {
      const docs = await changesSince(core, stream, after, limit);
      return { docs, last: docs.at(-1)?.watermark };
    },
  });
}
