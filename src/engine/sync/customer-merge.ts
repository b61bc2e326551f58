import type { Tx } from '../core';
import { getRecord, putRecord } from '../records';
import { sameDocument, type SyncDoc } from './streams';
import { formatStamp, hlcReceive, hlcTick, laterStamp, readHlcInTx, saveHlcInTx } from './hlc';

/**
 * Customers are edited on the hub and on lanes (a cashier fixes an address while the link is
 * down), so a lane's push of a customer is merged field by field with the hub's version:
 *
 * - a field only the lane changed (against the version it last had from the hub, RxDB's assumed
 *   master state) takes the lane's value; a field only the hub changed keeps the hub's;
 * - a field both changed goes to the later edit by its hybrid logical clock stamp
 *   `<ms>.<counter>@<node>` (hlc.ts), the node (`hub` or `lane:<laneid>`) breaking ties, so every
 *   install orders two edits the same way. The hub's clock receives every lane stamp it merges,
 *   and each edit made on the hub is stamped by that clock (`sync_edit` record of the customer,
 *   stampHubEditInTx): an edit the hub made after it saw a lane's edit is later than it, however
 *   far ahead the lane's clock runs. A lane's stamp is its edit's time on its own clock (the
 *   customer's `updated_ms`, counter 0). The hub keeps the stamps of the fields it merged
 *   (`sync_fields`); a field changed on the hub is stamped with the later of that and its last
 *   hub edit, or its version's time when it has neither;
 * - every such resolution is recorded (`sync_resolution`, ref the customer id) with both values,
 *   both stamps and the winner.
 *
 * The ledger (balances, aging) is the hub's, computed from invoices and payments: never merged.
 */
const NOT_MERGED = new Set(['ledger', 'created_at', 'updated_at', 'updated_ms', 'identifier', 'parent_identifier']);

interface FieldStamps {
  fields: Record<string, string>;
}

export interface Resolution {
  customer: string;
  identifier: string;
  lane: string;
  at: string;
  fields: Array<{ field: string; lane_value: unknown; hub_value: unknown; lane_stamp: string; hub_stamp: string; winner: 'lane' | 'hub' }>;
}

export const stampOf = (ms: number, node: string, counter = 0): string => formatStamp({ ms, counter }, node);
export { laterStamp };

const HUB_EDIT = 'sync_edit';

/** Hub: a customer was edited here; its stamp is the hub's clock, ticked. */
export async function stampHubEditInTx(tx: Tx, customerId: string): Promise<string> {
  const clock = hlcTick(await readHlcInTx(tx), tx.now);
  await saveHlcInTx(tx, clock);
  const stamp = formatStamp(clock, 'hub');
  await putRecord(tx, HUB_EDIT, customerId, { stamp }, { type: 'sync_edit.stamped', entity: 'sync_edit', key: customerId }, customerId);
  return stamp;
}

const same = (a: unknown, b: unknown) => sameDocument({ v: a }, { v: b });
type Data = Record<string, unknown>;

/** Merges a lane's customer into the hub's; answers the merged document and whether it changed. */
export async function mergeCustomerInTx(tx: Tx, laneid: string, current: SyncDoc, incoming: SyncDoc, assumed: SyncDoc | undefined): Promise<{ merged: SyncDoc; changed: boolean }> {
  const hubData = (current.data ?? {}) as Data;
  const laneData = (incoming.data ?? {}) as Data;
  const baseData = (assumed?.data ?? {}) as Data;
  const stamps = (await getRecord<FieldStamps>(tx, 'sync_fields', current.id))?.data.fields ?? {};
  const laneTime = { ms: Math.max(0, Math.trunc(Number(laneData.updated_ms ?? 0))), counter: 0 };
  const laneStamp = formatStamp(laneTime, `lane:${laneid}`);
  const hubEdit = (await getRecord<{ stamp: string }>(tx, HUB_EDIT, current.id))?.data.stamp;
  const hubDefault = hubEdit ?? stampOf(Number(hubData.updated_ms ?? 0), 'hub');
  await saveHlcInTx(tx, hlcReceive(await readHlcInTx(tx), laneTime, tx.now));
  const next: Data = { ...hubData };
  const nextStamps = { ...stamps };
  const resolution: Resolution = { customer: current.id, identifier: String(hubData.identifier ?? ''), lane: laneid, at: tx.at, fields: [] };
  const keys = new Set([...Object.keys(hubData), ...Object.keys(laneData), ...Object.keys(baseData)]);
  for (const field of keys) {
    if (NOT_MERGED.has(field)) continue;
    const laneChanged = !same(laneData[field], baseData[field]);
    if (!laneChanged || same(laneData[field], hubData[field])) continue;
    const hubChanged = assumed === undefined || !same(hubData[field], baseData[field]);
    if (!hubChanged) {
      setField(next, field, laneData[field]);
      nextStamps[field] = laneStamp;
      continue;
    }
    const known = stamps[field];
    const hubStamp = known && hubEdit ? (laterStamp(known, hubEdit) === 'a' ? known : hubEdit) : (known ?? hubDefault);
    const winner = laterStamp(laneStamp, hubStamp) === 'a' ? 'lane' : 'hub';
    resolution.fields.push({ field, lane_value: laneData[field] ?? null, hub_value: hubData[field] ?? null, lane_stamp: laneStamp, hub_stamp: hubStamp, winner });
    if (winner === 'lane') {
      setField(next, field, laneData[field]);
      nextStamps[field] = laneStamp;
    } else nextStamps[field] = hubStamp;
  }
  if (resolution.fields.length > 0) {
    await putRecord(tx, 'sync_resolution', `${current.id}:${tx.now}:${laneid}`, resolution, { type: 'sync_resolution.created', entity: 'sync_resolution', key: current.id, data: { fields: resolution.fields.map((f) => f.field), lane: laneid } }, current.id);
  }
  const changed = !same(next, hubData);
  if (changed) {
    next.updated_ms = Math.max(Number(hubData.updated_ms ?? 0), Number(laneData.updated_ms ?? 0));
    next.updated_at = new Date(Number(next.updated_ms)).toISOString();
    await putRecord(tx, 'sync_fields', current.id, { fields: nextStamps } satisfies FieldStamps, { type: 'sync_fields.updated', entity: 'sync_fields', key: current.id }, current.id);
  }
  return { merged: { ...current, data: next }, changed };
}

function setField(data: Data, field: string, value: unknown): void {
  if (value === undefined) delete data[field];
  else data[field] = value;
}
