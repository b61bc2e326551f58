import { afterEach, describe, expect, it } from 'vitest';
import { isEngineError } from '../../src/engine/errors';
import { openRegister, type RegisterRig } from '../helpers/register';

let rig: RegisterRig;
afterEach(async () => {
  await rig?.close();
});

describe('X and Z reports', () => {
  it('adds up the lane since its last Z by tender, by cashier and by tax rate; Z closes it and the day\'s card batch', async () => {
    rig = await openRegister();
    const pat = await rig.register.createCashier({ name: 'Pat Lee', code: '97531', supervisor: true });
    expect(pat.name).toBe('Pat Lee');

    // Sam: a card sale and a cash sale; one declined card attempt.
    const a = await rig.sale('3001'); // 1699
    await rig.tender(a, { type: 'card' });
    const b = await rig.sale('1002', '2003'); // 796
    rig.terminal.pan = '4264280001234500';
    await rig.tender(b, { type: 'card' });
    rig.terminal.pan = '4895281000000006';
    await rig.tender(b, { type: 'cash', tendered_cents: 1000 });

    // Pat takes over the lane: a sale on a cheque, then refunds half of Sam's cash sale and voids a sale.
    const patShift = await rig.register.signIn('1', '97531');
    rig.shift = patShift.id;
    const c = await rig.sale('4001'); // 1800 + 234 = 2034
    await rig.tender(c, { type: 'cheque', reference: '12' });
    await rig.register.refund(b.id, { shift: rig.shift, lines: [{ line: 2, quantity: 1 }] }, null); // the muffin: 350 back in cash
    const d = await rig.sale('1001'); // 245 + 12 = 257
    await rig.tender(d, { type: 'cash', tendered_cents: 300 });
    await rig.register.voidSale(d.id, { shift: rig.shift }, null);

    const x = await rig.register.xReport('1');
    expect(x).toMatchObject({
      kind: 'x',
      period: 1,
      sales: { count: 4, total_cents: 1699 + 796 + 2034 + 257, tax_cents: 21 + 234 + 12 },
      voids: { count: 1, total_cents: 257 },
      refunds: { count: 1, total_cents: 350 },
      net_sales_cents: 1699 + 796 + 2034 - 350,
      declined: 1,
      cash: { in_cents: 796 + 257, out_cents: 350 + 257, net_cents: 796 - 350, drawer_opens: 4 },
      z: null,
    });
    expect(x.tenders).toEqual([
      { type: 'card', label: 'Visa', count: 1, in_cents: 1699, out_cents: 0, tip_cents: 0, net_cents: 1699 },
      { type: 'cash', label: 'Cash', count: 2, in_cents: 1053, out_cents: 607, tip_cents: 0, net_cents: 446 },
      { type: 'cheque', label: 'Cheque', count: 1, in_cents: 2034, out_cents: 0, tip_cents: 0, net_cents: 2034 },
    ]);
    expect(x.taxes).toEqual([
      { mark: 'A', tax_rate: 0, taxable_cents: 1699 + 350 - 350, tax_cents: 0 },
      { mark: 'B', tax_rate: 5, taxable_cents: 425 + 245 - 245, tax_cents: 21 },
      { mark: 'C', tax_rate: 13, taxable_cents: 1800, tax_cents: 234 },
    ]);
    expect(x.cashiers.map((c) => [c.cashier.name, c.sales_count, c.sales_total_cents, c.refunds_total_cents, c.voids_count])).toEqual([
      ['Pat Lee', 2, 2034 + 257, 350, 1],
      ['Sam Rivera', 2, 1699 + 796, 0, 0],
    ]);
    // An X changes nothing.
    expect(await rig.register.xReport('1')).toEqual({ ...x, to: x.to });

    const z = await rig.register.zClose('1', { shift: rig.shift });
    expect(z).toMatchObject({ kind: 'z', period: 1, net_sales_cents: x.net_sales_cents, z: { number: 1, closed_by: { name: 'Pat Lee' }, batch_closed: true } });
    expect(z.z!.batches).toEqual([expect.objectContaining({ transaction_count: 1, sales_cents: 1699, net_cents: 1699 })]);
    expect(await rig.register.zReport('1', 1)).toEqual(z);
    const after = await rig.register.xReport('1');
    expect(after).toMatchObject({ period: 2, sales: { count: 0 }, tenders: [] });
    expect((await rig.register.register('1')).last_z).toMatchObject({ number: 1 });

    // The card sale is batched: it can only be refunded now. A later card sale goes to a follow-on batch.
    const tx = await rig.t.engine.gateway.view((await rig.register.sale(a.id)).tenders[0]!.transaction!);
    expect(tx?.settlement.status).toBe('batched');
    const e = await rig.sale('3002');
    const late = await rig.tender(e, { type: 'card' });
    const z2 = await rig.register.zClose('1', { shift: rig.shift });
    expect(z2.z!.batches.map((bt) => bt.token)).toEqual([`${z.z!.batches[0]!.token}-2`]);
    expect((await rig.t.engine.gateway.view(late.tender.transaction!))?.settlement.batch).toBe(`${z.z!.batches[0]!.token}-2`);
    expect((await rig.register.zReports('1')).map((r) => r.z!.number)).toEqual([2, 1]);
  });

  it('after an early close, a later card payment that day stays voidable, then closes into a follow-on batch at the cut-off', async () => {
    rig = await openRegister();
    const a = await rig.sale('3001');
    await rig.tender(a, { type: 'card' });
    const z = await rig.register.zClose('1', { shift: rig.shift });
    const base = z.z!.batches[0]!.token;
    const b = await rig.sale('3002');
    await rig.tender(b, { type: 'card' });
    const c = await rig.sale('3003');
    const paid = await rig.tender(c, { type: 'card' });
    const voided = await rig.register.voidSale(b.id, { shift: rig.shift }, null);
    expect(voided.reversal).toMatchObject({ status: 'completed', allocations: [{ method: 'void', status: 'done' }] });

    rig.t.clock.set('2026-03-02T23:00:01Z'); // the account's cut-off, 23:00 UTC
    await rig.t.engine.tick();
    const late = await rig.t.engine.gateway.view(paid.tender.transaction!);
    expect(late?.settlement).toMatchObject({ status: 'batched', batch: `${base}-2` });
    expect(await rig.t.engine.gateway.settlement.batch(base)).toMatchObject({ transaction_count: 1, sales_cents: 1699, closed_early_at: z.z!.closed_at });
    expect(await rig.t.engine.gateway.settlement.batch(`${base}-2`)).toMatchObject({ transaction_count: 1, sales_cents: 1195 });
  });

  it('counts open sales voided before payment apart from the voids of paid sales, in no total; the Z still balances', async () => {
    rig = await openRegister();
    const sold = await rig.sale('3001'); // 1699, paid in cash
    await rig.tender(sold, { type: 'cash', tendered_cents: 1700 });
    // A basket rung up and voided with nothing paid, then one voided after part of it was paid in cash.
    const basket = await rig.sale('1001', '2001'); // 257 + 325 = 582
    await rig.register.voidSale(basket.id, { shift: rig.shift }, null);
    const partly = await rig.sale('4002'); // 5084
    await rig.tender(partly, { type: 'cash', tendered_cents: 1000 });
    await rig.register.voidSale(partly.id, { shift: rig.shift }, null);

    const x = await rig.register.xReport('1');
    expect(x).toMatchObject({
      sales: { count: 1, total_cents: 1699 },
      voids: { count: 0, total_cents: 0 },
      open_voids: { count: 2, total_cents: 582 + 5084 },
      refunds: { count: 0, total_cents: 0 },
      net_sales_cents: 1699,
      cash: { in_cents: 1699 + 1000, out_cents: 1000, net_cents: 1699 },
    });
    expect(x.net_sales_cents).toBe(x.sales.total_cents - x.voids.total_cents - x.refunds.total_cents);
    expect(x.tenders.reduce((n, t) => n + t.net_cents, 0)).toBe(x.net_sales_cents);

    const z = await rig.register.zClose('1', { shift: rig.shift });
    expect(z).toMatchObject({ open_voids: { count: 2, total_cents: 582 + 5084 }, net_sales_cents: 1699 });
    expect(await rig.register.zReport('1', 1)).toEqual(z);
    expect((await rig.register.xReport('1')).open_voids).toEqual({ count: 0, total_cents: 0 });
  });

  it('refuses a Z while the open sale is partly paid', async () => {
    rig = await openRegister();
    const sale = await rig.sale('4002');
    await rig.tender(sale, { type: 'cash', tendered_cents: 1000 });
    const err = await rig.register.zClose('1', { shift: rig.shift }).catch((e: unknown) => e);
    expect(isEngineError(err) && err.code).toBe('sale_in_progress');
    expect((await rig.register.xReport('1')).period).toBe(1);
  });

  it('refuses a Z while a void still owes the customer money, naming the sale and the amount; once settled, the Z carries it all', async () => {
    rig = await openRegister();
    let sale = await rig.sale();
    sale = await rig.register.addLine(sale.id, { shift: rig.shift, open: { description: 'v02', unit_price_cents: 1002, tax_rate: 0 } });
    expect((await rig.tender(sale, { type: 'card' })).sale.status).toBe('paid');
    // The sandbox declines voids of amounts ending in .02: the void stays incomplete.
    const voided = await rig.register.voidSale(sale.id, { shift: rig.shift }, null);
    expect(voided.reversal).toMatchObject({ status: 'incomplete', outstanding_cents: 1002 });
    const err = await rig.register.zClose('1', { shift: rig.shift, close_batch: false }).catch((e: unknown) => e);
    expect(isEngineError(err) && err.code).toBe('reversal_incomplete');
    expect((err as Error).message).toContain(`sale ${sale.number}`);
    expect((err as Error).message).toContain(voided.reversal!.document!);
    expect((err as Error).message).toMatch(/still owes the customer \$10\.02/);
    expect((await rig.register.xReport('1')).period).toBe(1);
    // Given back in cash: the Z closes, with the sale, its void and the cash out on the same report.
    await rig.register.settleReversal(sale.id, 1, { shift: rig.shift, method: 'cash' }, null);
    const z = await rig.register.zClose('1', { shift: rig.shift, close_batch: false });
    expect(z).toMatchObject({ voids: { count: 1, total_cents: 1002 }, net_sales_cents: 0 });
    expect(z.tenders.reduce((n, t) => n + t.net_cents, 0)).toBe(0);
    expect(z.cash).toMatchObject({ out_cents: 1002 });
  });
});
