import { afterEach, describe, expect, it } from 'vitest';
import type { RegisterReport, Sale, Tender } from '../../src/shared/schemas/register';
import { GATEWAY_ERROR_HEADER, readGatewayErrorHeader } from '../../src/shared/error-header';
import { code, openRegister, type RegisterRig } from '../helpers/register';

/**
 * A card payment of a register sale given back outside the register (the back office's Refund on
 * the card transaction, or an ERP through the gateway API) counts on the X and Z of the sale's
 * lane, in the period open when it was made, named as such; the Z's card net then meets the card
 * batches' net (sales less refunds) to the cent, whichever batch carried it.
 */
let rig: RegisterRig;
afterEach(async () => {
  await rig?.close();
});

type Outcome = { sale: Sale; tender: Tender; message: string };
const OUTSIDE = 'Back office or API (outside the register)';

/** Over HTTP: a sale of 4002 ($50.84) paid $30.00 by card and the rest in cash; its card transaction. */
async function cardAndCashSale(api: Awaited<ReturnType<RegisterRig['startApi']>>, shift: string): Promise<{ sale: Sale; card: string }> {
  const started = await api.post<Sale>('/api/pos/sales', { shift, line: { scan: '4002' } });
  expect(started.body.totals.total_cents).toBe(5084);
  const card = await api.post<Outcome>(`/api/pos/sales/${started.body.id}/tenders`, { shift, type: 'card', amount_cents: 3000 });
  expect(card.body.tender.status).toBe('approved');
  const cash = await api.post<Outcome>(`/api/pos/sales/${started.body.id}/tenders`, { shift, type: 'cash', tendered_cents: 2084 });
  expect(cash.body.sale.status).toBe('paid');
  return { sale: cash.body.sale, card: card.body.tender.transaction! };
}

const cardOf = (r: RegisterReport) => r.tenders.find((t) => t.type === 'card');
const outsideCashier = (r: RegisterReport) => r.cashiers.find((c) => c.cashier.name === OUTSIDE);

