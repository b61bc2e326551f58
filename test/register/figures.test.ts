import { afterEach, describe, expect, it } from 'vitest';
import { card } from '../helpers/cards';
import type { Receipt, RegisterReport } from '../../src/shared/schemas/register';
import { getRecord, putRecord } from '../../src/engine/records';
import type { SettingsData } from '../../src/engine/register/model';
import { openRegister, type RegisterRig } from '../helpers/register';
import { formatMoney } from '../../src/shared/money';

/**
 * The register's money figures, each with one definition in the engine: tips (on the sale, the
 * receipt, X and Z by tender and by cashier, and the Z against the card batch to the cent), the
 * refund and void documents and their signs, the shop's fixed tax letters, and the subtotal and
 * time every screen shows.
 */
let rig: RegisterRig;
afterEach(async () => {
  await rig?.close();
});

const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);

/** A receipt adds up: lines to the subtotal, subtotal and taxes to the total, tenders to what was paid. */
function expectAddsUp(r: Receipt): void {
  expect(sum(r.lines.map((l) => l.amount_cents))).toBe(r.subtotal_cents);
  expect(r.subtotal_cents + sum(r.taxes.map((t) => t.tax_cents))).toBe(r.total_cents);
  expect(sum(r.tenders.map((t) => t.amount_cents + t.tip_cents))).toBe(r.paid_cents);
  expect(sum(r.tenders.map((t) => t.tip_cents))).toBe(r.tip_cents);
}

