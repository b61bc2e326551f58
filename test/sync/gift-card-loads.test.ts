import { beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, useHarness, type ApiClient } from '../helpers/harness';

/**
 * The hub's side of a lane loading a gift card (POST /api/sync/gift-cards, op `load`, over real
 * HTTP with a paired lane's credential): a load is applied once per lane and reference, as a
 * sale, void or refund is, so a lane's retry after a lost answer loads nothing more; another load
 * under a reference already used is refused; `find` finds a load by its reference. A load with no
 * reference (a lane of an earlier version) is applied as it comes.
 * (test/sync/gift-cards-shop.test.ts loads through a real lane whose first answer is lost.)
 */
const h = useHarness({ api: true });
let api: ApiClient;
const lanes: Record<string, string> = {};

interface LoadAnswer {
  load?: { token: string; balance: number; activated: boolean };
  error?: { kind: string; code: string; message: string };
  found?: null;
}

const CARDS = { a: '6277000020000001', b: '6277000020000002', c: '6277000020000003', d: '6277000020000004', e: '6277000020000005', f: '6277000020000006', g: '6277000020000007' };

const lane = async (laneid: string, body: Record<string, unknown>): Promise<LoadAnswer> => {
  const res = await api.post<LoadAnswer>('/api/sync/gift-cards', body, lanes[laneid]);
  expect(res.status, res.text).toBe(200);
  return res.body;
};
const load = (card: string, amount: number, reference: string | undefined, extra: Record<string, unknown> = {}, laneid = '2') =>
  lane(laneid, { op: 'load', card_number: card, amount_cents: amount, activated: true, ...(reference ? { reference } : {}), ...extra });
const balance = async (card: string, pin?: string) => (await api.post<{ balance: number }>('/api/gateway/v1/gift_card/read', { card_number: card, ...(pin ? { pin } : {}) })).body.balance;

beforeAll(async () => {
  api = h.api;
  for (const laneid of ['2', '3']) {
    const { code } = (await api.post<{ code: string }>('/api/sync/pairing-codes', { laneid })).body;
    const grant = (await api.post<{ token: string; key: string }>('/api/sync/pair', { code }, null)).body;
    lanes[laneid] = basicAuth(grant.token, grant.key);
  }
});

describe("a lane's gift card load on its hub", () => {
  it('loads once when the same load is sent again under its reference, one after another and 20 at once', async () => {
    // Activation and load in one request, sent three times (a lane's call() after lost answers).
    const answers = [await load(CARDS.a, 1000, 'LOAD-X'), await load(CARDS.a, 1000, 'LOAD-X'), await load(CARDS.a, 1000, 'LOAD-X')];
    for (const a of answers) expect(a.load).toMatchObject({ balance: 1000, activated: true, token: answers[0]!.load!.token });
    expect(await balance(CARDS.a)).toBe(1000);
    // find finds it by its reference: named as a load, or with no action (no sale is under it).
    expect(await lane('2', { op: 'find', action: 'load', reference: 'LOAD-X' })).toEqual({ load: answers[0]!.load });
    expect(await lane('2', { op: 'find', reference: 'LOAD-X' })).toEqual({ load: answers[0]!.load });
    expect(await lane('2', { op: 'find', action: 'load', reference: 'LOAD-NONE' })).toEqual({ found: null });

    // 20 at once: a new card activated and loaded, and the card above loaded again.
    const newCard = await Promise.all(Array.from({ length: 20 }, () => load(CARDS.b, 1000, 'LOAD-Y')));
    expect(new Set(newCard.map((a) => JSON.stringify(a)))).toEqual(new Set([JSON.stringify({ load: { success: true, token: newCard[0]!.load!.token, balance: 1000, activated: true } })]));
    expect(await balance(CARDS.b)).toBe(1000);
    const again = await Promise.all(Array.from({ length: 20 }, () => load(CARDS.a, 500, 'LOAD-Z')));
    for (const a of again) expect(a.load).toMatchObject({ balance: 1500 });
    expect(await balance(CARDS.a)).toBe(1500);

    // The next load draws its own reference: it is a load of its own.
    expect((await load(CARDS.a, 500, 'LOAD-Z2')).load!.balance).toBe(2000);
    expect(await balance(CARDS.a)).toBe(2000);
  });

  it('refuses another load under a reference already used, and a refused load does not hold it', async () => {
    await load(CARDS.c, 1000, 'LOAD-R');
    for (const other of [load(CARDS.c, 2000, 'LOAD-R'), load(CARDS.d, 1000, 'LOAD-R'), load(CARDS.c, 1000, 'LOAD-R', { activated: false })]) {
      expect((await other).error).toMatchObject({ code: 'duplicate_unique_reference' });
    }
    expect(await balance(CARDS.c)).toBe(1000);
    expect(await balance(CARDS.d)).toBe(0);
    // Another lane's reference of the same text is its own.
    expect((await load(CARDS.c, 300, 'LOAD-R', {}, '3')).load!.balance).toBe(1300);
    expect(await lane('3', { op: 'find', action: 'load', reference: 'LOAD-R' })).toMatchObject({ load: { balance: 1300 } });
    // A load refused by the card's rules (a wrong PIN) writes nothing: its reference is free.
    await load(CARDS.e, 1000, 'LOAD-E0', { pin: '2468' });
    expect((await load(CARDS.e, 500, 'LOAD-E1', { pin: '1111' })).error).toMatchObject({ code: 'incorrect_pin' });
    expect((await load(CARDS.e, 500, 'LOAD-E1', { pin: '2468' })).load!.balance).toBe(1500);
  });

  it('loads a card with a PIN once, new or known, when the load is sent again', async () => {
    for (let i = 0; i < 3; i++) expect((await load(CARDS.f, 1000, 'LOAD-P1', { pin: '1357' })).load).toMatchObject({ balance: 1000, activated: true });
    expect(await balance(CARDS.f, '1357')).toBe(1000);
    for (let i = 0; i < 3; i++) expect((await load(CARDS.f, 2500, 'LOAD-P2', { pin: '1357' })).load!.balance).toBe(3500);
    expect(await balance(CARDS.f, '1357')).toBe(3500);
  });

  it('applies a load sent with no reference (a lane of an earlier version) each time, as before', async () => {
    expect((await load(CARDS.g, 700, undefined)).load!.balance).toBe(700);
    expect((await load(CARDS.g, 700, undefined)).load!.balance).toBe(1400);
    expect(await balance(CARDS.g)).toBe(1400);
  });
});