describe('card refunds of register sales made outside the register, on X and Z', () => {
  it('count on the day they are made, named as such, and the Z card net meets the batch net', async () => {
    rig = await openRegister();
    const api = await rig.startApi();
    const { sale, card } = await cardAndCashSale(api, rig.shift);

    // The back office refunds $12.34 of the card payment: a gateway refund, not a register one.
    const refund = await api.post<{ success: boolean; transaction: string }>('/api/gateway/v1/orders/refund', { transaction: card, amount_cents: 1234 });
    expect(refund.body.success).toBe(true);

    const x = (await api.get<RegisterReport>('/api/pos/registers/1/x')).body;
    expect(x.refunds).toEqual({ count: 1, tax_cents: 0, total_cents: 1234 });
    expect(x.outside).toEqual({ count: 1, total_cents: 1234 });
    expect(x.net_sales_cents).toBe(5084 - 1234);
    expect(cardOf(x)).toMatchObject({ label: 'Visa', in_cents: 3000, out_cents: 1234, net_cents: 3000 - 1234 });
    expect(x.cash.net_cents).toBe(2084);
    expect(outsideCashier(x)).toMatchObject({ refunds_count: 1, refunds_total_cents: 1234, sales_count: 0 });

    const z = (await api.post<RegisterReport>('/api/pos/registers/1/z', { shift: rig.shift })).body;
    expect(z.refunds).toEqual(x.refunds);
    expect(z.net_sales_cents).toBe(x.net_sales_cents);
    expect(z.z!.batches).toEqual([expect.objectContaining({ sales_cents: 3000, refunds_cents: 1234, net_cents: 3000 - 1234 })]);
    expect(z.z!.reconciliation).toEqual({ lane_card_net_cents: 1766, lane_in_batches_cents: 1766, lane_elsewhere_cents: 0, others: [], batch_net_cents: 1766 });

    // After the Z, a second outside refund of the same sale counts on the next period: its own day.
    await api.post('/api/gateway/v1/orders/refund', { transaction: card, amount_cents: 500 });
    // Then the register refunds everything left: what went back outside is not counted again.
    const rest = await api.post<{ reversal: { amount_cents: number; status: string } }>(`/api/pos/sales/${sale.id}/refunds`, { shift: rig.shift, all: true });
    expect(rest.body.reversal).toMatchObject({ status: 'completed', amount_cents: 5084 - 1734 });
    const x2 = (await api.get<RegisterReport>('/api/pos/registers/1/x')).body;
    expect(x2.outside).toEqual({ count: 1, total_cents: 500 });
    expect(x2.refunds.count).toBe(2);
    // Over both periods the sale nets to nothing, tax included.
    expect(z.net_sales_cents + x2.net_sales_cents).toBe(0);
    expect(z.net_tax_cents + x2.net_tax_cents).toBe(0);
    expect(cardOf(x2)).toMatchObject({ in_cents: 0, out_cents: 3000 - 1234, net_cents: -(3000 - 1234) });
    const z2 = (await api.post<RegisterReport>('/api/pos/registers/1/z', { shift: rig.shift })).body;
    expect(z2.z!.reconciliation).toMatchObject({ lane_card_net_cents: -1766, lane_in_batches_cents: -1766, lane_elsewhere_cents: 0, others: [] });
    expect(z2.z!.reconciliation!.batch_net_cents).toBe(-1766);
  });

  it("a tipped card payment: an outside refund comes off the sale's part, the register refunds only the rest, and the tip stays", async () => {
    rig = await openRegister();
    rig.terminal.tipPercent = 10;
    const api = await rig.startApi();
    const sale = await rig.sale('4002'); // 5084; tip 508
    const paid = await rig.tender(sale, { type: 'card' });
    expect(paid.tender).toMatchObject({ amount_cents: 5084, tip_cents: 508 });
    // The back office refunds $5.00, less than the tip.
    expect((await api.post<{ success: boolean }>('/api/gateway/v1/orders/refund', { transaction: paid.tender.transaction, amount_cents: 500 })).body.success).toBe(true);
    const rest = await api.post<{ reversal: { amount_cents: number; status: string } }>(`/api/pos/sales/${sale.id}/refunds`, { shift: rig.shift, all: true });
    expect(rest.body.reversal).toMatchObject({ status: 'completed', amount_cents: 5084 - 500 });
    // The card got back the sale, not its tip; the sale nets to nothing and the tax table agrees.
    expect((await rig.t.engine.gateway.record(paid.tender.transaction!))!.refunded_cents).toBe(5084);
    const x = (await api.get<RegisterReport>('/api/pos/registers/1/x')).body;
    expect(x.net_sales_cents).toBe(0);
    expect(x.net_sales_cents).toBe(x.taxes.reduce((sum, t) => sum + t.taxable_cents + t.tax_cents, 0));
    expect(cardOf(x)).toMatchObject({ in_cents: 5084, out_cents: 5084, tip_cents: 508, net_cents: 508 });
    // Money beyond the sale's part, given back outside, is the tip's, not a refund of sales.
    expect((await api.post<{ success: boolean }>('/api/gateway/v1/orders/refund', { transaction: paid.tender.transaction, amount_cents: 508 })).body.success).toBe(true);
    const after = (await api.get<RegisterReport>('/api/pos/registers/1/x')).body;
    expect(after.net_sales_cents).toBe(0);
    expect(after.refunds.total_cents).toBe(x.refunds.total_cents);
  });

  it('a batch closed earlier at the cut-off: "in earlier batches" is that batch\'s net, sales less refunds', async () => {
    rig = await openRegister();
    const api = await rig.startApi();
    const { card } = await cardAndCashSale(api, rig.shift);
    await api.post('/api/gateway/v1/orders/refund', { transaction: card, amount_cents: 1234 });
    rig.t.clock.set('2026-03-02T23:00:01Z'); // the account's cut-off closes the day's batch
    await rig.t.engine.tick();
    const batch = (await rig.t.engine.gateway.view(card))!.settlement.batch!;
    expect(await rig.t.engine.gateway.settlement.batch(batch)).toMatchObject({ sales_cents: 3000, refunds_cents: 1234, batch_net_amount_cents: 1766 });

    const z = (await api.post<RegisterReport>('/api/pos/registers/1/z', { shift: rig.shift })).body;
    expect(z.outside).toEqual({ count: 1, total_cents: 1234 });
    expect(z.z!.reconciliation).toMatchObject({ lane_card_net_cents: 1766, lane_elsewhere_cents: 1766, lane_in_batches_cents: 0 });
    // The reprint reads the same.
    expect((await api.get<RegisterReport>(`/api/pos/registers/1/z/${z.z!.number}`)).body.outside).toEqual(z.outside);
  });
});

