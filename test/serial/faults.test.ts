import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { laneWithDevice, later, openLaneRig, sale, until, type LaneRig } from './helpers';

/**
 * Faults on real serial pairs. Each ends the payment in a defined state: never charged twice,
 * and when its outcome is unknown complete() fails so that the gateway voids it. The lane comes
 * back by itself once the port (or the device) does.
 */
let rig: LaneRig;
beforeAll(async () => {
  rig = await openLaneRig();
});
afterAll(async () => {
  await rig?.close();
});

const lane = (id: string) => rig.engine.lanes.get(id);
const statusIs = (id: string, status: string) => until(async () => ((await lane(id)).status === status ? true : undefined), `lane ${id} to be ${status}`);

describe('lane faults over real serial pairs', () => {
  it('port missing at start: the lane is offline with the reason, and connects by itself when the port appears', async () => {
    // Set up while its port was there (a link must resolve to a serial device when it is set), then unplugged.
    const pair = await rig.pair('late');
    await rig.engine.lanes.create({ laneid: 'F1', port_path: pair.host });
    await pair.unplug();
    await rig.restart(); // an app start with the port missing
    const offline = await lane('F1');
    expect(offline.status).toBe('offline');
    await until(async () => ((await lane('F1')).last_error?.includes('not found') ? true : undefined), 'the reason');
    expect((await rig.engine.lanes.command('F1', 'DeviceStatus'))).toMatchObject({ success: false, errors: ['lane_offline'], status: 'offline' });
    await pair.plug();
    rig.sim(pair);
    await statusIs('F1', 'connected');
    expect((await lane('F1')).firmware).toBe('LWSIM-1.4.2');
  });

  it('the app stopping records its lanes as offline, and the next start connects them again', async () => {
    await laneWithDevice(rig, 'F0');
    expect((await lane('F0')).status).toBe('connected');
    await rig.restart(false); // what the stored record says while nothing drives the lane
    expect((await lane('F0')).status).toBe('offline');
    rig.engine.start(3_600_000);
    await statusIs('F0', 'connected');
  });

  it('unplugged while waiting for the card: the payment fails (nothing was charged), the lane returns when plugged back', async () => {
    const { pair } = await laneWithDevice(rig, 'F2', { scenario: 'timeout' });
    const pending = later(rig.engine.lanes.readCard(sale('F2', 'UNPL0001')));
    await until(async () => ((await lane('F2')).activity === 'waiting_for_card' ? true : undefined), 'the card prompt');
    await pair.unplug();
    await expect(pending).rejects.toMatchObject({ code: 'lane_offline' });
    const l = await lane('F2');
    expect(l.status).toBe('offline');
    expect(l.last_error).toMatch(/disconnected|not found|not answering/);
    await pair.plug();
    await statusIs('F2', 'connected');
    // The device reopened its port by itself; it was still asking for the card of the failed
    // payment, and the lane put it back to idle.
    const device = rig.sims.at(-1)!;
    await until(() => device.currentScreen.includes('WELCOME'), 'the device to be idle');
    device.setScenario('approve');
    const request = sale('F2', 'UNPL0002');
    await expect(rig.engine.lanes.readCard(request)).resolves.toMatchObject({ last4: '0006' });
    await expect(rig.engine.lanes.complete(request, { approved: true, message: 'APPROVED' })).resolves.toEqual({});
  });

  it('unplugged after the card was authorized: complete() fails so the payment is voided, never left standing unconfirmed', async () => {
    const { pair } = await laneWithDevice(rig, 'F3');
    const request = sale('F3', 'UNPL0003');
    await rig.engine.lanes.readCard(request);
    await pair.unplug();
    await statusIs('F3', 'offline');
    await expect(rig.engine.lanes.complete(request, { approved: true, authorizationCode: '123456', message: 'APPROVED' })).rejects.toMatchObject({ code: 'lane_offline' });
    await pair.plug();
    await statusIs('F3', 'connected');
    expect((await lane('F3')).last_payment).toBeNull();
  });

  it('a short unplug while the customer signs: the answer is asked for again and the payment completes', async () => {
    const { pair, device } = await laneWithDevice(rig, 'F4', { card: '341111597242000', pace: { signMs: 400 } });
    const request = sale('F4', 'UNPL0004');
    await rig.engine.lanes.readCard(request);
    const completing = later(rig.engine.lanes.complete(request, { approved: true, authorizationCode: '654321', message: 'APPROVED' }));
    await until(() => device.currentScreen.includes('PLEASE SIGN BELOW'), 'the signature prompt');
    await pair.unplug();
    await pair.plug();
    const done = await completing;
    expect(done.signature?.mediaType).toBe('image/svg+xml');
    expect(device.screens.filter((s) => s.includes('PLEASE SIGN BELOW'))).toHaveLength(1);
    await statusIs('F4', 'connected');
  });

  it('a NAK storm: the lane goes offline after the resends, the waiting payment fails, the lane recovers when it stops', async () => {
    const { device } = await laneWithDevice(rig, 'F5', { scenario: 'timeout' });
    const pending = later(rig.engine.lanes.readCard(sale('F5', 'NAKS0001')));
    await until(async () => ((await lane('F5')).activity === 'waiting_for_card' ? true : undefined), 'the card prompt');
    device.setScenario('nak_storm');
    await statusIs('F5', 'offline');
    expect((await lane('F5')).last_error).toBe('the device is not answering');
    await expect(pending).rejects.toMatchObject({ code: 'lane_offline' });
    device.setScenario('approve');
    await statusIs('F5', 'connected');
  });

  it('a device reset while waiting for the card fails the payment; after the card it makes complete() fail; the lane is set up again', async () => {
    const { device } = await laneWithDevice(rig, 'F6', { scenario: 'reset' });
    const firstSetup = (await lane('F6')).last_setup_at;
    await expect(rig.engine.lanes.readCard(sale('F6', 'RSET0001'))).rejects.toMatchObject({ code: 'device_error' });
    await until(async () => ((await lane('F6')).last_error?.includes('restarted') ? true : undefined), 'the reset to be noted');
    device.setScenario('approve');
    rig.clock.advance(1000);
    await until(async () => {
      const l = await lane('F6');
      return l.status === 'connected' && l.last_setup_at !== firstSetup ? true : undefined;
    }, 'the device to be set up again');
    const request = sale('F6', 'RSET0002');
    await rig.engine.lanes.readCard(request);
    const before = (await lane('F6')).last_error_at;
    rig.clock.advance(1000);
    device.restart();
    await until(async () => ((await lane('F6')).last_error?.includes('restarted') && (await lane('F6')).last_error_at !== before ? true : undefined), 'the reset');
    await expect(rig.engine.lanes.complete(request, { approved: true, message: 'APPROVED' })).rejects.toMatchObject({ code: 'device_error' });
  });

  it('garbage on the line: frames are NAKed and resent, and a signed sale still completes', async () => {
    await laneWithDevice(rig, 'F7', { scenario: 'garbage', card: '6011000990911111' });
    const request = sale('F7', 'GARB0001');
    const card = await rig.engine.lanes.readCard(request);
    expect(card).toMatchObject({ brand: 'discover', last4: '1111' });
    const done = await rig.engine.lanes.complete(request, { approved: true, message: 'APPROVED' });
    expect(done.signature).toBeDefined();
  });

  it('the device goes silent mid-payment: back soon, the card answer is recalled; gone too long, the payment fails and the lane returns', async () => {
    const { device } = await laneWithDevice(rig, 'F8', { scenario: 'disconnect', silenceMs: 800 });
    await expect(rig.engine.lanes.readCard(sale('F8', 'SILN0001'))).resolves.toMatchObject({ last4: '0006' });
    await rig.engine.lanes.complete(sale('F8', 'SILN0001'), { approved: true, message: 'APPROVED' });
    device.setScenario('timeout');
    const pending = later(rig.engine.lanes.readCard(sale('F8', 'SILN0002')));
    await until(async () => ((await lane('F8')).activity === 'waiting_for_card' ? true : undefined), 'the card prompt');
    device.goSilent(60_000);
    await expect(pending).rejects.toMatchObject({ code: 'lane_offline' });
    device.goSilent(0); // talking again
    await statusIs('F8', 'connected');
  });
});
