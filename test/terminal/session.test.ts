import { afterEach, describe, expect, it } from 'vitest';
import { DeviceSession, type SessionOptions } from '../../src/terminal/device-session';
import { SimulatedDevice, type SimulatorOptions } from '../../src/terminal/simulator/device';
import type { DeviceInfo } from '../../src/engine/lanes/driver-port';
import { MemoryCable } from './memory-transport';

/** Bounded polling: generous for a loaded machine, never a timing assertion. */
async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const FAST: SessionOptions = { ackTimeoutMs: 60, heartbeatMs: 300, probeMs: 100, recoverMs: 1500, answerMarginMs: 300, commandMs: 1000 };

interface Rig {
  cable: MemoryCable;
  sim: SimulatedDevice;
  session: DeviceSession;
  log: string[];
  simEvents: string[];
  online(): boolean;
}

const rigs: Rig[] = [];
afterEach(async () => {
  for (const r of rigs.splice(0)) {
    await r.session.close();
    await r.sim.close();
  }
});

async function rig(sim: SimulatorOptions = {}, session: SessionOptions = {}): Promise<Rig> {
  const cable = new MemoryCable();
  const simEvents: string[] = [];
  const device = new SimulatedDevice(cable.device, { link: { ackTimeoutMs: 60 }, ...sim, onEvent: (t) => simEvents.push(t) });
  device.start();
  const log: string[] = [];
  let isOnline = false;
  const s = new DeviceSession(
    cable.host,
    {
      online: (_info: DeviceInfo) => {
        if (!isOnline) log.push('online');
        isOnline = true;
      },
      offline: (reason) => {
        isOnline = false;
        log.push(`offline: ${reason}`);
      },
      reset: () => log.push('reset'),
    },
    { ...FAST, ...session },
  );
  const r: Rig = { cable, sim: device, session: s, log, simEvents, online: () => isOnline };
  rigs.push(r);
  await until(() => isOnline, 'the device to come online');
  return r;
}

/** A promise whose rejection is asserted later: marked handled now, so it is not "unhandled" meanwhile. */
function later<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

const read = (rid: string, extra: Partial<Parameters<DeviceSession['readCard']>[0]> = {}) => ({ rid, kind: 'sale' as const, amountCents: 4200, currency: 'usd', manualEntry: false, tip: false, timeoutS: 30, ...extra });

describe('device session over a clean line', () => {
  it('reads a chip card with PIN, reporting each stage, then shows the outcome and collects a signature', async () => {
    const r = await rig({ scenario: 'signature' });
    const stages: string[] = [];
    const card = await r.session.readCard(read('P1'), (s) => stages.push(s));
    expect(card).toMatchObject({ entryMode: 'chip', cvm: 'signature', expMonth: '12', tipCents: 0 });
    expect(card.emv).toMatchObject({ aid: 'A0000000031010', applicationLabel: 'VISA CREDIT' });
    expect(stages).toEqual(['insert_card', 'reading']);
    const shown = await r.session.showResult('P1.r', 'P1', { approved: true, message: 'APPROVED', authCode: 'A1B2C3', signature: true, timeoutS: 10 });
    expect(shown.signature?.mediaType).toBe('image/svg+xml');
    expect(Buffer.from(shown.signature!.data, 'base64').toString()).toContain('<svg');
    expect(r.sim.screens.some((s) => s.includes('APPROVED') && s.includes('AUTH A1B2C3'))).toBe(true);
  });

  it('answers a repeated request id with the same answer instead of asking for a card again', async () => {
    const r = await rig();
    const first = await r.session.readCard(read('P2'));
    const prompts = () => r.simEvents.filter((e) => e.includes('waiting for a card')).length;
    expect(prompts()).toBe(1);
    const again = await r.session.readCard(read('P2'));
    expect(again.pan.slice(-4)).toBe(first.pan.slice(-4));
    expect(prompts()).toBe(1);
  });

  it('keeps DeviceStatus and Cancel working while a payment waits for the card', async () => {
    const r = await rig({ scenario: 'timeout' });
    const pending = later(r.session.readCard(read('P3')));
    await until(() => r.sim.currentScreen.includes('INSERT, TAP OR SWIPE'), 'the card prompt');
    const info = await r.session.status();
    expect(info.busy).toBe(true);
    await expect(r.session.cancel()).resolves.toEqual({ active: true });
    await expect(pending).rejects.toMatchObject({ deviceCode: 'cancelled' });
  });

  it('maps the customer\'s actions to failure codes', async () => {
    const r = await rig({ scenario: 'card_removed' });
    await expect(r.session.readCard(read('R1'))).rejects.toMatchObject({ deviceCode: 'card_removed' });
    r.sim.setScenario('customer_cancels');
    await expect(r.session.readCard(read('R2'))).rejects.toMatchObject({ deviceCode: 'cancelled' });
    r.sim.setScenario('busy');
    await expect(r.session.readCard(read('R3'))).rejects.toMatchObject({ deviceCode: 'busy' });
  });

  it('times out when no card comes', async () => {
    const r = await rig({ scenario: 'timeout', cardTimeoutMs: 100 });
    await expect(r.session.readCard(read('T1'))).rejects.toMatchObject({ deviceCode: 'timeout' });
  });
});

