import { afterEach, describe, expect, it } from 'vitest';
import { Link } from '../../src/terminal/link';
import { encodeMessage, parseDeviceMessage, type DeviceMessage, type HostMessage } from '../../src/terminal/protocol';
import { SimulatedDevice, type SimulatorOptions } from '../../src/terminal/simulator/device';
import { MemoryCable } from './memory-transport';

/**
 * The device's side of the protocol, checked message by message from a bare host link: what
 * docs/terminal-protocol.md promises a host, whoever implements the device.
 */
interface Host {
  send(message: HostMessage): Promise<void>;
  messages: DeviceMessage[];
  next(match: (m: DeviceMessage) => boolean, what: string): Promise<DeviceMessage>;
  sim: SimulatedDevice;
  close(): Promise<void>;
}

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});

async function host(options: SimulatorOptions = {}): Promise<Host> {
  const cable = new MemoryCable();
  const sim = new SimulatedDevice(cable.device, options);
  sim.start();
  const messages: DeviceMessage[] = [];
  const link = new Link({ write: (b) => cable.host.write(b), onMessage: (p) => messages.push(parseDeviceMessage(p)!) });
  await new Promise<void>((resolve) =>
    cable.host.start({
      open: () => resolve(),
      data: (chunk) => link.receive(chunk),
      closed: () => undefined,
      error: () => undefined,
    }),
  );
  const h: Host = {
    send: (m) => link.send(encodeMessage(m)),
    messages,
    async next(match, what) {
      const end = Date.now() + 10_000;
      for (;;) {
        const i = messages.findIndex(match);
        if (i >= 0) return messages.splice(i, 1)[0]!;
        if (Date.now() > end) throw new Error(`no ${what}; got ${JSON.stringify(messages)}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    sim,
    async close() {
      link.close();
      await sim.close();
      await cable.host.close();
    },
  };
  hosts.push(h);
  return h;
}

const ridOf = (m: DeviceMessage) => ('rid' in m ? m.rid : undefined);

const read = (rid: string): HostMessage => ({ t: 'read', rid, kind: 'sale', amount_cents: 4200, currency: 'USD', manual_entry: false, tip: false, timeout_s: 30 });

describe('the device side of the lane protocol', () => {
  it('says hello with its boot id and identity when its port opens, and answers status compactly unless asked for identity', async () => {
    const h = await host({ firmware: 'FW-9' });
    const hello = await h.next((m) => m.t === 'hello', 'hello');
    expect(hello).toMatchObject({ t: 'hello', firmware: 'FW-9', model: 'Laneway Sim P400', serial: 'SIM-0001' });
    await h.send({ t: 'status', rid: 's1' });
    const compact = await h.next((m) => m.t === 'status', 'status');
    expect(compact).toEqual({ t: 'status', rid: 's1', boot: (hello as { boot: string }).boot, card_inserted: false, busy: false });
    await h.send({ t: 'status', rid: 's2', info: true });
    expect(await h.next((m) => m.t === 'status', 'status')).toMatchObject({ firmware: 'FW-9', serial: 'SIM-0001' });
  });

  it('runs a request id once: a repeat while running is ignored, a repeat after the answer gets the same answer', async () => {
    const h = await host({ pace: { presentMs: 150 } });
    await h.send(read('R1'));
    await h.send(read('R1'));
    const card = await h.next((m) => m.t === 'card', 'the card');
    await h.send(read('R1'));
    const again = await h.next((m) => m.t === 'card', 'the card again');
    expect(again).toEqual(card);
    expect(h.sim.screens.filter((s) => s.includes('INSERT, TAP OR SWIPE'))).toHaveLength(1);
  });

  it('answers recall with the answer, pending while running, unknown when it never saw the id', async () => {
    const h = await host({ scenario: 'timeout' });
    await h.send(read('R2'));
    await h.next((m) => m.t === 'progress' && m.stage === 'insert_card', 'the card prompt');
    await h.send({ t: 'recall', rid: 'R2' });
    expect(await h.next((m) => ridOf(m) === 'R2' && m.t === 'pending', 'pending')).toEqual({ t: 'pending', rid: 'R2' });
    await h.send({ t: 'recall', rid: 'NEVER' });
    expect(await h.next((m) => m.t === 'unknown', 'unknown')).toEqual({ t: 'unknown', rid: 'NEVER' });
    await h.send({ t: 'cancel', rid: 'c1' });
    expect(await h.next((m) => m.t === 'cancelled', 'cancelled')).toEqual({ t: 'cancelled', rid: 'c1', active: true });
    expect(await h.next((m) => ridOf(m) === 'R2' && m.t === 'failed', 'the read to fail')).toMatchObject({ reason: 'cancelled' });
    await h.send({ t: 'recall', rid: 'R2' });
    expect(await h.next((m) => ridOf(m) === 'R2', 'the remembered answer')).toMatchObject({ t: 'failed', reason: 'cancelled' });
  });

  it('refuses a second payment or a setup while one runs, but answers status and cancel', async () => {
    const h = await host({ scenario: 'timeout' });
    await h.send(read('R3'));
    await h.next((m) => m.t === 'progress', 'the card prompt');
    await h.send(read('R4'));
    expect(await h.next((m) => ridOf(m) === 'R4', 'R4')).toMatchObject({ t: 'failed', reason: 'busy' });
    await h.send({ t: 'setup', rid: 'u1', lane_name: 'L', merchant_name: 'M', currency: 'USD', tip: { enabled: false, percentages: [] }, signature: { capture: 'off', min_amount_cents: 0 } });
    expect(await h.next((m) => ridOf(m) === 'u1', 'u1')).toMatchObject({ t: 'failed', reason: 'busy' });
    await h.send({ t: 'status', rid: 's3' });
    expect(await h.next((m) => ridOf(m) === 's3', 's3')).toMatchObject({ busy: true });
  });

  it('shows a result, asks for a signature only when told, and returns it in done', async () => {
    const h = await host({ scenario: 'signature' });
    await h.send(read('R5'));
    const card = await h.next((m) => m.t === 'card', 'the card');
    expect(card).toMatchObject({ cvm: 'signature', entry_mode: 'chip', emv: { aid: 'A0000000031010' } });
    await h.send({ t: 'result', rid: 'R5.r', of: 'R5', approved: true, message: 'APPROVED', auth_code: 'X1', signature: true, timeout_s: 10 });
    const done = await h.next((m) => m.t === 'done', 'done');
    expect(done).toMatchObject({ rid: 'R5.r', signature: { media_type: 'image/svg+xml' } });
    await h.send({ t: 'result', rid: 'R5.r', of: 'R5', approved: true, message: 'APPROVED', auth_code: 'X1', signature: true, timeout_s: 10 });
    expect(await h.next((m) => m.t === 'done', 'the same done')).toEqual(done);
    expect(h.sim.screens.filter((s) => s.includes('PLEASE SIGN BELOW'))).toHaveLength(1);
  });

  it('keeps an answer it could not deliver and sends it when it next hears from the host', async () => {
    const cableHost = await host({ link: { ackTimeoutMs: 50 } });
    // The device goes deaf and mute while it answers: its link gives up on the card answer.
    const sim = cableHost.sim;
    await cableHost.send(read('R6'));
    await cableHost.next((m) => m.t === 'progress' && m.stage === 'insert_card', 'the prompt');
    sim.goSilent(700);
    await new Promise((r) => setTimeout(r, 1500));
    expect(cableHost.messages.some((m) => m.t === 'card')).toBe(false);
    await cableHost.send({ t: 'status', rid: 's9' });
    expect(await cableHost.next((m) => m.t === 'card', 'the redelivered card')).toMatchObject({ rid: 'R6' });
  });
});
