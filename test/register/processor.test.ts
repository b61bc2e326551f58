import { afterEach, describe, expect, it } from 'vitest';
import { openRegister, type RegisterRig } from '../helpers/register';
import { fail } from '../../src/engine/errors';
import { processorBadge, syncBadge } from '../../src/renderer/src/screens/pos/status-badges';
import { PROBE_EVERY_MS } from '../../src/engine/register/processor';
import { until } from '../e2e/processes';

let rig: RegisterRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('card payments need the processor', () => {
  it('a card tender the processor could not take is not approved; the register says so and offers the other tenders', async () => {
    rig = await openRegister();
    const api = await rig.startApi();
    const { gateway } = rig.t.engine;
    const transact = gateway.transact.bind(gateway);
    let down = true;
    gateway.transact = (...args) => (down ? Promise.reject(fail.gateway('processor_unavailable', 'connect ETIMEDOUT')) : transact(...args));

    const sale = await rig.sale('4002');
    expect(sale.allowed.processor.reachable).toBe(true);
    const failed = await rig.tender(sale, { type: 'card' });
    expect(failed.tender.status).toBe('failed');
    expect(failed.sale.totals.paid_cents).toBe(0);
    expect(failed.sale.allowed.processor).toMatchObject({ reachable: false, message: expect.stringContaining('cannot be reached') });
    expect(failed.sale.allowed.tenders).toEqual(expect.arrayContaining(['cash', 'cheque', 'gift_card', 'other']));
    const view = await api.get<{ processor: { reachable: boolean; message: string } }>('/api/pos/registers/1');
    expect(view.status).toBe(200);
    expect(view.body.processor.reachable).toBe(false);
    expect(processorBadge(view.body.processor)).toMatchObject({ text: 'Card processor unreachable', tone: 'offline', detail: view.body.processor.message });

    // Back: the next card tender reaches it, and the badge goes.
    down = false;
    const paid = await rig.tender(failed.sale, { type: 'card' });
    expect(paid.tender.status).toBe('approved');
    expect(paid.sale.allowed.processor.reachable).toBe(true);
    expect(processorBadge((await rig.t.engine.register.register('1')).processor)).toBeNull();
  });
});

describe('the register checks the processor before a card is tried', () => {
  it('shows an outage found by the periodic check, announces it, and clears when the processor answers again', async () => {
    rig = await openRegister();
    const api = await rig.startApi();
    const { engine, clock } = rig.t;
    let down = false;
    let checks = 0;
    engine.gateway.probeProcessor = async () => {
      checks += 1;
      if (down) throw fail.gateway('processor_unreachable', 'connect ECONNREFUSED');
    };
    const events: Array<{ type: string; data?: unknown }> = [];
    const stop = engine.core.bus.subscribe((e) => {
      if (e.entity === 'pos_processor') events.push({ type: e.type, data: e.data });
    });

    const sale = await rig.sale('4002');
    expect(sale.allowed.processor.reachable).toBe(true);
    await engine.tick();
    const first = checks;
    expect(first).toBeGreaterThan(0);
    // While it answers, the check runs once a minute of the engine's clock, not on every tick.
    await engine.tick();
    expect(checks).toBe(first);

    // The processor goes away: the next check finds it, before any card is tried.
    down = true;
    clock.advance(PROBE_EVERY_MS);
    await engine.tick();
    const view = await api.get<{ processor: { reachable: boolean; message: string; since: string } }>('/api/pos/registers/1');
    expect(view.body.processor).toMatchObject({ reachable: false, message: expect.stringContaining('cannot be reached'), since: new Date(clock.now()).toISOString() });
    expect(processorBadge(view.body.processor)).toMatchObject({ text: 'Card processor unreachable', tone: 'offline' });
    const reopened = await rig.t.engine.register.sale(sale.id);
    expect(reopened.allowed.processor.reachable).toBe(false);
    expect(reopened.allowed.tenders).toEqual(expect.arrayContaining(['card', 'cash', 'cheque', 'gift_card', 'other']));
    // Nothing was charged by the check: no transaction, the sale unpaid.
    expect(reopened.totals.paid_cents).toBe(0);

    // While it is down, every tick checks again; it comes back and the badge goes.
    await engine.tick();
    expect(checks).toBe(first + 2);
    down = false;
    await engine.tick();
    expect((await engine.register.register('1')).processor.reachable).toBe(true);
    expect(processorBadge((await engine.register.register('1')).processor)).toBeNull();
    await until(async () => events.length >= 2, 'the processor events');
    stop();
    expect(events.map((e) => e.type)).toEqual(['pos_processor.unreachable', 'pos_processor.reachable']);
    expect(events[0]!.data).toMatchObject({ reachable: false, since: expect.any(String) });
    // And a card tender goes through.
    const paid = await rig.tender(reopened, { type: 'card' });
    expect(paid.tender.status).toBe('approved');
  });
});

describe('the register status badge for sync', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  const peer = { peer: 'hub', paused: false, last_success_at: '2026-03-01T11:59:30Z', last_error: null, queued: 0 };
  it('shows last sync, queued changes and the last error of the hub link, and nothing on an install that is not a lane', () => {
    expect(syncBadge([], now)).toBeNull();
    expect(syncBadge([{ ...peer, peer: 'lane:2' }], now)).toBeNull();
    expect(syncBadge([peer], now)).toEqual({ text: 'Synced', tone: 'ok', detail: 'Last sync 30 s ago.' });
    expect(syncBadge([{ ...peer, queued: 12 }], now)).toMatchObject({ text: 'Syncing, 12 queued', tone: 'warn' });
    expect(syncBadge([{ ...peer, queued: 3, last_error: 'fetch failed', last_success_at: '2026-03-01T11:50:00Z' }], now)).toMatchObject({
      text: 'Hub unreachable, 3 queued',
      tone: 'offline',
      detail: expect.stringContaining('fetch failed (last sync 10 min ago)'),
    });
    expect(syncBadge([{ ...peer, paused: true }], now)).toMatchObject({ text: 'Sync paused', tone: 'warn' });
  });
});
