import type { EngineCore, Tx } from '../core';
import { getRecord, putRecord } from '../records';

/**
 * A hybrid logical clock (Kulkarni et al., 2014): a stamp is the greatest physical time the node
 * has seen (its own clock or a stamp it received) and a counter that orders events within that
 * millisecond. Sending or making an edit ticks it; receiving a stamp moves it past that stamp.
 * So an edit made after a node saw another edit always gets a later stamp, even when the other
 * node's clock runs ahead: a lane whose clock is ten minutes fast cannot win over an edit the hub
 * made after it saw the lane's.
 *
 * Stamps print as `<ms, 15 digits>.<counter, 4 digits>@<node>` and compare as strings (the node
 * name breaks exact ties, so every install orders two edits the same way).
 */
export interface Hlc {
  ms: number;
  counter: number;
}

export const HLC_ZERO: Hlc = { ms: 0, counter: 0 };

/** A local event (an edit) at physical time `now`. */
export function hlcTick(clock: Hlc, now: number): Hlc {
  const ms = Math.max(clock.ms, Math.trunc(now));
  return { ms, counter: ms === clock.ms ? clock.counter + 1 : 0 };
}

/** A stamp received from another node, at physical time `now`: max of the three, counter after both. */
export function hlcReceive(clock: Hlc, remote: Hlc, now: number): Hlc {
  const ms = Math.max(clock.ms, remote.ms, Math.trunc(now));
  let counter = 0;
  if (ms === clock.ms && ms === remote.ms) counter = Math.max(clock.counter, remote.counter) + 1;
  else if (ms === clock.ms) counter = clock.counter + 1;
  else if (ms === remote.ms) counter = remote.counter + 1;
  return { ms, counter };
}

export function formatStamp(clock: Hlc, node: string): string {
  return `${String(Math.max(0, Math.trunc(clock.ms))).padStart(15, '0')}.${String(clock.counter).padStart(4, '0')}@${node}`;
}

export function parseStamp(stamp: string): Hlc & { node: string } {
  const m = /^(\d+)\.(\d+)@(.*)$/.exec(stamp);
  return m ? { ms: Number(m[1]), counter: Number(m[2]), node: m[3]! } : { ms: 0, counter: 0, node: '' };
}

/** The later of two stamps ('a' on an exact tie: same time, counter and node is the same edit). */
export function laterStamp(a: string, b: string): 'a' | 'b' {
  return a >= b ? 'a' : 'b';
}

const CLOCK = 'sync_hlc';

/** This install's clock, persisted so a restart never goes back. */
export async function readHlcInTx(tx: Tx | EngineCore): Promise<Hlc> {
  return (await getRecord<Hlc>(tx, CLOCK, 'clock'))?.data ?? HLC_ZERO;
}

/** Whether `a` is after `b` (the node aside). */
export const hlcAfter = (a: Hlc, b: Hlc): boolean => a.ms > b.ms || (a.ms === b.ms && a.counter > b.counter);

/**
 * Receives a stamp from another install (a lane: the hub's clock on each customers pull): the
 * clock moves past it. Written only when the stamp is not already behind this clock, so the
 * polls of an idle shop write nothing.
 */
export async function receiveStampInTx(tx: Tx, stamp: string): Promise<void> {
  const remote = parseStamp(stamp);
  const clock = await readHlcInTx(tx);
  if (hlcAfter(clock, remote)) return;
  await saveHlcInTx(tx, hlcReceive(clock, remote, tx.now));
}

export async function saveHlcInTx(tx: Tx, clock: Hlc): Promise<void> {
  await putRecord(tx, CLOCK, 'clock', clock, { type: 'sync_hlc.advanced', entity: 'sync_hlc', key: 'clock' });
}