describe('tips taken on the terminal', () => {
  it('show on the sale and its receipt, count in X and Z by tender and by cashier apart from sales, and the Z meets the card batch to the cent', async () => {
    rig = await openRegister();
    rig.terminal.tipPercent = 18;

    // Sam: a card sale with an 18% tip, and a cash sale.
    const a = await rig.sale('4002'); // 4499 + 585 = 5084; tip 915.12 → 915
    const paid = await rig.tender(a, { type: 'card' });
    expect(paid.tender).toMatchObject({ status: 'approved', amount_cents: 5084, tip_cents: 915 });
    expect(paid.sale.totals).toMatchObject({ total_cents: 5084, paid_cents: 5084, tip_cents: 915, collected_cents: 5999, balance_cents: 0 });
    expect(paid.message).toBe('Visa •••• 0006: approved, $59.99 with a tip of $9.15.');
    const receipt = await rig.register.receipt(a.id, {});
    expect(receipt).toMatchObject({ kind: 'sale', total_cents: 5084, tip_cents: 915, paid_cents: 5999, tenders: [{ label: 'Visa •••• 0006', amount_cents: 5084, tip_cents: 915 }] });
    expectAddsUp(receipt);
    expect((await rig.t.engine.gateway.view(paid.tender.transaction!))?.amount_in_cents).toBe(5999);

    const b = await rig.sale('1002'); // 425 + 21
    await rig.tender(b, { type: 'cash', tendered_cents: 500 });

    // Pat: a card sale with a tip, and another that is voided the same day: its tip goes back too.
    const pat = await rig.register.createCashier({ name: 'Pat Lee', code: '97531', supervisor: true });
    rig.shift = (await rig.register.signIn('1', '97531')).id;
    const c = await rig.sale('3001'); // 1699; tip 305.82 → 306
    await rig.tender(c, { type: 'card' });
    const d = await rig.sale('1002'); // 446; tip 80.28 → 80
    await rig.tender(d, { type: 'card' });
    const voided = await rig.register.voidSale(d.id, { shift: rig.shift }, null);
    expect(voided.reversal!.allocations).toEqual([expect.objectContaining({ method: 'void', status: 'done', amount_cents: 446, tip_cents: 80 })]);
    expect(voided.message).toBe('Voided $5.26: $5.26 to Visa •••• 0006 (its $0.80 tip included).');
    const voidReceipt = await rig.register.receipt(d.id, { reversal: 1 });
    expect(voidReceipt).toMatchObject({ kind: 'void', total_cents: -446, tip_cents: -80, paid_cents: -526 });
    expectAddsUp(voidReceipt);

    // A card payment taken outside the register (the API) lands in the same account-wide batch.
    await rig.t.engine.gateway.transact('sale', { amount_cents: 1000, credit_card: card() }, null);

    const x = await rig.register.xReport('1');
    // Tips are apart from sales: net sales are the goods; the card tender holds sales + tips.
    expect(x.sales.total_cents).toBe(5084 + 446 + 1699 + 446);
    expect(x.net_sales_cents).toBe(5084 + 446 + 1699);
    expect(x.tips).toEqual({ count: 3, total_cents: 915 + 306 + 80 - 80 });
    expect(x.tenders).toEqual([
      { type: 'card', label: 'Visa', count: 3, in_cents: 5084 + 1699 + 446, out_cents: 446, tip_cents: 915 + 306, net_cents: 5084 + 1699 + 915 + 306 },
      { type: 'cash', label: 'Cash', count: 1, in_cents: 446, out_cents: 0, tip_cents: 0, net_cents: 446 },
    ]);
    const byCashier = (r: RegisterReport) => r.cashiers.map((cc) => [cc.cashier.name, cc.sales_total_cents, cc.tips_count, cc.tips_cents, cc.tenders.find((t) => t.type === 'card')?.tip_cents]);
    expect(byCashier(x)).toEqual([
      [pat.name, 1699 + 446, 2, 306, 306],
      ['Sam Rivera', 5084 + 446, 1, 915, 915],
    ]);

    const z = await rig.register.zClose('1', { shift: rig.shift });
    expect(z.tips).toEqual(x.tips);
    expect(byCashier(z)).toEqual(byCashier(x));
    const laneCard = 5084 + 1699 + 915 + 306;
    const batchNet = sum(z.z!.batches.map((bt) => bt.net_cents));
    expect(batchNet).toBe(laneCard + 1000);
    expect(z.z!.reconciliation).toEqual({
      lane_card_net_cents: laneCard,
      lane_in_batches_cents: laneCard,
      lane_elsewhere_cents: 0,
      others: [{ source: 'Card payments not taken on a lane', count: 1, net_cents: 1000 }],
      batch_net_cents: batchNet,
    });
    // The reprint carries the same reconciliation.
    expect((await rig.register.zReport('1', 1)).z!.reconciliation).toEqual(z.z!.reconciliation);
  });

  it('a lane whose only card payments are its own: the Z card net is the batch net, tips included', async () => {
    rig = await openRegister();
    rig.terminal.tipPercent = 18;
    const a = await rig.sale('4002', '5001'); // 5084 + 1495 + 194 = 6773; tip 1219.14 → 1219
    await rig.tender(a, { type: 'card', amount_cents: 3000 }); // tip 540
    await rig.tender(a, { type: 'card' }); // 3773; tip 679.14 → 679
    const z = await rig.register.zClose('1', { shift: rig.shift });
    const card = z.tenders.find((t) => t.type === 'card')!;
    expect(card).toMatchObject({ in_cents: 6773, tip_cents: 540 + 679, net_cents: 6773 + 1219 });
    expect(z.z!.batches).toHaveLength(1);
    expect(z.z!.batches[0]!.net_cents).toBe(card.net_cents);
    expect(z.z!.reconciliation).toMatchObject({ lane_card_net_cents: card.net_cents, lane_in_batches_cents: card.net_cents, others: [], batch_net_cents: card.net_cents });
  });

  it("a refund of this lane's card sale made at another lane's register is named after that lane, not as outside this register", async () => {
    rig = await openRegister();
    await rig.t.engine.lanes.create({ laneid: '2', port_path: '/dev/ttyLANEWAYTEST2', name: 'Back counter' });
    const lane2 = await rig.register.signIn('2', rig.code);
    const sale = await rig.sale('3001', '2001');
    const paid = await rig.tender(sale, { type: 'card' });
    const total = paid.tender.amount_cents;
    // One line back at lane 2's register: a refund of part of the card payment, on lane 2's X and Z.
    const refund = await rig.register.refund(sale.id, { shift: lane2.id, lines: [{ line: 1, quantity: 1 }] }, null);
    expect(refund.reversal).toMatchObject({ status: 'completed', document: '2-R000001', allocations: [{ method: 'refund' }] });
    const back = refund.reversal!.amount_cents;
    const z = await rig.register.zClose('1', { shift: rig.shift });
    expect(z.z!.reconciliation).toEqual({ lane_card_net_cents: total, lane_in_batches_cents: total, lane_elsewhere_cents: 0, others: [{ source: 'Lane 2', count: 1, net_cents: -back }], batch_net_cents: total - back });
  });
});

