import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DomainEvent } from '../../src/engine/events';
import { laneWithDevice, later, openLaneRig, sale, until, type LaneRig } from './helpers';

let rig: LaneRig;
const events: DomainEvent[] = [];
beforeAll(async () => {
  rig = await openLaneRig();
  rig.engine.core.bus.subscribe((e) => events.push(e));
});
afterAll(async () => {
  await rig?.close();
});

const PAN = '4895281000000006';

describe('card-present payments over a real serial pair', () => {
  it('sale: reads a chip card with PIN, returns the EMV receipt details, shows APPROVED; no card number at rest', async () => {
    const { device } = await laneWithDevice(rig, '1');
    const request = sale('1', 'SALE0001');
    const card = await rig.engine.lanes.readCard(request);
    expect(card).toMatchObject({
      entryMode: 'chip',
      pan: PAN,
      cvm: 'pin',
      brand: 'visa',
      bin: '489528',
      last4: '0006',
      maskedPan: '489528******0006',
      emv: { aid: 'A0000000031010', applicationLabel: 'VISA CREDIT', tvr: '0000000000', tsi: 'E800' },
    });
    expect((await rig.engine.lanes.get('1')).status).toBe('busy');
    const done = await rig.engine.lanes.complete(request, { approved: true, authorizationCode: '0A1B2C', message: 'APPROVED' });
    expect(done).toEqual({});
    expect(device.screens.some((s) => s[0] === 'APPROVED' && s.includes('AUTH 0A1B2C'))).toBe(true);
    const lane = await until(async () => {
      const l = await rig.engine.lanes.get('1');
      return l.status === 'connected' && l.last_payment ? l : undefined;
    }, 'the lane to be idle');
    expect(lane.last_payment).toMatchObject({ request_id: 'SALE0001', kind: 'sale', amount_cents: 4200, approved: true, signature: false });

    // The card number went to the caller in memory only: not in the database, the log or any event.
    await rig.engine.core.mutate(async () => undefined);
    for (const file of readdirSync(rig.dir).filter((f) => f.startsWith('laneway.sqlite'))) {
      expect(readFileSync(join(rig.dir, file)).includes(Buffer.from(PAN)), file).toBe(false);
    }
    rig.engine.logger.flush();
    const logs = readdirSync(join(rig.dir, 'logs')).map((f) => readFileSync(join(rig.dir, 'logs', f), 'utf8')).join('\n');
    expect(logs).not.toContain(PAN);
    expect(JSON.stringify(events)).not.toContain(PAN);
    expect(JSON.stringify(await rig.engine.lanes.list())).not.toContain(PAN);
  });

  it('decline: the declining test card is read, the outcome shows DECLINED, nothing is signed', async () => {
    const { device } = await laneWithDevice(rig, '2', { scenario: 'decline' });
    const request = sale('2', 'SALE0002');
    const card = await rig.engine.lanes.readCard(request);
    expect(card.last4).toBe('4500');
    await expect(rig.engine.lanes.complete(request, { approved: false, message: 'DECLINED' })).resolves.toEqual({});
    expect(device.screens.some((s) => s[0] === 'DECLINED')).toBe(true);
    const lane = await until(async () => ((await rig.engine.lanes.get('2')).last_payment ? rig.engine.lanes.get('2') : undefined), 'last payment');
    expect(lane.last_payment).toMatchObject({ approved: false, signature: false });
  });

  it('signature: a card that asks for one is signed on the device; the image is stored for the payment', async () => {
    const { device } = await laneWithDevice(rig, '3', { card: '341111597242000' });
    const seen: string[] = [];
    const off = rig.engine.lanes.onSignature((s) => seen.push(s.request_id));
    const request = sale('3', 'SALE0003', 1500);
    const card = await rig.engine.lanes.readCard(request);
    expect(card).toMatchObject({ brand: 'american_express', cvm: 'signature', entryMode: 'chip' });
    const done = await rig.engine.lanes.complete(request, { approved: true, authorizationCode: '998877', message: 'APPROVED' });
    expect(done.signature?.mediaType).toBe('image/svg+xml');
    expect(Buffer.from(done.signature!.data, 'base64').toString()).toMatch(/^<svg /);
    expect(device.screens.some((s) => s.includes('PLEASE SIGN BELOW'))).toBe(true);
    const stored = await rig.engine.lanes.signatureFor('SALE0003');
    expect(stored).toMatchObject({ request_id: 'SALE0003', laneid: '3', media_type: 'image/svg+xml', source: 'payment', data: done.signature!.data });
    expect(seen).toEqual(['SALE0003']);
    off();
    expect(events.some((e) => e.type === 'signature.captured' && e.key === 'SALE0003')).toBe(true);
  });

  it('no signature is asked below the lane\'s minimum, or when the lane captures on paper', async () => {
    const { device } = await laneWithDevice(rig, '4', { scenario: 'signature' }, { signature: { capture: 'on_device', min_amount_cents: 5000 } });
    const small = sale('4', 'SALE0004', 1200);
    await rig.engine.lanes.readCard(small);
    await expect(rig.engine.lanes.complete(small, { approved: true, message: 'APPROVED' })).resolves.toEqual({});
    await rig.engine.lanes.update('4', { signature: { capture: 'paper', min_amount_cents: 0 } });
    const paper = sale('4', 'SALE0005', 9900);
    await rig.engine.lanes.readCard(paper);
    await expect(rig.engine.lanes.complete(paper, { approved: true, message: 'APPROVED' })).resolves.toEqual({});
    expect(device.screens.some((s) => s.includes('PLEASE SIGN BELOW'))).toBe(false);
  });

  it('cancel while waiting for the card: the payment stops before the card network', async () => {
    await laneWithDevice(rig, '5', { scenario: 'timeout' });
    const request = sale('5', 'SALE0006');
    const pending = later(rig.engine.lanes.readCard(request));
    await until(async () => (await rig.engine.lanes.get('5')).activity === 'waiting_for_card', 'the card prompt');
    const answer = await rig.engine.lanes.command('5', 'Cancel');
    expect(answer).toMatchObject({ success: true, cancel_result: 'cancelled' });
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
    await until(async () => (await rig.engine.lanes.get('5')).status === 'connected', 'the lane to be free');
  });

  it('cancel after the card was read: the payment is voided instead (complete fails with cancelled)', async () => {
    const { device } = await laneWithDevice(rig, '6');
    const request = sale('6', 'SALE0007');
    await rig.engine.lanes.readCard(request);
    expect(await rig.engine.lanes.command('6', 'Cancel')).toMatchObject({ success: true, cancel_result: 'voiding' });
    await expect(rig.engine.lanes.complete(request, { approved: true, authorizationCode: '111111', message: 'APPROVED' })).rejects.toMatchObject({ code: 'cancelled' });
    expect(device.screens.some((s) => s[0] === 'CANCELLED - VOIDING')).toBe(true);
  });

  it('two payments racing for one lane: one reads the card, the other is told the device is in use', async () => {
    await laneWithDevice(rig, '7', { pace: { presentMs: 300 } });
    const a = later(rig.engine.lanes.readCard(sale('7', 'RACE0001')));
    const b = later(rig.engine.lanes.readCard(sale('7', 'RACE0002')));
    const results = await Promise.allSettled([a, b]);
    const ok = results.filter((r) => r.status === 'fulfilled');
    const busy = results.filter((r) => r.status === 'rejected');
    expect(ok).toHaveLength(1);
    expect(busy).toHaveLength(1);
    expect((busy[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'device_busy' });
    // The exclusive commands are refused too; status is not.
    expect(await rig.engine.lanes.command('7', 'DeviceSetup')).toMatchObject({ success: false, errors: ['device_busy'] });
    expect(await rig.engine.lanes.command('7', 'DeviceStatus')).toMatchObject({ success: true, device: { busy: true } });
    const winner = results[0]!.status === 'fulfilled' ? 'RACE0001' : 'RACE0002';
    await rig.engine.lanes.complete(sale('7', winner), { approved: true, message: 'APPROVED' });
    await expect(rig.engine.lanes.readCard(sale('7', 'RACE0003'))).resolves.toMatchObject({ last4: '0006' });
    await rig.engine.lanes.complete(sale('7', 'RACE0003'), { approved: true, message: 'APPROVED' });
  });

  it('the customer\'s choices: a removed card, cancel on the keypad; a device busy elsewhere; then the same payment again', async () => {
    const { device } = await laneWithDevice(rig, '8', { scenario: 'card_removed' });
    await expect(rig.engine.lanes.readCard(sale('8', 'CUST0001'))).rejects.toMatchObject({ code: 'card_removed' });
    device.setScenario('customer_cancels');
    await expect(rig.engine.lanes.readCard(sale('8', 'CUST0002'))).rejects.toMatchObject({ code: 'cancelled' });
    device.setScenario('busy');
    await expect(rig.engine.lanes.readCard(sale('8', 'CUST0003'))).rejects.toMatchObject({ code: 'device_busy' });
    await until(async () => (await rig.engine.lanes.get('8')).status === 'connected', 'idle');
    // Trying the same payment again is a new attempt on the device, not a replay of its failure.
    device.setScenario('approve');
    await expect(rig.engine.lanes.readCard(sale('8', 'CUST0003'))).resolves.toMatchObject({ last4: '0006' });
    await rig.engine.lanes.complete(sale('8', 'CUST0003'), { approved: true, message: 'APPROVED' });
  });

  it('timeout: no card within the device\'s wait', async () => {
    await laneWithDevice(rig, '9', { scenario: 'timeout', cardTimeoutMs: 300 });
    await expect(rig.engine.lanes.readCard(sale('9', 'TIME0001'))).rejects.toMatchObject({ code: 'timeout' });
    await until(async () => (await rig.engine.lanes.get('9')).status === 'connected', 'the lane to be free');
  });

  it('manual entry is offered only when enabled; a tip chosen on the device comes back with the card', async () => {
    await laneWithDevice(rig, '10', { entry: 'manual', tipPercent: 15 }, { tip: { enabled: true, percentages: [10, 15, 20] } });
    const keyed = await rig.engine.lanes.readCard(sale('10', 'MANU0001', 2000, { enableManualEntry: true }));
    expect(keyed).toMatchObject({ entryMode: 'manual', cvm: 'none', tipCents: 300 });
    expect(keyed.emv).toBeUndefined();
    await rig.engine.lanes.complete(sale('10', 'MANU0001', 2000, { enableManualEntry: true }), { approved: true, message: 'APPROVED' });
    const chip = await rig.engine.lanes.readCard({ ...sale('10', 'MANU0002', 2000), kind: 'refund' });
    expect(chip).toMatchObject({ entryMode: 'chip', tipCents: 0 });
    await rig.engine.lanes.complete({ ...sale('10', 'MANU0002', 2000), kind: 'refund' }, { approved: true, message: 'APPROVED' });
  });

  it('a payment whose outcome never comes is given up: the lane frees itself and complete() fails', async () => {
    await laneWithDevice(rig, '11');
    const request = sale('11', 'ABAN0001');
    await rig.engine.lanes.readCard(request);
    rig.clock.advance(121_000);
    await rig.engine.tick();
    await until(async () => (await rig.engine.lanes.get('11')).status === 'connected', 'the lane to be free');
    await expect(rig.engine.lanes.complete(request, { approved: true, message: 'APPROVED' })).rejects.toMatchObject({ code: 'device_error' });
  });

  it('refuses what it cannot do before touching the device', async () => {
    await expect(rig.engine.lanes.readCard(sale('nope', 'BAD00001'))).rejects.toMatchObject({ code: 'lane_not_found' });
    await expect(rig.engine.lanes.readCard({ ...sale('1', 'BAD00002'), currency: 'cad' })).rejects.toMatchObject({ code: 'currency_mismatch' });
    await expect(rig.engine.lanes.readCard(sale('1', 'BAD00003', 0))).rejects.toMatchObject({ code: 'invalid_amount' });
    await expect(rig.engine.lanes.complete(sale('1', 'NEVERREAD'), { approved: true, message: 'APPROVED' })).rejects.toMatchObject({ code: 'device_error' });
    await rig.engine.account.update({ capabilities: { card_present_emv: false } });
    await expect(rig.engine.lanes.readCard(sale('1', 'BAD00004'))).rejects.toMatchObject({ code: 'capability_disabled' });
    await rig.engine.account.update({ capabilities: { card_present_emv: true } });
  });
});
