import { afterEach, describe, expect, it } from 'vitest';
import { isEngineError } from '../../src/engine/errors';
import type { DomainEvent } from '../../src/engine/events';
import { code, openRegister, type RegisterRig } from '../helpers/register';

let rig: RegisterRig;
afterEach(async () => {
  await rig?.close();
});

describe('voids', () => {
  it('voids an open sale: nothing paid is simply voided; a partly paid one gives the money back and frees the lane', async () => {
    rig = await openRegister();
    const empty = await rig.sale('1001');
    const voided = await rig.register.voidSale(empty.id, { shift: rig.shift }, null);
    expect(voided).toMatchObject({ reversal: null, sale: { status: 'voided' } });
    expect((await rig.t.engine.orders.view(empty.order))?.attributes).toMatchObject({ pos_status: 'voided' });

    const sale = await rig.sale('4002'); // 4499 + 585 = 5084
    const card = await rig.tender(sale, { type: 'card', amount_cents: 3000 });
    await rig.tender(sale, { type: 'cash', tendered_cents: 1000 });
    const out = await rig.register.voidSale(sale.id, { shift: rig.shift, reason: 'Customer left' }, null);
    expect(out.sale.status).toBe('voided');
    expect(out.reversal).toMatchObject({ kind: 'void', status: 'completed', amount_cents: 4000, refunded_cents: 4000, outstanding_cents: 0, drawer_opened: true });
    // The last tender first: the cash, then the card (voided whole, the same day).
    expect(out.reversal!.allocations.map((a) => [a.method, a.amount_cents, a.status])).toEqual([
      ['cash', 1000, 'done'],
      ['void', 3000, 'done'],
    ]);
    expect(out.message).toMatch(/Give \$10\.00 in cash from the drawer/);
    const tx = await rig.t.engine.gateway.view(card.tender.transaction!);
    expect(tx).toMatchObject({ state: 'cancelled' });
    expect((await rig.register.register('1')).open_sale).toBeNull();
    expect(out.sale.tenders.every((t) => t.status === 'reversed')).toBe(true);
  });

  it('voids a paid sale the same day; refuses once its card payment is in a closed batch (refund instead)', async () => {
    rig = await openRegister();
    const a = await rig.sale('3001');
    await rig.tender(a, { type: 'card' });
    const out = await rig.register.voidSale(a.id, { shift: rig.shift }, null);
    expect(out).toMatchObject({ sale: { status: 'voided' }, reversal: { status: 'completed', allocations: [{ method: 'void', status: 'done' }] } });
    expect(await code(rig.register.voidSale(a.id, { shift: rig.shift }, null))).toBe('sale_voided');

    const b = await rig.sale('3002');
    await rig.tender(b, { type: 'card' });
    await rig.register.zClose('1', { shift: rig.shift });
    const refused = await rig.register.voidSale(b.id, { shift: rig.shift }, null).catch((e: unknown) => e);
    expect(isEngineError(refused) && refused.code).toBe('void_window_closed');
    expect((refused as Error).message).toMatch(/Refund it instead/);
    expect((await rig.register.sale(b.id)).status).toBe('paid');
    const refund = await rig.register.refund(b.id, { shift: rig.shift, all: true }, null);
    expect(refund.reversal).toMatchObject({ status: 'completed', allocations: [{ method: 'refund', status: 'done', amount_cents: 1250 }] });
    expect(refund.sale.status).toBe('refunded');
  });
});