describe('refund and void documents', () => {
  it('get their own numbers, say what happened, and sign every amount as money going back', async () => {
    rig = await openRegister();
    let sale = await rig.sale('1002', '4001');
    sale = await rig.register.changeLine(sale.id, 1, { shift: rig.shift, quantity: 3 }); // 1275 + 64; 1800 + 234 = 3373
    await rig.tender(sale, { type: 'card', amount_cents: 2000 });
    await rig.tender(sale, { type: 'cash', tendered_cents: 2000 });

    const first = await rig.register.refund(sale.id, { shift: rig.shift, lines: [{ line: 1, quantity: 1 }] }, null);
    const second = await rig.register.refund(sale.id, { shift: rig.shift, lines: [{ line: 2, quantity: 1 }] }, null);
    expect([first.reversal!.document, second.reversal!.document]).toEqual(['1-R000001', '1-R000002']);

    const r1 = await rig.register.receipt(sale.id, { reversal: 1 });
    expect(r1).toMatchObject({ kind: 'refund', number: '1-R000001', sale_number: sale.number, subtotal_cents: -425, total_cents: -(425 + 21), paid_cents: -(425 + 21), tip_cents: 0 });
    expect(r1.lines).toEqual([expect.objectContaining({ description: 'Cappuccino', quantity: 1, amount_cents: -425, tax_mark: 'B' })]);
    expect(r1.taxes).toEqual([{ mark: 'B', tax_rate: 5, taxable_cents: -425, tax_cents: -21 }]);
    expectAddsUp(r1);
    const r2 = await rig.register.receipt(sale.id, { reversal: 2 });
    expect(r2).toMatchObject({ kind: 'refund', number: '1-R000002', total_cents: -2034 });
    expect(r2.tenders.every((t) => t.amount_cents < 0)).toBe(true);
    expectAddsUp(r2);
    // A refund's number finds its sale, and asks for its own receipt.
    expect((await rig.register.sale('1-R000002')).id).toBe(sale.id);
    expect(await rig.register.receipt('1-r000002', {})).toEqual(r2);
    // The sale's own receipt keeps its number and its positive amounts.
    const own = await rig.register.receipt(sale.id, {});
    expect(own).toMatchObject({ kind: 'sale', number: sale.number, sale_number: sale.number, total_cents: 3373 });

    // A paid sale voided, then an open sale voided with a payment on it: the void series.
    const b = await rig.sale('3001');
    await rig.tender(b, { type: 'card' });
    const vb = await rig.register.voidSale(b.id, { shift: rig.shift }, null);
    const c = await rig.sale('4002'); // 5084, 2000 paid
    await rig.tender(c, { type: 'card', amount_cents: 2000 });
    const vc = await rig.register.voidSale(c.id, { shift: rig.shift }, null);
    expect([vb.reversal!.document, vc.reversal!.document]).toEqual(['1-V000001', '1-V000002']);

    const rb = await rig.register.receipt(b.id, { reversal: 1 });
    expect(rb).toMatchObject({ kind: 'void', number: '1-V000001', sale_number: b.number, total_cents: -1699, paid_cents: -1699, tenders: [{ method: 'void', amount_cents: -1699 }] });
    expectAddsUp(rb);
    // The open sale's void lists what was rung up; what went back is what was paid.
    const rc = await rig.register.receipt(c.id, { reversal: 1 });
    expect(rc).toMatchObject({ kind: 'void', number: '1-V000002', subtotal_cents: -4499, total_cents: -5084, paid_cents: -2000, tenders: [{ method: 'void', amount_cents: -2000 }] });
    expect(sum(rc.lines.map((l) => l.amount_cents))).toBe(rc.subtotal_cents);
    expect(rc.subtotal_cents + sum(rc.taxes.map((t) => t.tax_cents))).toBe(rc.total_cents);

    // A refund the gateway declines: nothing went back yet, and the receipt says what is owed.
    let owed = await rig.sale();
    owed = await rig.register.addLine(owed.id, { shift: rig.shift, open: { description: 'Service', unit_price_cents: 2001, tax_rate: 0 } });
    owed = await rig.register.addLine(owed.id, { shift: rig.shift, open: { description: 'Other service', unit_price_cents: 1050, tax_rate: 0 } });
    await rig.tender(owed, { type: 'card' });
    await rig.register.refund(owed.id, { shift: rig.shift, lines: [{ line: 1, quantity: 1 }] }, null); // the sandbox declines .01
    const ro = await rig.register.receipt(owed.id, { reversal: 1 });
    expect(ro).toMatchObject({ kind: 'refund', number: '1-R000003', total_cents: -2001, paid_cents: 0, outstanding_cents: 2001, tenders: [] });

    // A dry run numbers nothing: the next refund takes the next number.
    const later = await rig.sale('2001');
    await rig.tender(later, { type: 'cash' });
    const plan = await rig.register.refund(later.id, { shift: rig.shift, all: true, dry_run: true }, null);
    expect(plan.reversal!.document).toBe('');
    expect((await rig.register.refund(later.id, { shift: rig.shift, all: true }, null)).reversal!.document).toBe('1-R000004');
  });
});

