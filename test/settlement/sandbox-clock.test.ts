import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ACH, card, op, startGateway, type Harness } from '../helpers/gateway';
import type { SandboxClockState } from '../../src/shared/schemas/sandbox-clock';
import { cutoffsBetween } from '../../src/engine/sandbox-clock';

let h: Harness;
beforeEach(async () => {
  h = await startGateway();
});
afterEach(async () => {
  await h.close();
});

type Err = { code: string };
const view = (token: string) => h.api.get<{ state: string; settlement: { status: string }; authorization: { status: string } }>(`/api/exports/transaction/${token}`);

describe('the sandbox clock', () => {
  it('moves forward through every cut-off, running its work at that instant, and keeps its offset across a restart', async () => {
    const start = await h.api.get<SandboxClockState>('/api/sandbox/v1/clock');
    expect(start.body).toMatchObject({ now: '2026-03-02T15:00:00.000Z', moved: false, offset_seconds: 0, processing_cutoff: '23:00' });
    expect((await h.api.get<{ clock_offset_seconds: number }>('/api/status')).body.clock_offset_seconds).toBe(0);

    const sale = await op(h.api, 'sale', { amount_cents: 2500, credit_card: card() });
    const returned = await op(h.api, 'sale', { amount_cents: 7000, bank_account: { ...ACH, account_number: '0000000024' } });
    const auth = await op(h.api, 'auth', { amount_cents: 900, fund_token: sale.body.credit_card });

    const moved = await h.api.post<SandboxClockState>('/api/sandbox/v1/clock/advance', { by: 'P4D' });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ now: '2026-03-06T15:00:00.000Z', moved: true, offset_seconds: 4 * 86400, cutoffs_crossed: 4 });
    // The card batch closed at the first cut-off (not at the end of the move); the ACH return
    // came three processing days later, as it would have in real time.
    const batches = await h.t.engine.gateway.settlement.batchesSince(0, 10);
    expect(batches.find((b) => b.data.payment_method_group === 'card')?.data).toMatchObject({ processing_date: '2026-03-02', closed_at: '2026-03-02T23:00:00.000Z', sales_cents: 2500 });
    expect((await view(returned.body.transaction)).body.state).toBe('completed_but_nsfed');
    expect((await h.t.engine.gateway.settlement.exceptionsSince(0, 10)).map((e) => e.data.exception_date)).toEqual(['2026-03-05']);
    expect((await view(auth.body.transaction)).body.authorization.status).toBe('open');
    // A sale now belongs to the moved day.
    const later = await op(h.api, 'sale', { amount_cents: 100, fund_token: sale.body.credit_card });
    expect(later.body.transactions[0]!.processing_date).toBe('2026-03-06');
    expect((await h.api.get<{ now: string; clock_offset_seconds: number }>('/api/status')).body).toMatchObject({ now: '2026-03-06T15:00:00.000Z', clock_offset_seconds: 4 * 86400 });

    await h.restart();
    expect((await h.api.get<SandboxClockState>('/api/sandbox/v1/clock')).body).toMatchObject({ now: '2026-03-06T15:00:00.000Z', moved: true });

    // To a date: midnight in the account's zone; the authorization's 7-day hold ends on the way.
    const to = await h.api.post<SandboxClockState>('/api/sandbox/v1/clock/advance', { to: '2026-03-10' });
    expect(to.body).toMatchObject({ now: '2026-03-10T00:00:00.000Z', cutoffs_crossed: 4 });
    expect((await view(auth.body.transaction)).body.authorization.status).toBe('released');
  });

  it('refunds a bank sale only once its bank can no longer return it: a refund and then a full return would pay the payer twice', async () => {
    const returned = await op(h.api, 'sale', { amount_cents: 5000, bank_account: { ...ACH, account_number: '0000000024' } });
    const kept = await op(h.api, 'sale', { amount_cents: 4000, bank_account: ACH });
    await h.api.post('/api/sandbox/v1/clock/advance', { by: 'P2D' });
    // Settled (completed), yet still returnable: no refund of either.
    expect((await view(returned.body.transaction)).body.state).toBe('completed');
    for (const t of [returned, kept]) {
      const early = await h.api.post<{ success: boolean; errors: string[] }>('/api/gateway/v1/orders/refund', { transaction: t.body.transaction, amount_cents: 1000 });
      expect([early.status, early.body.errors]).toEqual([500, ['transaction_not_final']]);
    }
    await h.api.post('/api/sandbox/v1/clock/advance', { by: 'P2D' });
    // The return took the whole 5000 back; nothing was refunded on top of it.
    expect((await view(returned.body.transaction)).body.state).toBe('completed_but_nsfed');
    const exceptions = await h.t.engine.gateway.settlement.exceptionsSince(0, 10);
    expect(exceptions.map((e) => e.data.exception_amount_in_cents)).toEqual([5000]);
    const batches = await h.t.engine.gateway.settlement.batchesSince(0, 10);
    expect(batches.reduce((sum, b) => sum + b.data.refunds_cents, 0)).toBe(0);
    // Past the window, the sale that stayed paid is refunded as usual.
    const late = await h.api.post<{ success: boolean }>('/api/gateway/v1/orders/refund', { transaction: kept.body.transaction, amount_cents: 1000 });
    expect([late.status, late.body.success]).toEqual([200, true]);
  });

  it('refuses to move back, a malformed move, and both or neither of by and to', async () => {
    await h.api.post('/api/sandbox/v1/clock/advance', { by: 'PT2H' });
    const back = await h.api.post<Err>('/api/sandbox/v1/clock/advance', { to: '2026-03-01' });
    expect([back.status, back.body.code]).toEqual([400, 'clock_cannot_go_back']);
    for (const body of [{}, { by: 'P1D', to: '2026-04-01' }, { by: '3 days' }, { by: 'P' }, { to: 'tomorrow' }, { by: 'P1000D' }]) {
      const res = await h.api.post<Err>('/api/sandbox/v1/clock/advance', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await h.api.get<SandboxClockState>('/api/sandbox/v1/clock')).body.now).toBe('2026-03-02T17:00:00.000Z');
  });

  it('is refused in production (403) and never offsets a production install', async () => {
    await h.api.post('/api/sandbox/v1/clock/advance', { by: 'P1D' });
    await h.t.engine.account.update({ environment: 'production' });
    const get = await h.api.get<Err>('/api/sandbox/v1/clock');
    const post = await h.api.post<Err>('/api/sandbox/v1/clock/advance', { by: 'P1D' });
    expect([get.status, get.body.code, post.status, post.body.code]).toEqual([403, 'sandbox_only', 403, 'sandbox_only']);
    await h.restart();
    expect((await h.api.get<{ now: string; clock_offset_seconds: number }>('/api/status')).body).toMatchObject({ now: '2026-03-02T15:00:00.000Z', clock_offset_seconds: 0 });
  });

  it('keeps credentials on the real time: a move signs nobody out, and a JWT lives no longer', async () => {
    const who = await h.api.get<{ whoami: Record<string, { jwt: string }> }>('/api/whoami?options[jwt_expiry]=1');
    const jwt = Object.values(who.body.whoami)[0]!.jwt;
    await h.api.post('/api/sandbox/v1/clock/advance', { by: 'P40D' });
    expect((await h.api.get('/api/status', `Bearer ${jwt}`)).status).toBe(200);
    // One real day later the JWT has expired, moved clock or not.
    h.t.clock.advanceDays(1);
    expect((await h.api.get('/api/status', `Bearer ${jwt}`)).status).toBe(401);
  });

  it('walks cut-offs across a daylight-saving change in the local zone', () => {
    // 2026-03-08: New York springs forward; 23:00 local is 04:00Z before and 03:00Z after.
    const cuts = cutoffsBetween(Date.parse('2026-03-07T00:00:00Z'), Date.parse('2026-03-10T12:00:00Z'), { timezone: 'America/New_York', processing_cutoff: '23:00' });
    expect(cuts.map((c) => new Date(c).toISOString())).toEqual(['2026-03-07T04:00:00.000Z', '2026-03-08T04:00:00.000Z', '2026-03-09T03:00:00.000Z', '2026-03-10T03:00:00.000Z']);
  });
});
