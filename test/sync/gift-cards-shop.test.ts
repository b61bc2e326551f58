import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/tmp';
import { until } from '../e2e/processes';
import { startInstall, startProxy, type Install, type Proxy } from './rig';

/**
 * One gift card program per shop: a hub and two lanes as `serve` processes, each lane behind a TCP
 * proxy. Cards are sold on the hub and spent on both lanes, the hub holding the one balance;
 * two lanes spending a card's last balance at once never both get it; a tender whose answer the
 * proxy loses debits once, and a load whose answer it loses loads once; a lane that cannot reach
 * its hub loads nothing.
 */
const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

interface Tendered {
  sale: { id: string; status: string };
  tender: { status: string; amount_cents: number; label: string; gift_card_last4: string | null };
  message: string;
  gift_card_balance_cents?: number | null;
}

const CARDS = { a: '6277000011112222', b: '6277000033335555', c: '6277000044446666', d: '6277000055557777', e: '6277000066668888', f: '6277000077779999', g: '6277000088881111', h: '6277000099992222', i: '6277000012123434' };

/** The status and body of a call, whatever the status. */
async function call(install: Install, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  try {
    return { status: 200, body: await install.api<Record<string, unknown>>(method, path, body) };
  } catch (err) {
    const m = /: (\d{3}) (.*)$/s.exec((err as Error).message);
    if (!m) throw err;
    return { status: Number(m[1]), body: JSON.parse(m[2]!) as Record<string, unknown> };
  }
}

/** Every file of a data folder, read as bytes (latin1 so any byte sequence is searchable). */
function folderText(dir: string): string {
  let out = '';
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    out += statSync(p).isDirectory() ? folderText(p) : readFileSync(p).toString('latin1');
  }
  return out;
}

