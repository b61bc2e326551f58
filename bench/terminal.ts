/**
 * DeviceStatus round trips over a real serial pair (socat pseudo-terminals) at 115200 baud.
 *
 *   npx tsx bench/terminal.ts [--n 1000]
 *
 * Three figures, measured in the same run on the same pair:
 *   baseline  a bare echo on the device end: the same byte counts out and back, no protocol
 *             (the floor set by the pty, the OS and two processes);
 *   driver    DeviceSession.status() against the simulator (npm run terminal-sim) in its own process:
 *             framing, CRC, ACK, JSON, request bookkeeping;
 *   engine    engine.lanes.command(laneid, 'DeviceStatus'), what POST /api/gateway/v1/terminal runs.
 * A pty does not pace bytes at the baud rate, so the wire time of the frames on a real 115200-baud
 * line is printed beside them: a real lane takes measured + wire.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SerialPort } from 'serialport';
import { createEngine, storeLayouts, ManualClock } from '../src/engine';
import { createLogger } from '../src/engine/logger';
import { openDataStore } from '../src/store';
import { createSerialLaneDriver } from '../src/terminal';
import { DeviceSession } from '../src/terminal/device-session';
import { encodeFrame, FRAME_OVERHEAD } from '../src/terminal/frame';
import { encodeMessage } from '../src/terminal/protocol';
import { SerialTransport } from '../src/terminal/serial-transport';
import { wireMs } from '../src/terminal/timers';

const BAUD = 115200;
const argN = process.argv.indexOf('--n');
const N = argN > 0 ? Number(process.argv[argN + 1]) : 1000;
const WARMUP = 50;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

function stats(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * (s.length - 1)))] ?? NaN;
  return { p50: at(0.5), p99: at(0.99), max: s[s.length - 1] ?? NaN, mean: s.reduce((a, b) => a + b, 0) / s.length };
}

const fmt = (ms: number) => `${ms.toFixed(2).padStart(7)} ms`;

// Frame sizes of one DeviceStatus round trip as the driver and the simulator send them.
const requestBytes = encodeFrame({ type: 'data', seq: 1, msgId: 1, payload: encodeMessage({ t: 'status', rid: 'sa1b2-rs' }) }).length;
const answerBytes = encodeFrame({
  type: 'data',
  seq: 1,
  msgId: 1,
  payload: encodeMessage({ t: 'status', rid: 'sa1b2-rs', boot: 'a1b2c3d4', card_inserted: false, busy: false }),
}).length;
const ackBytes = FRAME_OVERHEAD;

const dir = mkdtempSync(join(tmpdir(), 'laneway-bench-'));
const host = join(dir, 'host');
const device = join(dir, 'device');
const children: ChildProcess[] = [];

async function main(): Promise<void> {
  const socat = spawn('socat', [`pty,raw,echo=0,link=${host}`, `pty,raw,echo=0,link=${device}`], { stdio: 'ignore' });
  children.push(socat);
  await until(() => existsSync(host) && existsSync(device), 'socat');

  // -- baseline: echo the answer's byte count for each request's byte count --------------------
  const echo = spawn(
    process.execPath,
    [
      '-e',
      `const { SerialPort } = require('serialport');
       const p = new SerialPort({ path: ${JSON.stringify(device)}, baudRate: ${BAUD} });
       let got = 0; const reply = Buffer.alloc(${answerBytes}, 0x55);
       p.on('open', () => console.log('ready'));
       p.on('data', (d) => { got += d.length; while (got >= ${requestBytes}) { got -= ${requestBytes}; p.write(reply); } });`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], cwd: process.cwd() },
  );
  children.push(echo);
  let echoOut = '';
  echo.stdout!.on('data', (d: Buffer) => (echoOut += d.toString()));
  await until(() => echoOut.includes('ready'), 'the echo process');
  const port = new SerialPort({ path: host, baudRate: BAUD, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  let received = 0;
  let wake: (() => void) | undefined;
  port.on('data', (d: Buffer) => {
    received += d.length;
    if (received >= answerBytes) wake?.();
  });
  const request = Buffer.alloc(requestBytes, 0x33);
  const baseline: number[] = [];
  for (let i = 0; i < N + WARMUP; i++) {
    received = 0;
    const done = new Promise<void>((resolve) => (wake = resolve));
    const t0 = performance.now();
    port.write(request);
    await done;
    if (i >= WARMUP) baseline.push(performance.now() - t0);
  }
  await new Promise<void>((resolve) => port.close(() => resolve()));
  echo.kill();
  await new Promise((r) => echo.once('exit', r));

  // -- the simulator in its own process, as a real device would be ------------------------------
  const sim = spawn(join(process.cwd(), 'node_modules', '.bin', 'tsx'), ['src/cli/terminal-sim.ts', '--port', device, '--pace', 'fast'], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(sim);
  let simOut = '';
  sim.stdout!.on('data', (d: Buffer) => (simOut += d.toString()));
  await until(() => simOut.includes('port open'), 'the simulator', 30_000);

  let online = false;
  const session = new DeviceSession(
    new SerialTransport({ path: host, baudRate: BAUD, dataBits: 8, parity: 'none', stopBits: 1 }),
    { online: () => (online = true), offline: () => (online = false), reset: () => undefined },
    { baudRate: BAUD, heartbeatMs: 3_600_000 },
  );
  await until(() => online, 'the driver to connect');
  const driver: number[] = [];
  for (let i = 0; i < N + WARMUP; i++) {
    const t0 = performance.now();
    await session.status();
    if (i >= WARMUP) driver.push(performance.now() - t0);
  }
  await session.close();

  // -- through the engine, as the terminal endpoint runs it ---------------------------------------
  const store = await openDataStore({ directory: join(dir, 'data'), layouts: storeLayouts });
  const engine = await createEngine({
    store,
    clock: new ManualClock(),
    logger: createLogger(),
    timezone: 'UTC',
    laneDriver: createSerialLaneDriver({ session: { heartbeatMs: 3_600_000 } }),
  });
  engine.start(3_600_000);
  await engine.lanes.create({ laneid: '1', port_path: host });
  const deadline = Date.now() + 20_000;
  while ((await engine.lanes.get('1')).last_setup_at === null) {
    if (Date.now() > deadline) throw new Error('the lane did not connect');
    await sleep(20);
  }
  const viaEngine: number[] = [];
  for (let i = 0; i < N + WARMUP; i++) {
    const t0 = performance.now();
    const answer = await engine.lanes.command('1', 'DeviceStatus');
    if (!answer.success) throw new Error(`DeviceStatus failed: ${answer.error}`);
    if (i >= WARMUP) viaEngine.push(performance.now() - t0);
  }
  await engine.close();

  // -- report ----------------------------------------------------------------------------------
  const critical = requestBytes + ackBytes + answerBytes;
  const wire = wireMs(critical, BAUD);
  const rows: Array<[string, number[]]> = [
    ['baseline: bare echo, same bytes', baseline],
    ['driver: DeviceSession.status()', driver],
    ['engine: lanes.command(DeviceStatus)', viaEngine],
  ];
  console.log(`DeviceStatus round trips over a socat pair at ${BAUD} baud: ${N} each after ${WARMUP} warm-up, simulator in its own process`);
  console.log(`machine: ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (p99 on a busy machine is mostly scheduling)`);
  console.log(`${''.padEnd(38)}${'p50'.padStart(10)}${'p99'.padStart(10)}${'max'.padStart(10)}   p99 + wire`);
  for (const [name, samples] of rows) {
    const s = stats(samples);
    console.log(`${name.padEnd(38)}${fmt(s.p50)}${fmt(s.p99)}${fmt(s.max)}   ${fmt(s.p99 + wire)}`);
  }
  console.log(
    `wire time at ${BAUD} baud (8N1, 10 bits a byte; a pty does not pace it): request ${requestBytes} B + ACK ${ackBytes} B + answer ${answerBytes} B = ${critical} B -> ${wire.toFixed(2)} ms on the critical path (+ the host's ACK, ${wireMs(ackBytes, BAUD).toFixed(2)} ms, off it)`,
  );
  const engineP99 = stats(viaEngine).p99 + wire;
  console.log(`target p99 < 20 ms on a real 115200-baud line (engine p99 + wire): ${engineP99.toFixed(2)} ms -> ${engineP99 < 20 ? 'met' : 'MISSED'}`);
}

main()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const c of children) c.kill();
    rmSync(dir, { recursive: true, force: true });
    setTimeout(() => process.exit(), 200).unref();
  });