describe('tax letters', () => {
  it('are fixed per rate of the shop: the same letter means the same rate on every receipt, and a new rate gets the next letter', async () => {
    rig = await openRegister();
    const only13 = await rig.sale('4001');
    await rig.tender(only13, { type: 'cash' });
    const mixed = await rig.sale('3001', '4001');
    await rig.tender(mixed, { type: 'cash' });
    const marks = (r: Receipt) => [r.taxes.map((t) => [t.mark, t.tax_rate]), r.lines.map((l) => l.tax_mark)];
    expect(marks(await rig.register.receipt(only13.id, {}))).toEqual([[['C', 13]], ['C']]);
    expect(marks(await rig.register.receipt(mixed.id, {}))).toEqual([[['A', 0], ['C', 13]], ['A', 'C']]);

    await rig.register.createProduct({ code: 'T8', description: 'Tea set', price_cents: 2000, tax_rate: 8, category: 'Household' });
    const eight = await rig.sale('T8', '1002');
    expect(eight.lines.map((l) => l.tax_mark)).toEqual(['D', 'B']);
    expect(eight.taxes.map((t) => [t.mark, t.tax_rate])).toEqual([['B', 5], ['D', 8]]);
    await rig.tender(eight, { type: 'cash' });
    expect(marks(await rig.register.receipt(eight.id, {}))).toEqual([[['B', 5], ['D', 8]], ['D', 'B']]);
    // Earlier receipts keep their letters.
    expect(marks(await rig.register.receipt(only13.id, {}))).toEqual([[['C', 13]], ['C']]);
    expect(rig.register.settings().tax_marks).toEqual([
      { tax_rate: 0, mark: 'A' },
      { tax_rate: 5, mark: 'B' },
      { tax_rate: 13, mark: 'C' },
      { tax_rate: 8, mark: 'D' },
    ]);
    // The X report uses the same letters.
    expect((await rig.register.xReport('1')).taxes.map((t) => [t.mark, t.tax_rate])).toEqual([['A', 0], ['B', 5], ['D', 8], ['C', 13]]);
  });
});

