import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, storeLayouts, ManualClock, sequentialIds, type Engine } from '../../src/engine';
import { createLogger } from '../../src/engine/logger';
import { openDataStore } from '../../src/store';
import { createSerialLaneDriver } from '../../src/terminal';
import { SerialTransport } from '../../src/terminal/serial-transport';
import { SimulatedDevice, type SimulatorOptions } from '../../src/terminal/simulator/device';
import { TEST_KEY, TEST_TOKEN } from '../helpers/engine';

/** Bounded polling for things that happen on their own (a lane reconnecting): generous, never a timing assertion. */
export async function until<T>(check: () => T | Promise<T>, what: string, ms = 20_000): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A promise whose rejection is asserted later: marked handled now. */
export function later<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

/**
 * A real serial pair: two pseudo-terminals joined by socat. `unplug()` kills socat (both ports
 * vanish, as when a cable is pulled); `plug()` starts it again on the same paths.
 */
export class SocatPair {
  readonly host: string;
  readonly device: string;
  private child: ChildProcess | undefined;

  constructor(readonly dir: string, name = 'lane') {
    this.host = join(dir, `${name}-host`);
    this.device = join(dir, `${name}-device`);
  }

  async plug(): Promise<void> {
    if (this.child) return;
    const child = spawn('socat', ['-d', '-d', `pty,raw,echo=0,link=${this.host}`, `pty,raw,echo=0,link=${this.device}`], { stdio: 'ignore' });
    this.child = child;
    child.on('exit', () => {
      if (this.child === child) this.child = undefined;
    });
    await until(() => existsSync(this.host) && existsSync(this.device), 'socat to create the pair', 10_000);
  }

  async unplug(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await exited;
    await until(() => !existsSync(this.host), 'the pair to vanish', 10_000);
  }
}

export const FAST_SESSION = { ackTimeoutMs: 250, heartbeatMs: 1000, probeMs: 200, recoverMs: 4000, answerMarginMs: 1500, commandMs: 2500 };

export interface LaneRig {
  engine: Engine;
  clock: ManualClock;
  dir: string;
  pairs: SocatPair[];
  sims: SimulatedDevice[];
  /** A socat pair (plugged unless told otherwise). */
  pair(name: string, plugged?: boolean): Promise<SocatPair>;
  /** A simulated device on the device end of a pair (reopens its port by itself, like the CLI). */
  sim(pair: SocatPair, options?: SimulatorOptions): SimulatedDevice;
  /** Closes the engine and opens a new one on the same data folder (an app restart); `start: false` leaves its lanes closed. */
  restart(start?: boolean): Promise<void>;
  close(): Promise<void>;
}

async function bootEngine(dir: string, clock: ManualClock, start = true): Promise<Engine> {
  const store = await openDataStore({ directory: dir, layouts: storeLayouts });
  const engine = await createEngine({
    store,
    clock,
    ids: sequentialIds(`L${Math.floor(Math.random() * 1e6)}X`),
    logger: createLogger({ directory: join(dir, 'logs'), level: 'debug' }),
    firstToken: TEST_TOKEN,
    firstKey: TEST_KEY,
    timezone: 'UTC',
    laneDriver: createSerialLaneDriver({ session: FAST_SESSION, transport: { minBackoffMs: 50, maxBackoffMs: 400 } }),
  });
  if (start) engine.start(3_600_000);
  return engine;
}

/** A real engine on a temp SQLite file with the real serial lane driver, started. */
export async function openLaneRig(): Promise<LaneRig> {
  const dir = mkdtempSync(join(tmpdir(), 'laneway-serial-'));
  const clock = new ManualClock('2026-03-02T15:00:00Z');
  const rig: LaneRig = {
    engine: await bootEngine(dir, clock),
    clock,
    dir,
    pairs: [],
    sims: [],
    async pair(name, plugged = true) {
      const p = new SocatPair(dir, name);
      if (plugged) await p.plug();
      rig.pairs.push(p);
      return p;
    },
    sim(pair, options = {}) {
      const transport = new SerialTransport({ path: pair.device, baudRate: 115200, dataBits: 8, parity: 'none', stopBits: 1 }, { minBackoffMs: 50, maxBackoffMs: 400 });
      const device = new SimulatedDevice(transport, { link: { ackTimeoutMs: 250 }, ...options });
      device.start();
      rig.sims.push(device);
      return device;
    },
    async restart(start = true) {
      await rig.engine.close();
      rig.engine = await bootEngine(dir, clock, start);
    },
    async close() {
      await rig.engine.close();
      await Promise.all(rig.sims.map((s) => s.close()));
      await Promise.all(rig.pairs.map((p) => p.unplug()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return rig;
}

/** Adds a lane on a fresh pair with a simulator on the other end, and waits until it is connected. */
export async function laneWithDevice(rig: LaneRig, laneid: string, sim: SimulatorOptions = {}, lane: Record<string, unknown> = {}) {
  const pair = await rig.pair(`lane${laneid}`);
  const device = rig.sim(pair, sim);
  await rig.engine.lanes.create({ laneid, port_path: pair.host, ...lane });
  await until(async () => (await rig.engine.lanes.get(laneid)).status === 'connected', `lane ${laneid} to connect`);
  // The device has its settings once DeviceSetup ran (it runs on connect).
  await until(async () => (await rig.engine.lanes.get(laneid)).last_setup_at !== null, `lane ${laneid} to be set up`);
  return { pair, device };
}

export const sale = (laneId: string, requestId: string, amountCents = 4200, extra: Record<string, unknown> = {}) => ({
  requestId,
  laneId,
  kind: 'sale' as const,
  amountCents,
  currency: 'usd',
  enableManualEntry: false,
  ...extra,
});
