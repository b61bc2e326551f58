import { getComposedPrimaryKeyOfDocumentData } from 'rxdb';
import type { RxReplicationState } from 'rxdb/plugins/replication';
import type { Subject } from 'rxjs';

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

export interface LostPushGuard {
  /** Documents the other side has just taken (the push handler's rows, as sent). */
  pushed(docs: ReadonlyArray<Record<string, unknown>>): void;
  /** Looks at the documents pushed before the persisted up checkpoint; re-pushes the lost ones. */
  check(): Promise<void>;
}

const GUARD_CHUNK = 500;

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
 * document still as pushed whose meta row says otherwise (or is missing) is re-pushed, written
 * again as it is (`repush`) so the upstream sends it with the version it now assumes. The other
 * side's merge is by field and stamp, so the second push decides as the first did. `seed` lists
 * the documents to look at once after a start, which heals a document left apart before.
 */
export function lostPushGuard<D, C>(deps: {
  state: () => RxReplicationState<D, C> | undefined;
  read: (ids: string[]) => Promise<Array<Record<string, unknown>>>;
  same: (a: Record<string, unknown>, b: Record<string, unknown>) => boolean;
  repush: (docs: Array<Record<string, unknown>>) => Promise<void>;
  seed?: () => AsyncIterable<Array<Record<string, unknown>>>;
}): LostPushGuard {
  const pending = new Map<string, Pushed>();
  let running = false;
  let seeding: AsyncIterator<Array<Record<string, unknown>>> | undefined = deps.seed?.()[Symbol.asyncIterator]();
  const track = (doc: Record<string, unknown>) => {
    const id = String(doc.id ?? '');
    if (id) pending.set(id, { id, watermark: Number(doc.watermark) || 0, doc });
  };
  return {
    pushed(docs) {
      for (const doc of docs) track(doc);
    },
    async check() {
      const state = deps.state();
      const meta = state?.metaInstance;
      if (running || !state || !meta) return;
      running = true;
      try {
        if (seeding && pending.size < GUARD_CHUNK) {
          const next = await seeding.next();
          if (next.done) seeding = undefined;
          else for (const doc of next.value) if (!pending.has(String(doc.id))) track(doc);
        }
        if (pending.size === 0) return;
        const up = await persistedCheckpoint(state, 'up');
        if (up === undefined) return;
        const ready = [...pending.values()].filter((p) => p.watermark <= up).slice(0, GUARD_CHUNK);
        if (ready.length === 0) return;
        for (const p of ready) pending.delete(p.id);
        const ids = ready.map((p) => p.id);
        const metaIds = ids.map((itemId) => getComposedPrimaryKeyOfDocumentData(meta.schema, { itemId, isCheckpoint: '0' } as never));
        const [current, metas] = await Promise.all([deps.read(ids), meta.findDocumentsById(metaIds, false)]);
        const now = new Map(current.map((d) => [String(d.id), d]));
        const assumed = new Map(metas.map((m) => [String((m as { itemId?: string }).itemId), (m as { docData?: Record<string, unknown> }).docData]));
        const lost = ready.flatMap((p) => {
          const doc = now.get(p.id);
          if (!doc || !deps.same(doc, p.doc)) return []; // changed since: its own push follows
          const base = assumed.get(p.id);
          return base && deps.same(base, doc) ? [] : [doc];
        });
        if (lost.length > 0) await deps.repush(lost);
      } finally {
        running = false;
      }
    },
  };
}
