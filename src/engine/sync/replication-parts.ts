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
