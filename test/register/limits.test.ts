import { afterEach, describe, expect, it } from 'vitest';
import type { Sale } from '../../src/shared/schemas/register';
import { MAX_PRICE_CENTS, MAX_TENDER_CENTS } from '../../src/shared/schemas/register-common';
import { openRegister, type RegisterRig } from '../helpers/register';

let rig: RegisterRig;
afterEach(async () => {
  await rig?.close();
});

type Refusal = { code: string; error: string; details?: Array<{ field?: string; message: string }> };
const spaces = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

/**
 * The register's limits (shared/schemas/register-common.ts) said to the cashier in money written
 * as the screen writes it (Accept-Language), not in cents under a field's path; a sale no single
 * tender could take is refused when the line that takes it there is rung up.
 */
describe('register limits, said in money', () => {
  it('refuses a price, a discount and cash past the limits in the request\'s locale (en-US, en-IN, de-DE)', async () => {
    rig = await openRegister();
    const api = await rig.startApi();
    const sale = await rig.sale('1003');
    const line = sale.lines[0]!.line;
    const post = (path: string, body: unknown, locale: string) => api.request<Refusal>('POST', path, { body, headers: { 'Accept-Language': locale } });
    const patch = (body: unknown, locale: string) => api.request<Refusal>('PATCH', `/api/pos/sales/${sale.id}/lines/${line}`, { body, headers: { 'Accept-Language': locale } });
    const cases: Array<[string, string, string]> = [
      ['en-US', '$99,999.99', '$9,999,999.99'],
      ['en-IN', '$99,999.99', '$99,99,999.99'],
      ['de-DE', '99.999,99 $', '9.999.999,99 $'],
    ];
    expect(MAX_PRICE_CENTS).toBe(9_999_999);
    for (const [locale, price, cash] of cases) {
      const open = await post(`/api/pos/sales/${sale.id}/lines`, { shift: rig.shift, open: { description: 'Too dear', unit_price_cents: 1_234_567_89 } }, locale);
      expect(open.status, locale).toBe(400);
      expect(spaces(open.body.error), locale).toBe(`A price is at most ${price}`);
      expect(open.body.details?.[0]?.field).toBe('open.unit_price_cents');
      const override = await patch({ shift: rig.shift, price_override: { unit_price_cents: 10_000_000, reason: 'Price match' } }, locale);
      expect(spaces(override.body.error), locale).toBe(`A price is at most ${price}`);
      const discount = await patch({ shift: rig.shift, discount: { amount_cents: 10_000_000 } }, locale);
      expect(spaces(discount.body.error), locale).toBe(`A discount is at most ${price}`);
      const given = await post(`/api/pos/sales/${sale.id}/tenders`, { shift: rig.shift, type: 'cash', tendered_cents: MAX_TENDER_CENTS + 1 }, locale);
      expect(spaces(given.body.error), locale).toBe(`Cash handed over is at most ${cash}`);
    }
  });

  it('names a discount past the line\'s amount in money, not cents', async () => {
    rig = await openRegister();
    const api = await rig.startApi();
    const sale = await rig.sale('1003'); // Latte 4.95
    const line = sale.lines[0]!.line;
    const said = async (locale: string) =>
      spaces((await api.request<Refusal>('PATCH', `/api/pos/sales/${sale.id}/lines/${line}`, { body: { shift: rig.shift, discount: { amount_cents: 100_000 } }, headers: { 'Accept-Language': locale } })).body.error);
    expect(await said('en-US')).toBe("The discount ($1,000.00) is more than the line's amount ($4.95)");
    expect(await said('de-DE')).toBe("The discount (1.000,00 $) is more than the line's amount (4,95 $)");
  });

  it('refuses the line that would take a sale past what one tender takes, and never suggests cash past it', async () => {
    rig = await openRegister();
    const api = await rig.startApi();
    let sale = await rig.sale();
    // 999 × 99,999.99 at the default 13%: far past 9,999,999.99, refused as it is rung up; nothing added.
    const big = await api.request<Refusal>('POST', `/api/pos/sales/${sale.id}/lines`, { body: { shift: rig.shift, quantity: 999, open: { description: 'Typo', unit_price_cents: MAX_PRICE_CENTS } }, headers: { 'Accept-Language': 'en-IN' } });
    expect(big.status).toBe(400);
    expect(big.body.code).toBe('sale_too_large');
    expect(spaces(big.body.error)).toBe('This would bring the sale to $11,28,86,988.71, more than one payment takes (at most $99,99,999.99). Check the quantity and the price, or ring the rest up as another sale.');
    expect((await rig.register.sale(sale.id)).lines).toHaveLength(0);
    // Just under: 88 × 99,999.99 + 13% = 9,943,999.01; raising the quantity past it is refused too.
    sale = await rig.register.addLine(sale.id, { shift: rig.shift, quantity: 88, open: { description: 'Bulk', unit_price_cents: MAX_PRICE_CENTS } });
    expect(sale.totals.total_cents).toBeLessThanOrEqual(MAX_TENDER_CENTS);
    const more = await api.request<Refusal>('PATCH', `/api/pos/sales/${sale.id}/lines/${sale.lines[0]!.line}`, { body: { shift: rig.shift, quantity: 89 } });
    expect(more.body.code).toBe('sale_too_large');
    // Every quick-cash button is an amount the server takes, and paying it closes the sale.
    expect(sale.allowed.cash_suggestions.length).toBeGreaterThan(0);
    expect(Math.max(...sale.allowed.cash_suggestions)).toBeLessThanOrEqual(MAX_TENDER_CENTS);
    const last = sale.allowed.cash_suggestions.at(-1)!;
    const paid = await api.request<{ sale: Sale }>('POST', `/api/pos/sales/${sale.id}/tenders`, { body: { shift: rig.shift, type: 'cash', tendered_cents: last, confirm_change: true } });
    expect(paid.status).toBe(200);
    expect(paid.body.sale.status).toBe('paid');
  });
});
