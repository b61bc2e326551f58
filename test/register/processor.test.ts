import { afterEach, describe, expect, it } from 'vitest';
import { openRegister, type RegisterRig } from '../helpers/register';
import { fail } from '../../src/engine/errors';
import { processorBadge, syncBadge } from '../../src/renderer/src/screens/pos/status-badges';

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