describe('gift cards across a shop', () => {
  const dirs = { hub: tempDir(), a: tempDir(), b: tempDir() };
  cleanups.push(dirs.hub.cleanup, dirs.a.cleanup, dirs.b.cleanup);
  let hub: Install;
  const lanes: Install[] = [];
  const proxies: Proxy[] = [];
  const shifts: string[] = [];
  const laneIds = ['2', '3'];

  const balance = async (install: Install, number: string) => (await install.api<{ balance: number; token?: string }>('POST', '/api/gateway/v1/gift_card/read', { card_number: number })).balance;
  const open = async (i: number, quantity: number) => lanes[i]!.api<{ id: string }>('POST', '/api/pos/sales', { shift: shifts[i], line: { product_code: 'GIFT10', quantity } });
  const payGift = (i: number, saleId: string, number: string, amount?: number) =>
    call(lanes[i]!, 'POST', `/api/pos/sales/${saleId}/tenders`, { shift: shifts[i], type: 'gift_card', gift_card: { card_number: number }, ...(amount ? { amount_cents: amount } : {}) });

  it('pairs two lanes with a hub that sells gift cards', async () => {
    hub = await startInstall('hub', dirs.hub.dir);
    cleanups.push(() => hub.proc.stop());
    await hub.api('POST', '/api/pos/products', { code: 'GIFT10', description: 'Ten', price_cents: 1000, tax_rate: 0, category: 'Shop' });
    await hub.api('POST', '/api/pos/cashiers', { name: 'Mina', code: '482913', supervisor: true });
    for (const i of [0, 1]) {
      proxies[i] = await startProxy(hub.url);
      cleanups.push(() => proxies[i]!.close());
      const { code } = await hub.api<{ code: string }>('POST', '/api/sync/pairing-codes', { laneid: laneIds[i] });
      lanes[i] = await startInstall(i === 0 ? 'lanea' : 'laneb', i === 0 ? dirs.a.dir : dirs.b.dir, ['--hub', proxies[i]!.url, '--pairing-code', code, '--sync-poll-ms', '200']);
      cleanups.push(() => lanes[i]!.proc.stop());
      await until(async () => (await lanes[i]!.api<{ products: unknown[] }>('GET', '/api/pos/products?q=GIFT10')).products.length > 0, `the catalog on lane ${i}`);
      await lanes[i]!.api('POST', '/api/lanes', { laneid: laneIds[i], port_path: `/dev/ttyLANEWAYNONE${i}`, name: `Lane ${laneIds[i]}` });
      shifts[i] = (await lanes[i]!.api<{ id: string }>('POST', '/api/pos/shifts', { laneid: laneIds[i], code: '482913' })).id;
    }
  }, 300_000);

  it('spends a card sold on the hub on both lanes, the hub holding the one balance', async () => {
    await hub.api('POST', '/api/gateway/v1/gift_card', { card_number: CARDS.a, activated: 'true', load_amount_cents: 5000 });
    const one = await open(0, 2);
    const paid1 = await payGift(0, one.id, CARDS.a);
    expect(paid1.status).toBe(200);
    expect((paid1.body as unknown as Tendered).tender).toMatchObject({ status: 'approved', amount_cents: 2000, label: 'Gift card •••• 2222', gift_card_last4: '2222' });
    expect((paid1.body as unknown as Tendered).sale.status).toBe('paid');
    // What the hub's debit left on the card comes back with the lane's answer: no other call.
    expect(paid1.body).toMatchObject({ gift_card_balance_cents: 3000, message: 'Gift card •••• 2222: approved. Left on the card: $30.00.' });
    const two = await open(1, 1);
    const paid2 = await payGift(1, two.id, CARDS.a);
    expect((paid2.body as unknown as Tendered).tender).toMatchObject({ status: 'approved', amount_cents: 1000 });
    expect(paid2.body.gift_card_balance_cents).toBe(2000);
    // One balance: the hub's, read the same from either lane.
    expect(await balance(hub, CARDS.a)).toBe(2000);
    expect(await balance(lanes[0]!, CARDS.a)).toBe(2000);
    expect(await balance(lanes[1]!, CARDS.a)).toBe(2000);
    // The back office's view on the hub shows it too.
    const token = (await hub.api<{ token: string }>('POST', '/api/gateway/v1/gift_card/read', { card_number: CARDS.a })).token;
    expect((await hub.api<{ balance: number }>('GET', `/api/gateway/v1/gift_card/${token}`)).balance).toBe(2000);
  }, 120_000);

  it('never approves two lanes spending the last balance at the same time', async () => {
    for (const [round, number] of [CARDS.b, CARDS.d].entries()) {
      await hub.api('POST', '/api/gateway/v1/gift_card', { card_number: number, activated: 'true', load_amount_cents: 1000 });
      const sales = await Promise.all([open(0, 1), open(1, 1)]);
      const answers = await Promise.all([payGift(0, sales[0]!.id, number), payGift(1, sales[1]!.id, number)]);
      const approved = answers.filter((a) => a.status === 200 && (a.body as unknown as Tendered).tender.status === 'approved');
      expect(approved, `round ${round}`).toHaveLength(1);
      // The other: declined by the hub (insufficient funds), or told the card is empty when its read came after the sale.
      const other = answers.find((a) => !approved.includes(a))!;
      if (other.status === 200) expect((other.body as unknown as Tendered).tender.status).toBe('declined');
      else expect(other.body.code).toBe('gift_card_empty');
      expect(await balance(hub, number)).toBe(0);
      // Both sales finish with cash where the card did not pay.
      for (const [i, a] of answers.entries()) if (a !== approved[0]) await lanes[i]!.api('POST', `/api/pos/sales/${sales[i]!.id}/tenders`, { shift: shifts[i], type: 'cash' });
    }
  }, 120_000);

  it('debits once when the answer to a tender is lost and the lane sends it again', async () => {
    await hub.api('POST', '/api/gateway/v1/gift_card', { card_number: CARDS.c, activated: 'true', load_amount_cents: 3000 });
    const sale = await open(0, 1);
    proxies[0]!.loseAnswers('"op":"sale"', 1);
    const paid = await payGift(0, sale.id, CARDS.c);
    expect(proxies[0]!.lost()).toBe(1);
    expect((paid.body as unknown as Tendered).tender).toMatchObject({ status: 'approved', amount_cents: 1000 });
    expect(await balance(hub, CARDS.c)).toBe(2000);
    // The refund of that sale goes back to the card, on the hub.
    const refund = await call(lanes[0]!, 'POST', `/api/pos/sales/${sale.id}/refunds`, { shift: shifts[0], all: true });
    expect(refund.status).toBe(200);
    expect(await balance(hub, CARDS.c)).toBe(3000);
  }, 120_000);

  /** Until the lane pulled the hub's records twice after now: what the hub held now is on the lane. */
  const pulled = async (i: number) => {
    for (let n = 0; n < 2; n++) {
      const since = new Date().toISOString();
      await until(async () => {
        const peers = (await lanes[i]!.api<{ peers: Array<{ role: string; streams: Array<{ stream: string; last_success_at: string | null }> }> }>('GET', '/api/sync/status')).peers;
        const at = peers.find((p) => p.role === 'hub')?.streams.find((s) => s.stream === 'hub_records')?.last_success_at;
        return !!at && at > since;
      }, `lane ${i} to pull the hub's records`);
    }
  };
  const cutOff = async (i: number) => {
    proxies[i]!.cut();
    await until(async () => (await lanes[i]!.api<{ peers: Array<{ role: string; last_error: string | null }> }>('GET', '/api/sync/status')).peers.some((p) => p.role === 'hub' && p.last_error), `lane ${i} to see its hub gone`);
  };

  it('spends within the floor on a lane apart, from the hub\'s copy, and the hub debits it once pushed', async () => {
    await hub.api('POST', '/api/gateway/v1/gift_card', { card_number: CARDS.e, activated: 'true', load_amount_cents: 5000 });
    await hub.api('POST', '/api/gateway/v1/gift_card', { card_number: CARDS.f, activated: 'true', load_amount_cents: 1000 });
    await hub.api('POST', '/api/gateway/v1/gift_card', { card_number: CARDS.g, pin: '2468', activated: 'true', load_amount_cents: 1000 });
    await pulled(1);
    await cutOff(1);
    const sale = await open(1, 3);
    // The floor (25.00 by default) bounds what one card pays here until the hub is back.
    const over = await payGift(1, sale.id, CARDS.e);
    expect(over.status).toBe(412);
    expect(over.body.code).toBe('offline_floor_exceeded');
    const within = await payGift(1, sale.id, CARDS.e, 2000);
    expect((within.body as unknown as Tendered).tender).toMatchObject({ status: 'approved', amount_cents: 2000, label: 'Gift card •••• 8888' });
    // Apart: what the hub's copy held, less what this lane spent of it.
    expect(within.body.gift_card_balance_cents).toBe(3000);
    expect((await payGift(1, sale.id, CARDS.e, 1000)).body.code).toBe('offline_floor_exceeded');
    // A PIN only the hub can check: not spent apart.
    expect((await payGift(1, sale.id, CARDS.g)).body.code).toBe('gift_card_pin_needs_hub');
    // Card F: spent whole on lane 2 from its copy while lane 1 spends it whole on the hub.
    expect((await payGift(1, sale.id, CARDS.f)).body).toMatchObject({ tender: { status: 'approved', amount_cents: 1000 } });
    const elsewhere = await open(0, 1);
    expect((await payGift(0, elsewhere.id, CARDS.f)).body).toMatchObject({ tender: { status: 'approved', amount_cents: 1000 } });
    expect(await balance(hub, CARDS.e)).toBe(5000);
    proxies[1]!.restore();
    await until(async () => (await balance(hub, CARDS.e)) === 3000, 'the offline spend debited on the hub');
    await until(async () => (await balance(hub, CARDS.f)) === -1000, 'card F overdrawn on the hub');
    const { exceptions } = await hub.api<{ exceptions: Array<{ reason: string; card_last4?: string; card_balance_cents?: number }> }>('GET', '/api/sync/resolutions');
    expect(exceptions.find((e) => e.reason === 'offline_floor_excess' && e.card_last4 === '9999')).toMatchObject({ card_balance_cents: -1000 });
    expect(exceptions.some((e) => e.card_last4 === '8888')).toBe(false);
    // Pushed again (a lane's retry): debited once.
    await new Promise((r) => setTimeout(r, 1000));
    expect(await balance(hub, CARDS.e)).toBe(3000);
    expect(await balance(lanes[1]!, CARDS.e)).toBe(3000);

    // A refund of those tenders goes back to the cards on the hub. Apart again, it cannot: the
    // reversal stays incomplete, with nothing given back, until it is retried with the hub back.
    type Reversed = { reversal: { number: number; status: string; outstanding_cents: number; allocations: Array<{ status: string; error: { message: string } | null }> } };
    await cutOff(1);
    const apart = await call(lanes[1]!, 'POST', `/api/pos/sales/${sale.id}/refunds`, { shift: shifts[1], lines: [{ line: 1, quantity: 1 }] });
    const pending = (apart.body as unknown as Reversed).reversal;
    expect(pending).toMatchObject({ status: 'incomplete', outstanding_cents: 1000 });
    expect(pending.allocations[0]!.error!.message).toContain('the hub cannot be reached now');
    // It is settled once the hub answers: cash meanwhile would give it back twice.
    expect(pending.allocations[0]!.error!.message).toContain('Do not give it in cash');
    proxies[1]!.restore();
    await pulled(1);
    let retried: Reversed['reversal'] | undefined;
    await until(async () => {
      const r = await call(lanes[1]!, 'POST', `/api/pos/sales/${sale.id}/reversals/${pending.number}/settle`, { shift: shifts[1], method: 'retry' });
      retried = (r.body as unknown as Reversed).reversal;
      return retried?.status === 'completed';
    }, 'the retried refund to reach the hub');
    expect(retried).toMatchObject({ status: 'completed', outstanding_cents: 0 });
    // The last tender first: card F, overdrawn by the two lanes, gets its 10.00 back.
    expect(await balance(hub, CARDS.f)).toBe(0);
    const rest = await call(lanes[1]!, 'POST', `/api/pos/sales/${sale.id}/refunds`, { shift: shifts[1], all: true });
    expect((rest.body as unknown as Reversed).reversal).toMatchObject({ status: 'completed', outstanding_cents: 0 });
    expect(await balance(hub, CARDS.e)).toBe(5000);
    // (The lane reads the hub's balance while linked; its link may still be settling from the cut.)
    await until(async () => (await balance(lanes[1]!, CARDS.e)) === 5000, "lane 1 to read the hub's balance");
    // Everything went back once: nothing more to refund, and the balances stay.
    expect((await call(lanes[1]!, 'POST', `/api/pos/sales/${sale.id}/refunds`, { shift: shifts[1], all: true })).body.code).toBe('sale_not_refundable');
    expect([await balance(hub, CARDS.e), await balance(hub, CARDS.f)]).toEqual([5000, 0]);
  }, 180_000);

  it('loads once when the answer to a lane\'s load is lost and the lane sends it again', async () => {
    const lostBefore = proxies[0]!.lost();
    proxies[0]!.loseAnswers('"op":"load"', 1);
    const loaded = await lanes[0]!.api<{ balance: number; activated: boolean }>('POST', '/api/gateway/v1/gift_card', { card_number: CARDS.h, activated: 'true', load_amount_cents: 5000 });
    expect(proxies[0]!.lost()).toBe(lostBefore + 1);
    expect(loaded).toMatchObject({ balance: 5000, activated: true });
    expect(await balance(hub, CARDS.h)).toBe(5000);
    // The next load on the lane is a load of its own.
    expect((await lanes[0]!.api<{ balance: number }>('POST', '/api/gateway/v1/gift_card', { card_number: CARDS.h, load_amount_cents: 2500 })).balance).toBe(7500);
    expect(await balance(hub, CARDS.h)).toBe(7500);
    expect(await balance(lanes[0]!, CARDS.h)).toBe(7500);
  }, 120_000);

  it('loads once when no answer to a lane\'s load came back at all and the cashier sends the same load again', async () => {
    const card = CARDS.i;
    const lostBefore = proxies[0]!.lost();
    // Every one of the lane's tries reaches the hub, which loads the card; every answer is lost.
    proxies[0]!.loseAnswers('"op":"load"', 3);
    const unanswered = await call(lanes[0]!, 'POST', '/api/gateway/v1/gift_card', { card_number: card, activated: 'true', load_amount_cents: 4000 });
    expect(proxies[0]!.lost()).toBe(lostBefore + 3);
    expect(unanswered.status).toBe(412);
    expect(unanswered.body.code).toBe('hub_unreachable');
    expect(await balance(hub, card)).toBe(4000);
    // The cashier, told it is not confirmed, sends the same load again: the hub's first answer, no second load.
    const again = await lanes[0]!.api<{ balance: number }>('POST', '/api/gateway/v1/gift_card', { card_number: card, activated: 'true', load_amount_cents: 4000 });
    expect(again.balance).toBe(4000);
    expect(await balance(hub, card)).toBe(4000);
    // Confirmed now: the same load once more is a load of its own.
    expect((await lanes[0]!.api<{ balance: number }>('POST', '/api/gateway/v1/gift_card', { card_number: card, load_amount_cents: 4000 })).balance).toBe(8000);
    expect(await balance(hub, card)).toBe(8000);
  }, 180_000);

  it('refuses to load a card on a lane that cannot reach its hub, and keeps no card number anywhere', async () => {
    const loaded = await lanes[1]!.api<{ balance: number }>('POST', '/api/gateway/v1/gift_card', { card_number: CARDS.d, load_amount_cents: 700 });
    expect(loaded.balance).toBe(700);
    expect(await balance(hub, CARDS.d)).toBe(700);
    await cutOff(1);
    const refused = await call(lanes[1]!, 'POST', '/api/gateway/v1/gift_card', { card_number: CARDS.d, load_amount_cents: 500 });
    expect(refused.status).toBe(412);
    expect(refused.body.code).toBe('hub_unreachable');
    proxies[1]!.restore();
    expect(await balance(hub, CARDS.d)).toBe(700);
    for (const install of [hub, ...lanes]) await install.proc.stop();
    for (const dir of [dirs.hub.dir, dirs.a.dir, dirs.b.dir]) {
      const text = folderText(dir);
      for (const number of Object.values(CARDS)) expect(text.includes(number), `${number} in ${dir}`).toBe(false);
    }
  }, 120_000);
});