describe('one definition of each figure', () => {
  it('the subtotal is the sum of the lines as shown (after discounts, before tax) on the sale and the receipt, and the sale has one time', async () => {
    rig = await openRegister();
    let sale = await rig.sale('3003', '1002');
    sale = await rig.register.changeLine(sale.id, 1, { shift: rig.shift, quantity: 2, discount: { percent: 10, reason: 'Dented lid' } }); // 2390 − 239 = 2151 at 0%
    expect(sale.totals).toMatchObject({ gross_cents: 2390 + 425, discount_cents: 239, subtotal_cents: 2151 + 425, tax_cents: 21, total_cents: 2151 + 425 + 21 });
    expect(sale.totals.subtotal_cents).toBe(sum(sale.lines.map((l) => l.net_cents)));
    expect(sale.totals.subtotal_cents + sale.totals.tax_cents).toBe(sale.totals.total_cents);

    rig.t.clock.advance(70_000); // paid a minute after it was started
    const paid = (await rig.tender(sale, { type: 'cash', tendered_cents: 3000 })).sale;
    const receipt = await rig.register.receipt(sale.id, {});
    expect(receipt.subtotal_cents).toBe(paid.totals.subtotal_cents);
    expect(receipt.discount_cents).toBe(paid.totals.discount_cents);
    expect(receipt.lines.map((l) => l.amount_cents)).toEqual(paid.lines.map((l) => l.net_cents));
    expectAddsUp(receipt);
    // One time for the sale: when it was paid, on the sale (lists, detail) and on its receipt.
    expect(paid.at).toBe(paid.paid_at);
    expect(paid.at).not.toBe(paid.created_at);
    expect(receipt.at).toBe(paid.at);
    expect((await rig.register.recentSales('1', 5))[0]!.at).toBe(paid.at);
  });
});

describe('discounts on refund and void receipts', () => {
  it("carry the lines' discounts going back, and their notes, as the sale's receipt does", async () => {
    rig = await openRegister();
    let sale = await rig.sale('3003', '1002');
    sale = await rig.register.changeLine(sale.id, 1, { shift: rig.shift, quantity: 2, discount: { percent: 12.5, reason: 'Dented lid' } }); // 2390 − 299 = 2091
    await rig.tender(sale, { type: 'cash' });
    const own = await rig.register.receipt(sale.id, {});
    expect(own.discount_cents).toBe(299);
    const note = own.lines[0]!.notes.find((n) => n.includes('off'));
    expect(note).toBe('12.5% off (Dented lid): −$2.99');

    // One unit back: its share of the discount (price less its net), then the other: the rest.
    await rig.register.refund(sale.id, { shift: rig.shift, lines: [{ line: 1, quantity: 1 }] }, null);
    await rig.register.refund(sale.id, { shift: rig.shift, lines: [{ line: 1, quantity: 1 }] }, null);
    const [r1, r2] = await Promise.all([1, 2].map((n) => rig.register.receipt(sale.id, { reversal: n })));
    expect(r1!.discount_cents + r2!.discount_cents).toBe(-299);
    expect(r1!.lines[0]!.notes).toEqual([`12.5% off (Dented lid): −${formatMoney(-r1!.discount_cents, 'USD')}`]);
    expectAddsUp(r1!);

    // A void of a discounted sale: the whole discount, noted on its line.
    let other = await rig.sale('3003');
    other = await rig.register.changeLine(other.id, 1, { shift: rig.shift, discount: { percent: 12.5 } }); // 1195 − 149 = 1046
    await rig.tender(other, { type: 'cash' });
    await rig.register.voidSale(other.id, { shift: rig.shift }, null);
    const voided = await rig.register.receipt(other.id, { reversal: 1 });
    expect(voided.discount_cents).toBe(-149);
    expect(voided.lines[0]).toMatchObject({ amount_cents: -1046, notes: ['12.5% off: −$1.49'] });
    expectAddsUp(voided);
  });
});

describe('tax letters on an install from before they were kept', () => {
  it('give the catalog\'s rates their letters once, lowest first, at the next start', async () => {
    rig = await openRegister();
    // What an earlier version left: settings without letters.
    await rig.t.engine.core.mutate(async (tx) => {
      const stored = (await getRecord<SettingsData>(tx, 'pos_settings', 'register'))!.data;
      const { tax_marks: _gone, ...old } = stored;
      await putRecord(tx, 'pos_settings', 'register', old, { type: 'pos_settings.updated', entity: 'pos_settings', key: 'register' });
    });
    const again = await rig.t.restart();
    try {
      expect(again.engine.register.settings().tax_marks).toEqual([
        { tax_rate: 0, mark: 'A' },
        { tax_rate: 5, mark: 'B' },
        { tax_rate: 13, mark: 'C' },
      ]);
    } finally {
      await again.close();
    }
  });
});
