import { getComposedPrimaryKeyOfDocumentData, type EventBulk } from 'rxdb';
import type { RxReplicationState } from 'rxdb/plugins/replication';
import { interval, map, mergeWith, type Observable, type Subject, type Subscription } from 'rxjs';
import type { EngineCore } from '../core';

/**
 * The checkpoint RxDB persisted for one direction of a replication (what the other side
 * confirmed), which survives restarts: status pages read it rather than a counter kept in memory.
 */
export async function persistedCheckpoint<D, C>(state: RxReplicationState<D, C>, direction: 'up' | 'down'): Promise<number | undefined> {
  const meta = state.metaInstance;
  if (!meta) return undefined;
  const id = getComposedPrimaryKeyOfDocumentData(meta.schema, { isCheckpoint: '1', itemId: direction } as never);
  const [doc] = await meta.findDocumentsById([id], false);
  const data = (doc as { checkpointData?: { watermark?: number } } | undefined)?.checkpointData;
  return typeof data?.watermark === 'number' ? data.watermark : undefined;
}

/**
 * The storage-instance methods a replication fork must have but replication never calls with
 * data (query, count, attachments): a call is a bug, so it throws and names the fork.
 */
export function unusedForkMethods(label: string, closed$: Subject<void>) {
  return {
    async query(): Promise<never> {
      throw new Error(`${label}: query is not used by replication`);
    },
    async count(): Promise<never> {
      throw new Error(`${label}: count is not used by replication`);
    },
    async getAttachmentData(): Promise<string> {
      return '';
    },
    async cleanup(): Promise<boolean> {
      return true;
    },
    async close(): Promise<void> {
      closed$.next();
    },
    async remove(): Promise<void> {
      closed$.next();
    },
  };
}

interface Pushed {
  id: string;
  watermark: number;
  doc: Record<string, unknown>;
}

type Doc = Record<string, unknown>;

/** What a guard offers for push again: the documents, and the push checkpoint to keep. */
export interface Repush {
  docs: Doc[];
  checkpoint: number;
}

export interface LostPushGuard {
  /** Documents the other side has just taken (the push handler's rows, as sent). */
  pushed(docs: readonly Doc[]): void;
  /** Looks at the documents pushed before the persisted up checkpoint; offers the lost ones again. */
  check(): Promise<void>;
}

const GUARD_CHUNK = 500;
/** Checks an offered document is left to its push before it counts as apart again (a slow hub's push is in flight meanwhile). */
export const REOFFER_CHECKS = 10;
/** Offers of one document before the guard stops and says so: past that the cause is not a lost event. */
const MAX_OFFERS = 5;

/**
 * A two-way replication's guard against a push RxDB forgets. After a push it records the pushed
 * version as the other side's ("assumed master", in its meta instance), then persists the up
 * checkpoint. When its downstream wrote the same document's meta row meanwhile, that record is
 * refused as a conflict and dropped (rxdb upstream.js: "TODO what happens when we have conflicts
 * here?"), while the checkpoint still moves on. The document then differs from the version RxDB
 * thinks the other side has, so every later pull of it is skipped as "a local change not yet
 * pushed", and nothing pushes it again: the two sides stay apart for good (a lane kept its own
 * customer while the hub's later edits never came down).
 *
 * So once the up checkpoint has passed a pushed document, this reads it and its meta row; a
 * document still as pushed whose meta row says otherwise (or is missing) is offered for push
 * again on `repush$`, which the fork emits as a change (`repushEvents`): the upstream sends it
 * with the version it now assumes. The other side's merge is by field and stamp, so the second
 * push decides as the first did (a document is offered once found so at two checks in a row: a
 * push answered by a merge looks the same until the merge is written). An offer can be lost too:
 * RxDB's upstream drops a change event queued behind a RESYNC (the poll's), since the initial sync
 * it runs then reads only after the checkpoint, and an offered document is behind it. So an
 * offered document stays watched, and one still apart with the same meta row `REOFFER_CHECKS`
 * checks later is offered again (up to `MAX_OFFERS` times, then an error in the log). `seedPage` pages the documents to look at once after a start
 * (after a watermark; `last` is the page's last watermark), which heals a document left apart
 * before. Checked every `everyMs`; a failed check is logged and tried again at the next.
 */
