import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { op, startGateway, type GatewayError, type Harness } from '../helpers/gateway';
import type { GiftCardView } from '../../src/shared/schemas/wallets';

const NUMBER = '6006491234567890';
const PIN = '2468';
const GC = { card_number: NUMBER, pin: PIN };

describe('gift card PIN attempts', () => {
  let h: Harness;
  let token: string;
  beforeEach(async () => {
    h = await startGateway();
    const loaded = await h.api.post<{ token: string }>('/api/gateway/v1/gift_card', { ...GC, activated: 'true', load_amount_cents: 10_000 });
    token = loaded.body.token;
  });
  afterEach(async () => {
    await h.close();
  });
  const view = async () => (await h.api.get<GiftCardView>(`/api/gateway/v1/gift_card/${token}`)).body;
  const guess = (pin: string) => op(h.api, 'sale', { amount_cents: 100, gift_card: { card_number: NUMBER, pin } });

  it('a burst of wrong PINs (issue 13: 1,000 in 2.8 s) is stopped after three; the right PIN then waits too', async () => {
    // Twenty at once: every attempt is counted before its PIN is checked, so parallel guesses do not slip past.
    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => guess(String(1000 + i))));
    expect(burst.every((r) => r.body.success === false)).toBe(true);
    for (let i = 0; i < 100; i++) expect((await guess(String(2000 + i))).body).toMatchObject({ success: false });
    const right = await guess(PIN);
    expect(right.body).toMatchObject({ success: false, response_code: 208 });
    const v = await view();
    expect(v.pin).toMatchObject({ set: true, failures: 3, locked: false });
    expect(Date.parse(v.pin.paused_until!)).toBe(h.t.clock.now() + 30_000);
    // A balance read is held back the same way, not answered.
    const read = await h.api.post<GatewayError>('/api/gateway/v1/gift_card/read', GC);
    expect(read.body.errors).toEqual(['pin_tries_exceeded']);

    // After the pause the right PIN works and clears the count.
    h.t.clock.advance(30_001);
    expect((await guess(PIN)).body).toMatchObject({ success: true });
    expect((await view()).pin).toMatchObject({ failures: 0, paused_until: null, locked: false });
  });

  it('pauses grow after each further wrong PIN, the tenth locks the card until the back office unlocks it', async () => {
    const pauses: number[] = [];
    for (let i = 1; i <= 10; i++) {
      expect((await guess('0000')).body).toMatchObject({ success: false, response_code: 207 });
      const v = await view();
      expect(v.pin.failures).toBe(i);
      if (v.pin.paused_until) {
        pauses.push(Date.parse(v.pin.paused_until) - h.t.clock.now());
        h.t.clock.set(Date.parse(v.pin.paused_until) + 1);
      }
    }
    expect(pauses.slice(0, 4)).toEqual([30_000, 60_000, 120_000, 240_000]);
    const locked = await view();
    expect(locked.pin.locked).toBe(true);
    h.t.clock.advanceDays(3);
    expect((await guess(PIN)).body).toMatchObject({ success: false, response_code: 208 });
    // Balance loads (and activations) that send a PIN are held back too.
    const load = await h.api.post<GatewayError>('/api/gateway/v1/gift_card', { ...GC, load_amount_cents: 100 });
    expect(load.body.errors).toEqual(['pin_tries_exceeded']);

    const unlocked = await h.api.post<GiftCardView>(`/api/gateway/v1/gift_card/${token}/unlock_pin`, {});
    expect(unlocked.status).toBe(200);
    expect(unlocked.body.pin).toEqual({ set: true, failures: 0, paused_until: null, locked: false });
    expect((await guess(PIN)).body).toMatchObject({ success: true });
    expect((await h.api.get(`/api/gateway/v1/gift_card/NOSUCHCARD`)).status).toBe(404);
  });

  it('the card number without the PIN neither loads the card nor answers its token (which pays with no PIN)', async () => {
    for (const body of [{ card_number: NUMBER }, { card_number: NUMBER, load_amount_cents: 1 }, { card_number: NUMBER, activated: 'false' }]) {
      const res = await h.api.post<GatewayError & { token?: string }>('/api/gateway/v1/gift_card', body);
      expect(res.status).toBe(500);
      expect(res.body.errors).toEqual(['incorrect_pin']);
      expect(res.body.token).toBeUndefined();
    }
    expect(await view()).toMatchObject({ balance: 10_000, activated: true });
    // With its PIN, a load goes through as before.
    const topUp = await h.api.post<{ token: string; balance: number }>('/api/gateway/v1/gift_card', { ...GC, load_amount_cents: 500 });
    expect(topUp.body).toMatchObject({ token, balance: 10_500 });
  });

  it('the right PIN sent from several lanes at once is never called a wrong one: a check under way answers 209, try again', async () => {
    const sales = await Promise.all(Array.from({ length: 8 }, () => guess(PIN)));
    const codes = sales.map((r) => r.body.response_code);
    // The first attempts pass; those that met a card closed only by checks under way are told so, not "too many wrong PINs".
    expect(codes).toContain(100);
    expect(codes.every((c) => c === 100 || c === 209)).toBe(true);
    const busy = sales.find((r) => r.body.response_code === 209);
    if (busy) expect(busy.body.transactions?.[0]).toMatchObject({ state: 'declined', gateway_error_code: 'pin_check_in_progress' });
    const paid = codes.filter((c) => c === 100).length;
    const v = await view();
    expect(v.balance).toBe(10_000 - 100 * paid);
    // Nothing is left counted against the card, so the next sale goes through at once.
    expect(v.pin).toMatchObject({ failures: 0, paused_until: null, locked: false });
    expect((await guess(PIN)).body).toMatchObject({ success: true });

    // Wrong PINs sent at once are still stopped after three, and known as wrong once checked.
    const wrong = await Promise.all(Array.from({ length: 8 }, (_, i) => guess(String(3000 + i))));
    expect(wrong.every((r) => r.body.success === false)).toBe(true);
    expect((await guess(PIN)).body).toMatchObject({ success: false, response_code: 208 });
    expect((await view()).pin.failures).toBe(3);
  });

  it('the count is kept across a restart, and paying by token (no PIN) is not affected', async () => {
    for (let i = 0; i < 3; i++) await guess('9999');
    await h.restart();
    expect((await view()).pin.failures).toBe(3);
    expect((await guess(PIN)).body).toMatchObject({ response_code: 208 });
    expect((await op(h.api, 'sale', { amount_cents: 100, gift_card: token })).body).toMatchObject({ success: true });
  });
});