describe('device session on a faulty line', () => {
  it('completes a payment through garbage and corrupted frames (NAK and resend)', async () => {
    const r = await rig({ scenario: 'garbage' });
    const card = await r.session.readCard(read('G1'));
    expect(card.entryMode).toBe('chip');
    await r.session.showResult('G1.r', 'G1', { approved: true, message: 'APPROVED', signature: false, timeoutS: 10 });
    expect(r.session.linkStats.corrupt).toBeGreaterThan(0);
    expect(r.sim.linkStats.resent).toBeGreaterThan(0);
  });

  it('asks for an answer again when it was lost on the line, without a second card read', async () => {
    const r = await rig();
    // Every frame from the device is lost while it answers: the answer never arrives.
    let deaf = false;
    r.cable.tap = (bytes, from) => (deaf && from === 'device' ? [] : [bytes]);
    const pending = later(r.session.readCard(read('L1', { timeoutS: 1 })));
    await until(() => r.simEvents.some((e) => e.includes('customer inserted')), 'the card to be inserted');
    deaf = true;
    await until(() => r.sim.currentScreen.includes('AUTHORIZING'), 'the device to have answered');
    await new Promise((res) => setTimeout(res, 400)); // its resends go nowhere
    deaf = false;
    const card = await pending;
    expect(card.pan).toMatch(/0006$/);
    expect(r.simEvents.filter((e) => e.includes('customer inserted'))).toHaveLength(1);
  });

  it('recalls a payment cut off by a short unplug, and the payment goes on', async () => {
    const r = await rig({ pace: { presentMs: 400 } });
    const pending = later(r.session.readCard(read('U1')));
    await until(() => r.sim.currentScreen.includes('INSERT, TAP OR SWIPE'), 'the card prompt');
    r.cable.unplug();
    await until(() => !r.online(), 'offline');
    r.cable.plug();
    const card = await pending;
    expect(card.entryMode).toBe('chip');
    expect(r.log).toContain('online');
  });

  it('fails a payment with offline when the device does not come back in time', async () => {
    const r = await rig({ scenario: 'timeout' });
    const pending = later(r.session.readCard(read('U2')));
    await until(() => r.sim.currentScreen.includes('INSERT, TAP OR SWIPE'), 'the card prompt');
    r.cable.unplug();
    await expect(pending).rejects.toMatchObject({ deviceCode: 'offline' });
    r.cable.plug();
    await until(() => r.online(), 'back online');
  });

  it('goes offline in a NAK storm, fails the waiting payment, and comes back when it ends', async () => {
    const r = await rig({ scenario: 'timeout' });
    const pending = later(r.session.readCard(read('N1')));
    await until(() => r.sim.currentScreen.includes('INSERT, TAP OR SWIPE'), 'the card prompt');
    r.sim.setScenario('nak_storm');
    await r.session.status().catch(() => undefined);
    await until(() => !r.online(), 'offline');
    await expect(pending).rejects.toMatchObject({ deviceCode: 'offline' });
    expect(r.session.linkStats.naksReceived).toBeGreaterThan(0);
    r.sim.setScenario('approve');
    await until(() => r.online(), 'back online');
  });

  it('notices a device restart: the payment fails with reset', async () => {
    const r = await rig({ scenario: 'reset' });
    await expect(r.session.readCard(read('X1'))).rejects.toMatchObject({ deviceCode: 'reset' });
    expect(r.log).toContain('reset');
    await expect(r.session.status()).resolves.toMatchObject({ busy: false });
  });

  it('holds a request made while a device that just went quiet is away, and sends it once it is back', async () => {
    const r = await rig();
    r.sim.goSilent(1000);
    await until(() => !r.online(), 'offline');
    // Made during the outage (within recoverMs of it): it waits rather than failing at once.
    const status = r.session.status();
    await expect(status).resolves.toMatchObject({ busy: false });
    expect(r.online()).toBe(true);
  });

  it('fails a request at once when the device has been away longer than it waits for one', async () => {
    const r = await rig({}, { recoverMs: 200 });
    r.cable.unplug();
    await until(() => !r.online(), 'offline');
    await new Promise((done) => setTimeout(done, 400));
    await expect(r.session.status()).rejects.toMatchObject({ deviceCode: 'offline', message: 'the device is not connected' });
    r.cable.plug();
    await until(() => r.online(), 'back online');
  });

  it('notices a device that went silent (heartbeat) and one that comes back', async () => {
    const r = await rig();
    r.sim.goSilent(1200);
    await until(() => !r.online(), 'offline');
    expect(r.log.some((l) => l.startsWith('offline: the device is not answering'))).toBe(true);
    await until(() => r.online(), 'back online');
  });
});