export function lostPushGuard<D, C>(deps: {
  core: EngineCore;
  label: string;
  everyMs: number;
  subs: Subscription[];
  state: () => RxReplicationState<D, C> | undefined;
  read: (ids: string[]) => Promise<Doc[]>;
  same: (a: Doc, b: Doc) => boolean;
  repush$: Subject<Repush>;
  seedPage?: (after: number, limit: number) => Promise<{ docs: Doc[]; last?: number }>;
}): LostPushGuard {
  const pending = new Map<string, Pushed>();
  const watch = apartWatch();
  let checks = 0;
  let running = false;
  let seedAfter: number | undefined = deps.seedPage ? 0 : undefined;
  const track = (doc: Doc) => {
    const id = String(doc.id ?? '');
    if (id) pending.set(id, { id, watermark: Number(doc.watermark) || 0, doc });
  };
  const check = async () => {
    const state = deps.state();
    const meta = state?.metaInstance;
    if (running || !state || !meta) return;
    running = true;
    try {
      if (seedAfter !== undefined && deps.seedPage && pending.size < GUARD_CHUNK) {
        const page = await deps.seedPage(seedAfter, GUARD_CHUNK);
        for (const doc of page.docs) if (!pending.has(String(doc.id))) track(doc);
        seedAfter = page.last;
      }
      if (pending.size === 0) return;
      checks += 1;
      const up = await persistedCheckpoint(state, 'up');
      if (up === undefined) return;
      const ready = [...pending.values()].filter((p) => p.watermark <= up).slice(0, GUARD_CHUNK);
      if (ready.length === 0) return;
      for (const p of ready) pending.delete(p.id);
      const ids = ready.map((p) => p.id);
      const metaIds = ids.map((itemId) => getComposedPrimaryKeyOfDocumentData(meta.schema, { itemId, isCheckpoint: '0' } as never));
      const [current, metas] = await Promise.all([deps.read(ids), meta.findDocumentsById(metaIds, false)]);
      const now = new Map(current.map((d) => [String(d.id), d]));
      const assumed = new Map(metas.map((m) => [String((m as { itemId?: string }).itemId), (m as { docData?: Doc }).docData]));
      const lost = ready.flatMap((p) => {
        const doc = now.get(p.id);
        const base = assumed.get(p.id);
        // Changed since (its own push follows), or recorded as pushed: settled.
        const apart = !!doc && deps.same(doc, p.doc) && !(base && deps.same(base, doc));
        const step = watch.step(p.id, apart ? JSON.stringify(base ?? null) : undefined, checks);
        if (step === 'watch' || step === 'offer') pending.set(p.id, p);
        if (step === 'give-up') deps.core.logger.error({ stream: deps.label, id: p.id, offers: MAX_OFFERS }, 'sync: a document is still apart from the other side after being offered again; left until the next start');
        return step === 'offer' ? [doc!] : [];
      });
      if (lost.length === 0) return;
      deps.core.logger.warn({ stream: deps.label, ids: lost.map((d) => d.id) }, 'sync: offering again documents whose push the replication did not record');
      deps.repush$.next({ docs: lost, checkpoint: up });
    } finally {
      running = false;
    }
  };
  deps.subs.push(interval(deps.everyMs).subscribe(() => void check().catch((err: unknown) => deps.core.logger.warn({ err, stream: deps.label }, 'sync: checking pushed documents failed'))));
  return {
    pushed(docs) {
      for (const doc of docs) track(doc);
    },
    check,
  };
}

/**
 * What the guard does with a document found apart (`seen`, its meta row) or settled (undefined)
 * at check `at`. A push the other side answered with its merge (a conflict) looks apart for a
 * moment: the meta row holds the other side's version until RxDB writes the merged document into
 * the fork. So a document is offered only when found so at two checks in a row with the same meta
 * row; a forgotten push stays so for good. An offered one is left `REOFFER_CHECKS` checks to land.
 */
function apartWatch() {
  const suspects = new Map<string, string>();
  const offered = new Map<string, { seen: string; at: number; times: number }>();
  return {
    step(id: string, seen: string | undefined, at: number): 'settled' | 'watch' | 'offer' | 'give-up' {
      if (seen === undefined) {
        suspects.delete(id);
        offered.delete(id);
        return 'settled';
      }
      const offer = offered.get(id);
      if (offer && offer.seen === seen && at - offer.at < REOFFER_CHECKS) return 'watch';
      if (suspects.get(id) !== seen) {
        suspects.set(id, seen);
        return 'watch';
      }
      suspects.delete(id);
      const times = (offer?.times ?? 0) + 1;
      if (times > MAX_OFFERS) {
        offered.delete(id);
        return 'give-up';
      }
      offered.set(id, { seen, at, times });
      return 'offer';
    },
  };
}

/**
 * A fork's change stream with the documents a guard offers again (lostPushGuard): change events
 * RxDB's upstream takes as local changes. Their checkpoint is the persisted one, so the push
 * checkpoint does not move back past what was confirmed.
 */
export function withRepushes<R, K>(changes: Observable<EventBulk<R, K>>, repush$: Observable<Repush> | undefined, toRaw: (doc: Doc) => R, checkpointOf: (watermark: number) => K): Observable<EventBulk<R, K>> {
  if (!repush$) return changes;
  const offered = repush$.pipe(
    map(({ docs, checkpoint }) => {
      const events = docs.map((d) => ({ operation: 'UPDATE', documentId: String(d.id), documentData: toRaw(d), previousDocumentData: undefined }));
      return { id: `repush-${checkpoint}-${docs.length}`, events, checkpoint: checkpointOf(checkpoint), context: 'laneway-repush' } as unknown as EventBulk<R, K>;
    }),
  );
  return changes.pipe(mergeWith(offered));
}