describe('voids after the card batch closed', () => {
  it("an open sale's void gives back everything charged, its tip too (a refund of the whole); a paid sale's refund keeps the tip", async () => {
    rig = await openRegister();
    rig.terminal.tipPercent = 20;
    const sale = await rig.sale('4002'); // 5084
    const card = await rig.tender(sale, { type: 'card', amount_cents: 1000 });
    expect(card.tender).toMatchObject({ amount_cents: 1000, tip_cents: 200 });
    // Another lane's Z closes the account's batch: the card payment can only be refunded now.
    await rig.t.engine.gateway.closeDay(rig.t.clock.now());
    const plan = card.tender.transaction!;
    const out = await rig.register.voidSale(sale.id, { shift: rig.shift, reason: 'test' }, null);
    expect(out.sale).toMatchObject({ status: 'voided', totals: { paid_cents: 1000, tip_cents: 200, collected_cents: 1200 } });
    expect(out.reversal).toMatchObject({ status: 'completed', refunded_cents: 1000, allocations: [{ method: 'refund', amount_cents: 1000, tip_cents: 200, status: 'done' }] });
    expect(out.message).toMatch(/^Voided \$12\.00: \$12\.00 to Visa .* \(its \$2\.00 tip included\)/);
    // The customer got back all they were charged; the tip comes off the X.
    expect(await rig.t.engine.gateway.record(plan)).toMatchObject({ refunded_cents: 1200 });
    const x = await rig.register.xReport('1');
    expect(x.tips.total_cents).toBe(0);
    expect(x.tenders.find((t) => t.type === 'card')).toMatchObject({ in_cents: 1000, out_cents: 1000, tip_cents: 0, net_cents: 0 });
    const receipt = await rig.register.receipt(sale.id, { reversal: 1 });
    expect(receipt.tip_cents).toBe(-200);

    // A paid sale refunded after the batch closed: the sale's part goes back, the tip stays.
    const paid = await rig.sale('3002');
    const whole = await rig.tender(paid, { type: 'card' });
    expect(whole.tender.tip_cents).toBeGreaterThan(0);
    await rig.register.zClose('1', { shift: rig.shift });
    const refund = await rig.register.refund(paid.id, { shift: rig.shift, all: true }, null);
    expect(refund.reversal).toMatchObject({ status: 'completed', allocations: [{ method: 'refund', tip_cents: 0, status: 'done' }] });
    expect(await rig.t.engine.gateway.record(whole.tender.transaction!)).toMatchObject({ refunded_cents: whole.tender.amount_cents });
  });
});

