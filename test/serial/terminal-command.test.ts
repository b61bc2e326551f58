import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DomainEvent } from '../../src/engine/events';
import type { TerminalResponse } from '../../src/shared/schemas/lanes';
import { startApi, type ApiClient } from '../helpers/harness';
import { laneWithDevice, later, openLaneRig, sale, until, type LaneRig } from './helpers';

let rig: LaneRig;
let api: ApiClient;
const events: DomainEvent[] = [];
beforeAll(async () => {
  rig = await openLaneRig();
  rig.engine.core.bus.subscribe((e) => events.push(e));
  api = await startApi(rig.engine);
});
afterAll(async () => {
  await api?.close();
  await rig?.close();
});

const terminal = (laneid: string, command: string) => api.post<TerminalResponse>('/api/gateway/v1/terminal', { laneid, command });

describe('terminal commands over HTTP to a device on a real serial pair', () => {
  it('DeviceStatus and DeviceSetup', async () => {
    const { device } = await laneWithDevice(rig, '1');
    const status = await terminal('1', 'DeviceStatus');
    expect(status.status).toBe(200);
    expect(status.body).toEqual({
      success: true,
      laneid: '1',
      command: 'DeviceStatus',
      status: 'connected',
      device: { online: true, firmware: 'LWSIM-1.4.2', model: 'Laneway Sim P400', serial_number: 'SIM-0001', card_inserted: false, busy: false },
    });
    await api.patch('/api/lanes/1', { name: 'Express lane' });
    const setup = await terminal('1', 'DeviceSetup');
    expect(setup.body).toMatchObject({ success: true, status: 'connected' });
    expect(device.currentScreen[0]).toBe('Express lane');
  });

  it('RequestSignature signs for the lane\'s last approved payment and stores the image with it', async () => {
    const { device } = await laneWithDevice(rig, '2');
    expect((await terminal('2', 'RequestSignature')).body).toMatchObject({ success: false, errors: ['no_payment'] });
    const request = sale('2', 'SIGN0001');
    await rig.engine.lanes.readCard(request);
    await rig.engine.lanes.complete(request, { approved: true, authorizationCode: 'ABC123', message: 'APPROVED' });
    const res = await terminal('2', 'RequestSignature');
    expect(res.body).toMatchObject({ success: true, status: 'connected', signature: { request_id: 'SIGN0001', media_type: 'image/svg+xml' } });
    expect(res.body.signature!.bytes).toBeGreaterThan(100);
    expect(await rig.engine.lanes.signatureFor('SIGN0001')).toMatchObject({ source: 'request', laneid: '2' });
    expect((await rig.engine.lanes.get('2')).last_payment).toMatchObject({ request_id: 'SIGN0001', signature: true });
    expect(device.screens.some((s) => s[0] === 'PLEASE SIGN BELOW')).toBe(true);
  });

  it('Cancel over HTTP stops a payment waiting for the card; the lane\'s status changes are events', async () => {
    await laneWithDevice(rig, '3', { scenario: 'timeout' });
    const pending = later(rig.engine.lanes.readCard(sale('3', 'CANC0001')));
    await until(async () => (await rig.engine.lanes.get('3')).activity === 'waiting_for_card', 'the card prompt');
    const status = await terminal('3', 'DeviceStatus');
    expect(status.body).toMatchObject({ success: true, status: 'busy', device: { busy: true } });
    expect((await terminal('3', 'RequestSignature')).body).toMatchObject({ success: false, errors: ['device_busy'] });
    const cancel = await terminal('3', 'Cancel');
    expect(cancel.body).toMatchObject({ success: true, cancel_result: 'cancelled' });
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
    await until(async () => (await rig.engine.lanes.get('3')).status === 'connected', 'idle');
    const seen = events.filter((e) => e.entity === 'lane' && e.key === '3' && e.type === 'lane.status').map((e) => `${String(e.data?.status)}/${String(e.data?.activity)}`);
    expect(seen).toContain('busy/waiting_for_card');
    expect(seen.at(-1)).toBe('connected/idle');
  });

  it('refuses to move a busy lane to another port, and to remove it', async () => {
    await laneWithDevice(rig, '4', { scenario: 'timeout' });
    const pending = later(rig.engine.lanes.readCard(sale('4', 'BUSY0001')));
    await until(async () => (await rig.engine.lanes.get('4')).status === 'busy', 'busy');
    expect((await api.patch<{ code: string }>('/api/lanes/4', { baud_rate: 9600 })).body.code).toBe('lane_busy');
    expect((await api.delete<{ code: string }>('/api/lanes/4')).status).toBe(409);
    expect((await api.patch('/api/lanes/4', { name: 'Renamed while busy' })).status).toBe(200);
    await terminal('4', 'Cancel');
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
  });
});

describe('npm run terminal-sim', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill('SIGTERM');
  });

  it('runs a device on the far end of a pair and prints what its screen shows during a sale', async () => {
    const pair = await rig.pair('cli');
    const tsx = join(process.cwd(), 'node_modules', '.bin', 'tsx');
    child = spawn(tsx, ['src/cli/terminal-sim.ts', '--port', pair.device, '--pace', 'fast', '--card', '5541032000004422'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    await until(() => out.includes('port open'), 'the simulator to open its port', 30_000);
    await rig.engine.lanes.create({ laneid: 'cli', port_path: pair.host });
    await until(async () => (await rig.engine.lanes.get('cli')).last_setup_at !== null, 'the lane to connect');
    const request = sale('cli', 'CLI00001', 1234);
    const card = await rig.engine.lanes.readCard(request);
    expect(card).toMatchObject({ brand: 'master', entryMode: 'contactless', cvm: 'none' });
    await rig.engine.lanes.complete(request, { approved: true, authorizationCode: 'CLI123', message: 'APPROVED' });
    await until(() => out.includes('APPROVED'), 'the outcome on the screen');
    expect(out).toContain('USD 12.34');
    expect(out).toContain('INSERT, TAP OR SWIPE');
    expect(out).toContain('tapped master ************4422');
    expect(out).not.toContain('5541032000004422');
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    child = undefined;
  });
});
