import type { EngineCore, Tx } from '../core';
import { getRecord, putRecord } from '../records';
import { sameDocument, type SyncDoc } from './streams';
import { formatStamp, hlcReceive, hlcTick, laterStamp, parseStamp, readHlcInTx, saveHlcInTx, type Hlc } from './hlc';

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
 *   far ahead the lane's clock runs. A lane runs the same clock: it ticks it for each customer
 *   edit made on the lane and sends that stamp with its push, and its clock receives the hub's
 *   on every customers pull, so a lane edit made after the lane saw a hub edit is later than it
 *   even in the same millisecond or with the lane's clock behind. The hub keeps the stamps of the fields it merged
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
  /** The other side: a lane's id, or `upstream` for the hub's upstream service (upstream-merge.ts). */
  lane: string;
  at: string;
  fields: Array<{ field: string; lane_value: unknown; hub_value: unknown; lane_stamp: string; hub_stamp: string; winner: 'lane' | 'hub' | 'upstream' }>;
}

export const stampOf = (ms: number, node: string, counter = 0): string => formatStamp({ ms, counter }, node);
export { laterStamp };

const EDIT = 'sync_edit';

/**
 * A customer was edited on this install (the hub, or a lane: `node` is `hub` or `lane:<laneid>`):
 * its stamp is this install's clock, ticked. A lane sends it with its push of the customer.
 */
export async function stampEditInTx(tx: Tx, customerId: string, node: string): Promise<string> {
  const clock = hlcTick(await readHlcInTx(tx), tx.now);
  await saveHlcInTx(tx, clock);
  const stamp = formatStamp(clock, node);
  await putRecord(tx, EDIT, customerId, { stamp }, { type: 'sync_edit.stamped', entity: 'sync_edit', key: customerId }, customerId);
  return stamp;
}

/** The stamp of this install's last edit of each customer (those it has one for). */
export async function editStamps(reader: Tx | EngineCore, customerIds: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const id of customerIds) {
    const stamp = (await getRecord<{ stamp: string }>(reader, EDIT, id))?.data.stamp;
    if (stamp) out.set(id, stamp);
  }
  return out;
}

/**
 * The lane's stamp of its edit: the one it sent, named for the pushing lane whatever node it
 * says (a lane speaks for itself only); from a lane that sends none (an older version), its
 * edit's wall-clock time with a zero counter.
 */
function laneStampOf(sent: string | undefined, laneData: Record<string, unknown>): Hlc {
  const parsed = sent ? parseStamp(sent) : undefined;
  if (parsed && parsed.node !== '') return { ms: parsed.ms, counter: parsed.counter };
  return { ms: Math.max(0, Math.trunc(Number(laneData.updated_ms ?? 0))), counter: 0 };
}

export const same = (a: unknown, b: unknown) => sameDocument({ v: a }, { v: b });
type Data = Record<string, unknown>;

/**
 * The fields a merge decides: those the other side holds a value for that differs from the
 * hub's, with whether each side changed it since the version both last agreed on (`base`; with
 * no base, the hub counts as having changed every field). One rule for lanes and the upstream.
 */
export function differingFields(hubData: Data, otherData: Data, baseData: Data | undefined): Array<{ field: string; hubChanged: boolean; otherChanged: boolean }> {
  const base = baseData ?? {};
  const out: Array<{ field: string; hubChanged: boolean; otherChanged: boolean }> = [];
  for (const field of new Set([...Object.keys(hubData), ...Object.keys(otherData), ...Object.keys(base)])) {
    if (NOT_MERGED.has(field) || same(otherData[field], hubData[field])) continue;
    out.push({ field, hubChanged: baseData === undefined || !same(hubData[field], base[field]), otherChanged: !same(otherData[field], base[field]) });
  }
  return out;
}

/** Records a merge's resolution of a customer's fields (listed by `GET /api/sync/resolutions`). */
export async function recordResolutionInTx(tx: Tx, resolution: Resolution): Promise<void> {
  if (resolution.fields.length === 0) return;
  await putRecord(tx, 'sync_resolution', `${resolution.customer}:${tx.now}:${resolution.lane}`, resolution, { type: 'sync_resolution.created', entity: 'sync_resolution', key: resolution.customer, data: { fields: resolution.fields.map((f) => f.field), lane: resolution.lane } }, resolution.customer);
}

/** Merges a lane's customer into the hub's; answers the merged document and whether it changed. */
export async function mergeCustomerInTx(tx: Tx, laneid: string, current: SyncDoc, incoming: SyncDoc, assumed: SyncDoc | undefined, sentStamp?: string): Promise<{ merged: SyncDoc; changed: boolean }> {
  const hubData = (current.data ?? {}) as Data;
  const laneData = (incoming.data ?? {}) as Data;
  const baseData = (assumed?.data ?? {}) as Data;
  const stamps = (await getRecord<FieldStamps>(tx, 'sync_fields', current.id))?.data.fields ?? {};
  const laneTime = laneStampOf(sentStamp, laneData);
  const laneStamp = formatStamp(laneTime, `lane:${laneid}`);
  const hubEdit = (await getRecord<{ stamp: string }>(tx, EDIT, current.id))?.data.stamp;
  const hubDefault = hubEdit ?? stampOf(Number(hubData.updated_ms ?? 0), 'hub');
  await saveHlcInTx(tx, hlcReceive(await readHlcInTx(tx), laneTime, tx.now));
  const next: Data = { ...hubData };
  const nextStamps = { ...stamps };
  const resolution: Resolution = { customer: current.id, identifier: String(hubData.identifier ?? ''), lane: laneid, at: tx.at, fields: [] };
  for (const { field, hubChanged, otherChanged: laneChanged } of differingFields(hubData, laneData, assumed ? baseData : undefined)) {
    if (!laneChanged) continue;
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
  await recordResolutionInTx(tx, resolution);
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