describe('refunds', () => {
  it('refunds returned units to the tenders in reverse order, within what each paid, and never more than was sold', async () => {
    rig = await openRegister();
    const events: DomainEvent[] = [];
    rig.t.engine.core.bus.subscribe((e) => events.push(e));
    let sale = await rig.sale('1002');
    sale = await rig.register.changeLine(sale.id, sale.lines[0]!.line, { shift: rig.shift, quantity: 3 }); // 1275 + 64 = 1339
    expect(sale.totals.total_cents).toBe(1339);
    const card = await rig.tender(sale, { type: 'card', amount_cents: 1000 });
    await rig.tender(sale, { type: 'cash', tendered_cents: 500 }); // 339 applied

    const plan = await rig.register.refund(sale.id, { shift: rig.shift, lines: [{ line: 1, quantity: 2 }], dry_run: true }, null);
    // 2 of 3: net 1275 × 2/3 = 850, tax 64 × 2/3 = 42.67 → 43.
    expect(plan.reversal).toMatchObject({ status: 'planned', amount_cents: 893 });
    expect(plan.reversal!.allocations.map((a) => [a.method, a.amount_cents])).toEqual([
      ['cash', 339],
      ['refund', 554],
    ]);
    expect((await rig.register.sale(sale.id)).reversals).toHaveLength(0);

    const first = await rig.register.refund(sale.id, { shift: rig.shift, lines: [{ line: 1, quantity: 2 }], reason: 'Spilled' }, null);
    expect(first.reversal).toMatchObject({ status: 'completed', refunded_cents: 893 });
    expect(first.sale.status).toBe('partially_refunded');
    expect(events.filter((e) => e.type === 'drawer.opened').map((e) => e.data?.reason)).toEqual(['cash_sale', 'cash_refund']);
    expect((await rig.t.engine.gateway.view(card.tender.transaction!))?.refunded_cents).toBe(554);

    expect(await code(rig.register.refund(sale.id, { shift: rig.shift, lines: [{ line: 1, quantity: 2 }] }, null))).toBe('quantity_exceeds_sold');
    // The last unit gives back exactly what is left of the line: 1339 − 893.
    const last = await rig.register.refund(sale.id, { shift: rig.shift, all: true }, null);
    expect(last.reversal).toMatchObject({ amount_cents: 446, allocations: [{ method: 'refund', amount_cents: 446 }] });
    expect(last.sale).toMatchObject({ status: 'refunded', totals: { refunded_cents: 1339 } });
    expect(await code(rig.register.refund(sale.id, { shift: rig.shift, all: true }, null))).toBe('sale_not_refundable');
  });

  it('counts what the back office refunded on the sale\'s card: never offers it again, in cash or on the card', async () => {
    rig = await openRegister();
    let sale = await rig.sale('1002');
    sale = await rig.register.changeLine(sale.id, sale.lines[0]!.line, { shift: rig.shift, quantity: 3 }); // 1339
    const card = await rig.tender(sale, { type: 'card' });
    // The back office (or an ERP through the API) refunds $5.00 of the card payment.
    const outside = await rig.t.engine.gateway.transact('refund', { transaction: card.tender.transaction!, amount_cents: 500 }, 'backoffice');
    expect(outside.approved).toBe(true);
    const voided = await rig.register.voidSale(sale.id, { shift: rig.shift }, null).catch((e: unknown) => e);
    expect(isEngineError(voided) && voided.code).toBe('refunded_outside_register');
    expect((voided as Error).message).toMatch(/\$5\.00 of .* was already refunded outside the register/);
    // More than the card still holds, and not everything left: refused, in the screen's own words.
    const two = await rig.register.refund(sale.id, { shift: rig.shift, lines: [{ line: 1, quantity: 2 }] }, null, 'fr-CA').catch((e: unknown) => e);
    expect(isEngineError(two) && two.code).toBe('refunded_outside_register');
    expect((two as Error).message).toMatch(/at most 8,39\s\$\sUS can go back here/);
    expect((await rig.register.sale(sale.id)).status).toBe('paid');
    // The register counts that money apart; the back office's orders list says it went back.
    const listed = (await rig.t.engine.backoffice.orders({})).items.find((o) => o.identifier === sale.id);
    expect(listed).toMatchObject({ state: 'partially_refunded', refunded_cents: 500 });
    // Everything left goes back: the $5.00 refunded outside is that much of these goods already.
    const plan = await rig.register.refund(sale.id, { shift: rig.shift, all: true, dry_run: true }, null);
    expect(plan.reversal).toMatchObject({ amount_cents: 839, allocations: [{ method: 'refund', amount_cents: 839 }] });
    expect(plan.message).toMatch(/\$5\.00 of these items went back earlier, outside the register/);
    // One unit (425 + 21) fits in what the card still holds; then the last two take what is left.
    const one = await rig.register.refund(sale.id, { shift: rig.shift, lines: [{ line: 1, quantity: 1 }] }, null);
    expect(one.reversal).toMatchObject({ status: 'completed', refunded_cents: 446, allocations: [{ method: 'refund', amount_cents: 446, status: 'done' }] });
    const rest = await rig.register.refund(sale.id, { shift: rig.shift, lines: [{ line: 1, quantity: 2 }] }, null);
    expect(rest.reversal).toMatchObject({ status: 'completed', amount_cents: 393, refunded_cents: 393, allocations: [{ method: 'refund', amount_cents: 393, status: 'done' }] });
    expect(rest.sale.status).toBe('refunded');
    // Never more back than was paid: 500 outside + 446 + 393 = 1339.
    const tx = await rig.t.engine.gateway.view(card.tender.transaction!);
    expect(tx).toMatchObject({ refunded_cents: 1339 });
    expect(await code(rig.register.refund(sale.id, { shift: rig.shift, all: true }, null))).toBe('sale_not_refundable');
  });

  it('leaves a refund the gateway declines incomplete, says what is owed, and settles it in cash', async () => {
    rig = await openRegister();
    let sale = await rig.sale();
    sale = await rig.register.addLine(sale.id, { shift: rig.shift, open: { description: 'Service', unit_price_cents: 2001, tax_rate: 0 } });
    sale = await rig.register.addLine(sale.id, { shift: rig.shift, open: { description: 'Other service', unit_price_cents: 1050, tax_rate: 0 } });
    const paid = await rig.tender(sale, { type: 'card' });
    expect(paid.sale.status).toBe('paid');
    // The sandbox declines refunds of amounts ending in .01.
    const out = await rig.register.refund(sale.id, { shift: rig.shift, lines: [{ line: 1, quantity: 1 }] }, null);
    expect(out.reversal).toMatchObject({ status: 'incomplete', refunded_cents: 0, outstanding_cents: 2001, allocations: [{ method: 'refund', status: 'failed', error: { code: 'declined' } }] });
    expect(out.message).toMatch(/Still owed to the customer: \$20\.01/);
    const settled = await rig.register.settleReversal(sale.id, 1, { shift: rig.shift, method: 'cash' }, null);
    expect(settled.reversal).toMatchObject({ status: 'completed', refunded_cents: 2001, outstanding_cents: 0, drawer_opened: true });
    expect(settled.sale.status).toBe('partially_refunded');
    // The card tender still has its whole amount to give back for the other line.
    const rest = await rig.register.refund(sale.id, { shift: rig.shift, all: true }, null);
    expect(rest.reversal).toMatchObject({ status: 'completed', allocations: [{ method: 'refund', amount_cents: 1050, status: 'done' }] });
  });

  it('finds a paid sale by its receipt number and refunds a cheque and an other tender as records', async () => {
    rig = await openRegister();
    const sale = await rig.sale('5001'); // 1495 + 194 = 1689
    await rig.tender(sale, { type: 'cheque', amount_cents: 1000, reference: '77' });
    await rig.tender(sale, { type: 'other', name: 'voucher' });
    const found = await rig.register.sale(sale.number);
    expect(found.id).toBe(sale.id);
    const out = await rig.register.refund(sale.number, { shift: rig.shift, all: true }, null);
    expect(out.reversal!.allocations.map((a) => [a.label, a.method, a.amount_cents])).toEqual([
      ['Voucher', 'external', 689],
      ['Cheque 77', 'external', 1000],
    ]);
    expect(out.reversal!.drawer_opened).toBe(false);
  });
});