describe('a card payment of a sale still open at the register', () => {
  it('is neither voided nor refunded outside the register (nothing moves); once the sale is paid it may be refunded there', async () => {
    rig = await openRegister();
    rig.terminal.tipPercent = 20;
    const api = await rig.startApi();
    const sale = await rig.sale('4002'); // 5084
    const card = await rig.tender(sale, { type: 'card', amount_cents: 1000 });
    expect(card.tender).toMatchObject({ status: 'approved', amount_cents: 1000, tip_cents: 200 });
    const token = card.tender.transaction!;

    type Refused = { success?: boolean; errors: string[] };
    const voided = await api.post<Refused>('/api/gateway/v1/orders/void', { transaction: token, amount_cents: 1200 });
    expect(voided.body.errors).toEqual(['register_sale_open']);
    // The engine's words, in the gateway error header: the sale, and where to give the payment back.
    const words = readGatewayErrorHeader(voided.headers.get(GATEWAY_ERROR_HEADER));
    expect(words?.error).toContain(`sale ${sale.number}`);
    expect(words?.error).toMatch(/Void the sale at the register/);
    const refunded = await api.post<Refused>('/api/gateway/v1/orders/refund', { transaction: token, amount_cents: 500 });
    expect(refunded.body.errors).toEqual(['register_sale_open']);
    // The back office's path (the engine's gateway) is refused the same way.
    expect(await code(rig.t.engine.gateway.transact('refund', { transaction: token }, 'backoffice'))).toBe('register_sale_open');
    expect(await rig.t.engine.gateway.record(token)).toMatchObject({ state: expect.not.stringMatching(/cancelled/), refunded_cents: 0 });

    // Nothing moved: the sale still owes its balance, and cash pays what is left, not more.
    const cash = await rig.tender((await rig.register.sale(sale.id)), { type: 'cash', tendered_cents: 4084 });
    expect(cash.sale).toMatchObject({ status: 'paid', totals: { paid_cents: 5084 } });
    const x = (await api.get<RegisterReport>('/api/pos/registers/1/x')).body;
    expect(x.outside).toEqual({ count: 0, total_cents: 0 });

    // Paid: a refund outside the register is allowed, and counted apart.
    expect((await api.post<{ success: boolean }>('/api/gateway/v1/orders/refund', { transaction: token, amount_cents: 500 })).body.success).toBe(true);
    expect((await api.get<RegisterReport>('/api/pos/registers/1/x')).body.outside).toEqual({ count: 1, total_cents: 500 });
  });

  it("the register's own void of the open sale still gives the card payment back", async () => {
    rig = await openRegister();
    const sale = await rig.sale('4002');
    const card = await rig.tender(sale, { type: 'card', amount_cents: 1000 });
    const voided = await rig.register.voidSale(sale.id, { shift: rig.shift }, null);
    expect(voided.reversal).toMatchObject({ status: 'completed', allocations: [{ method: 'void', status: 'done' }] });
    expect(await rig.t.engine.gateway.record(card.tender.transaction!)).toMatchObject({ state: 'cancelled' });
  });
});
