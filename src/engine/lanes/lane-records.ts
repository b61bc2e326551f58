import type { LaneCreate, LanePatch } from '../../shared/schemas/lanes';
import type { Tx } from '../core';
import { fail, notFound } from '../errors';
import { getRecord, putRecord, recordsByRef, recordsOfKind } from '../records';
import type { LaneHub } from './hub';
import { LANE_KIND, laneSummary, newLane, type LaneData } from './model';
import { checkPortPath } from './port-path';

export type LaneView = LaneData & { watermark: number };

const CONFIG_CHANGES_NEED_IDLE: ReadonlyArray<keyof LanePatch> = ['port_path', 'baud_rate', 'data_bits', 'parity', 'stop_bits', 'enabled'];

async function assertPortFree(tx: Tx, portPath: string, laneid: string): Promise<void> {
  const users = await recordsByRef<LaneData>(tx, LANE_KIND, portPath);
  const other = users.find((r) => r.data.laneid !== laneid);
  if (other) throw fail.conflict('port_in_use', `Port ${portPath} is already used by lane ${other.data.laneid}`, [{ field: 'port_path', message: `already used by lane ${other.data.laneid}` }]);
}

function view(hub: LaneHub, data: LaneData, watermark: number): LaneView {
  return { ...hub.live(data), watermark };
}

export async function listLanes(hub: LaneHub): Promise<LaneView[]> {
  const records = await recordsOfKind<LaneData>(hub.core, LANE_KIND);
  return records.map((r) => view(hub, r.data, r.watermark)).sort((a, b) => a.laneid.localeCompare(b.laneid, 'en', { numeric: true }));
}

export async function getLane(hub: LaneHub, laneid: string): Promise<LaneView> {
  const record = await getRecord<LaneData>(hub.core, LANE_KIND, laneid);
  if (!record) throw notFound('lane_not_found', `No lane ${laneid}`);
  return view(hub, record.data, record.watermark);
}

export async function createLane(hub: LaneHub, input: LaneCreate): Promise<LaneView> {
  await checkPortPath(input.port_path);
  const saved = await hub.core.mutate(async (tx) => {
    if (await getRecord(tx, LANE_KIND, input.laneid)) throw fail.conflict('lane_exists', `Lane ${input.laneid} already exists`, [{ field: 'laneid', message: 'already exists' }]);
    await assertPortFree(tx, input.port_path, input.laneid);
    const lane = newLane(input, hub.account.profile().currency, tx.at);
    const record = await putRecord(tx, LANE_KIND, lane.laneid, lane, { type: 'lane.created', entity: 'lane', key: lane.laneid, data: laneSummary(lane) }, lane.port_path);
    tx.afterCommit(() => void hub.reconcile(lane.laneid));
    return record;
  });
  await hub.runtimes.get(input.laneid)?.ops;
  return view(hub, saved.data, saved.watermark);
}

/**
 * Changes a lane's settings. Port settings (and enabling) reopen the device, so they are refused
 * while a payment or command holds the lane; names, tips and signature rules are sent to the
 * device at once when it is idle.
 */
export async function updateLane(hub: LaneHub, laneid: string, patch: LanePatch): Promise<LaneView> {
  if (patch.port_path !== undefined) await checkPortPath(patch.port_path);
  const saved = await hub.core.mutate(async (tx) => {
    const stored = await getRecord<LaneData>(tx, LANE_KIND, laneid);
    if (!stored) throw notFound('lane_not_found', `No lane ${laneid}`);
    const rt = hub.runtimes.get(laneid);
    const touchesPort = CONFIG_CHANGES_NEED_IDLE.some((k) => patch[k] !== undefined && patch[k] !== stored.data[k as keyof LaneData]);
    if (touchesPort && rt?.held) throw fail.conflict('lane_busy', `Lane ${laneid} is in use: change its port settings when it is idle`);
    if (patch.port_path !== undefined && patch.port_path !== stored.data.port_path) await assertPortFree(tx, patch.port_path, laneid);
    const next: LaneData = { ...stored.data, ...patch, updated_at: tx.at };
    if (!next.enabled) next.status = 'disabled';
    else if (stored.data.status === 'disabled') next.status = 'offline';
    const record = await putRecord(tx, LANE_KIND, laneid, next, { type: 'lane.updated', entity: 'lane', key: laneid, data: laneSummary(next) }, next.port_path);
    tx.afterCommit(() => void hub.reconcile(laneid));
    return record;
  });
  await hub.runtimes.get(laneid)?.ops;
  return view(hub, saved.data, saved.watermark);
}

export async function removeLane(hub: LaneHub, laneid: string): Promise<void> {
  await hub.core.mutate(async (tx) => {
    const stored = await getRecord<LaneData>(tx, LANE_KIND, laneid);
    if (!stored) throw notFound('lane_not_found', `No lane ${laneid}`);
    if (hub.runtimes.get(laneid)?.held) throw fail.conflict('lane_busy', `Lane ${laneid} is in use: remove it when it is idle`);
    await tx.remove('records', stored.id, { type: 'lane.deleted', entity: 'lane', key: laneid, data: { laneid } });
    tx.afterCommit(() => void hub.reconcile(laneid));
  });
  await hub.runtimes.get(laneid)?.ops;
}