describe('in the back office', () => {
  it("lists each register sale in its sale's own state with what went back, and finds a receipt as its sale's order", async () => {
    rig = await openRegister();
    const paid = await rig.sale('3001');
    await rig.tender(paid, { type: 'cash' });
    const cashVoided = await rig.sale('3002');
    await rig.tender(cashVoided, { type: 'cash' });
    await rig.register.voidSale(cashVoided.id, { shift: rig.shift }, null);
    const part = await rig.sale('1002', '2003');
    await rig.tender(part, { type: 'card' });
    await rig.register.refund(part.id, { shift: rig.shift, lines: [{ line: 1, quantity: 1 }] }, null);
    const open = await rig.sale('1001');
    const { items } = await rig.t.engine.backoffice.orders({});
    const row = (id: string) => items.find((o) => o.identifier === id);
    const sale = async (id: string) => rig.register.sale(id);
    for (const s of [paid, cashVoided, part, open]) {
      const now = await sale(s.id);
      expect(row(s.id), now.number).toMatchObject({ state: now.status, refunded_cents: now.totals.refunded_cents });
    }
    // A paid cash sale voided: no gateway transaction went back, yet the list says voided, with the cash.
    expect(row(cashVoided.id)).toMatchObject({ state: 'voided', draft: false, refunded_cents: (await sale(cashVoided.id)).totals.total_cents });
    expect(row(paid.id)?.state).toBe('paid');
    expect(row(part.id)?.state).toBe('partially_refunded');
    expect(row(open.id)).toMatchObject({ state: 'open', draft: true });
    expect(await rig.t.engine.backoffice.search(part.number)).toEqual([{ kind: 'receipt', key: part.id, label: `Receipt ${part.number}` }]);
  });
});
