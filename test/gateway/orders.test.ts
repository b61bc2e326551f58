import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { card, op, startGateway, type Harness } from '../helpers/gateway';
import { referenceKeys } from '../helpers/reference-check';

let h: Harness;
beforeEach(async () => {
  h = await startGateway();
});
afterEach(async () => {
  await h.close();
});

type OrderBody = Record<string, unknown> & { identifier: string; watermark: number; draft: boolean; order_items: Array<Record<string, unknown>>; transactions: Array<{ token: string; action: string }> };
type ImportBody = { message: string; identifier: string; order: OrderBody };
type ErrorBody = { error: string; code: string };

const ORDER = {
  identifier: 'ABCDF',
  number: 'sh763-h3454-dh3432',
  amount_cents: 20000,
  currency: 'cad',
  date: '2020-11-01',
  shipping_name: 'Acme Inc.',
  shipping_country: 'USA',
  billing_name: 'Acme Inc.',
  billing_country: 'USA',
  order_att1: 'att1value1',
  customer_identifier: '123',
  draft: false,
  L3_po_number: 'PO12345',
  L3_ship_from_country: 'US',
  attributes: { ecommerce_indicator: 'true' },
  order_items: [
    { number: '1', amount_cents: 10000, description: 'description', quantity: 1, unit_cost_cents: 10000, tax_amount_cents: 100, discount_amount_cents: 0, orderitem_attr1: '1111111' },
    { number: 2, amount_cents: '20000', quantity: '1.5', L3_unit_of_measure: 'EA' },
  ],
};

describe('order imports', () => {
  it('creates an order with items, L3 fields and extended attributes (201), and shows it', async () => {
    const res = await h.api.post<ImportBody>('/api/imports/order', ORDER);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ message: '1 order 2 order item(s)', identifier: 'ABCDF' });
    expect(res.body.order).toMatchObject({ identifier: 'ABCDF', currency: 'cad', amount_cents: 20000, draft: false, order_att1: 'att1value1', L3_po_number: 'PO12345', L3_ship_from_country: 'US' });
    expect(res.body.order.order_items[1]).toMatchObject({ number: '2', amount_cents: 20000, quantity: 1.5, L3_unit_of_measure: 'EA' });
    expect(res.body.order.order_items[0]).toMatchObject({ orderitem_attr1: '1111111' });
    // Every field of the reference's order item, the L3 ones null where the import sent none (as
    // the order's own L3 fields are).
    const itemFields = referenceKeys('OrderItem');
    const itemL3 = itemFields.filter((k) => k.startsWith('L3_'));
    expect(itemL3).toEqual(['L3_commodity_code', 'L3_unit_of_measure', 'L3_discount_amount', 'L3_tax_amount', 'L3_product_code']);
    const l3 = { L3_commodity_code: '12345678', L3_unit_of_measure: 'EA', L3_discount_amount: '1.00', L3_tax_amount: '0.50', L3_product_code: 'SKU-001' };
    const third = await h.api.patch<ImportBody>('/api/imports/order', { identifier: 'ABCDF', order_items: [...ORDER.order_items, { number: '3', amount_cents: 0, ...l3 }] });
    expect(third.status).toBe(201);
    const views = [third.body.order];
    for (const path of ['/api/exports/order/ABCDF', '/api/gateway/v1/orders/ABCDF']) {
      const view = await h.api.get<OrderBody>(path);
      expect(view.status, path).toBe(200);
      expect(view.body.order_items).toHaveLength(3);
      views.push(view.body);
    }
    views.push((await h.api.get<{ orders: OrderBody[] }>('/api/exports/orders?list=true')).body.orders.find((o) => o.identifier === 'ABCDF')!);
    for (const order of views) {
      for (const item of order.order_items) expect(itemFields.filter((k) => !(k in item))).toEqual([]);
      expect(order.order_items.map((i) => itemL3.map((k) => i[k]))).toEqual([
        [null, null, null, null, null],
        [null, 'EA', null, null, null],
        Object.values(l3),
      ]);
    }
    expect((await h.api.get<ErrorBody>('/api/exports/order/NOPE')).status).toBe(404);
  });

  it('generates an identifier when absent', async () => {
    const res = await h.api.post<ImportBody>('/api/imports/order', { number: 'X1', amount_cents: 100 });
    expect(res.status).toBe(201);
    expect(res.body.identifier).toMatch(/^[A-Z0-9]{8,}$/);
    expect((await h.api.get<OrderBody>(`/api/exports/order/${res.body.identifier}`)).body.number).toBe('X1');
  });

  it('answers 412 for invalid input, an existing identifier with other content, and an unknown order on PATCH; a retried POST is answered again', async () => {
    const before = h.t.engine.core.currentWatermark();
    const bad = await h.api.post<ErrorBody>('/api/imports/order', { amount_cents: 'lots' });
    expect(bad.status).toBe(412);
    expect(bad.body.code).toBe('validation_failed');
    const token = await h.api.post<ErrorBody>('/api/imports/order', { identifier: 'W2', settlement_token: 'MA000' });
    expect(token.body.code).toBe('settlement_token_not_found');
    // Three letters that are no currency: refused as an invoice's are.
    const currency = await h.api.post<ErrorBody>('/api/imports/order', { identifier: 'W3', amount_cents: 100, currency: 'XYZ' });
    expect([currency.status, currency.body.code]).toEqual([412, 'invalid_currency']);
    const patchUnknown = await h.api.patch<ErrorBody>('/api/imports/order', { identifier: 'NOPE', number: '1' });
    expect(patchUnknown.status).toBe(412);
    expect(patchUnknown.body.code).toBe('order_not_found');
    expect(h.t.engine.core.currentWatermark()).toBe(before);

    const first = await h.api.post<ImportBody>('/api/imports/order', ORDER);
    const retry = await h.api.post<ImportBody>('/api/imports/order', ORDER);
    expect(retry.status).toBe(201);
    expect(retry.body.order.watermark).toBe(first.body.order.watermark);
    const clash = await h.api.post<ErrorBody>('/api/imports/order', { ...ORDER, number: 'other' });
    expect(clash.status).toBe(412);
    expect(clash.body.code).toBe('order_exists');
    const noAuth = await h.api.post('/api/imports/order', ORDER, null);
    expect(noAuth.status).toBe(401);
  });

  it('PATCH updates given fields, replaces items, and a published order cannot go back to draft', async () => {
    await h.api.post('/api/imports/order', { ...ORDER, draft: true });
    const res = await h.api.patch<ImportBody>('/api/imports/order', { identifier: 'ABCDF', number: 'N2', order_items: [{ number: '9', amount_cents: 5 }], draft: false });
    expect(res.status).toBe(201);
    expect(res.body.order).toMatchObject({ number: 'N2', draft: false, billing_name: 'Acme Inc.', order_att1: 'att1value1' });
    expect(res.body.order.order_items).toEqual([expect.objectContaining({ number: '9', amount_cents: 5 })]);
    const back = await h.api.patch<ErrorBody>('/api/imports/order', { identifier: 'ABCDF', draft: true });
    expect(back.status).toBe(412);
    expect(back.body.code).toBe('order_published');
  });
});

describe('an order read and sent back', () => {
  const reference = JSON.parse(readFileSync('/work/shared/spec/reference/api-reference-1.3.35.openapi.json', 'utf8')) as { components: { schemas: { Order: { example: Record<string, unknown> } } } };

  it("takes the reference's Order example as written (watermark and transactions accepted and ignored), and a GET's body back on PATCH and POST", async () => {
    const example = reference.components.schemas.Order.example;
    expect(example).toMatchObject({ watermark: 1, transactions: [] });
    const created = await h.api.post<ImportBody>('/api/imports/order', example);
    expect(created.status).toBe(201);
    expect(created.body.order).toMatchObject({ identifier: 'ABCDF', order_att1: 'att1value1', transactions: [] });
    expect(created.body.order.watermark).not.toBe(1);

    const read = (await h.api.get<OrderBody>('/api/exports/order/ABCDF')).body;
    expect(read).toHaveProperty('created_at');
    const retried = await h.api.post<ImportBody>('/api/imports/order', read);
    expect(retried.status).toBe(201);
    expect(retried.body.order.watermark).toBe(read.watermark);

    const sent = { watermark: 1, created_at: '1999-01-01T00:00:00Z', updated_at: '1999-01-02T00:00:00Z' };
    const edited = await h.api.patch<ImportBody>('/api/imports/order', { ...read, ...sent, number: 'EDITED' });
    expect(edited.status).toBe(201);
    expect(edited.body.order).toMatchObject({ number: 'EDITED', created_at: read.created_at, order_att1: 'att1value1', transactions: [] });
    expect(edited.body.order.watermark).toBeGreaterThan(read.watermark);
    // Ignored, not kept as extended attributes: the published export's attribute filter finds none of them.
    for (const [key, value] of Object.entries(sent)) {
      const found = await h.api.get<{ orders: OrderBody[] }>(`/api/exports/orders/published?list=true&options[extended_attributes][${key}]=${encodeURIComponent(String(value))}`);
      expect(found.body.orders, key).toEqual([]);
    }
  });

  it('takes back an order whose transactions list is not empty, leaving its transactions as they are', async () => {
    const sale = await op(h.api, 'sale', { amount_cents: 500, currency: 'USD', order: { identifier: 'WEB-9', number: 'n-1', amount_cents: 500, draft: false }, credit_card: card() });
    expect(sale.body.order).toBe('WEB-9');
    const read = (await h.api.get<OrderBody>('/api/exports/order/WEB-9')).body;
    expect(read.transactions).toHaveLength(1);
    const edited = await h.api.patch<ImportBody>('/api/imports/order', { ...read, number: 'n-2', transactions: [] });
    expect(edited.status).toBe(201);
    expect(edited.body.order.number).toBe('n-2');
    expect(edited.body.order.transactions.map((t) => t.token)).toEqual(read.transactions.map((t) => t.token));
    expect((await h.api.patch<ImportBody>('/api/imports/order', { ...edited.body.order, number: 'n-3' })).status).toBe(201);
  });
});

describe('order exports', () => {
  it('exports orders since a watermark, and published orders filtered by extended attributes', async () => {
    await h.api.post('/api/imports/order', { identifier: 'O1', attributes: { ecommerce_indicator: 'true' } });
    await h.api.post('/api/imports/order', { identifier: 'O2', draft: true, attributes: { ecommerce_indicator: 'true' } });
    await h.api.post('/api/imports/order', { identifier: 'O3', order_att1: 'x', attributes: { ecommerce_indicator: 'false' } });
    await h.api.post('/api/imports/order', { identifier: 'O4', order_att1: 'x' });

    const all = await h.api.get<{ orders: Record<string, OrderBody> }>('/api/exports/orders');
    const keys = Object.keys(all.body.orders);
    expect(keys.map((k) => all.body.orders[k]!.identifier)).toEqual(['O1', 'O2', 'O3', 'O4']);
    expect(keys.every((k) => Number(k) === all.body.orders[k]!.watermark)).toBe(true);
    const after = await h.api.get<{ orders: OrderBody[] }>(`/api/exports/orders?list=true&watermark=${keys[1]}&limit=1`);
    expect(after.body.orders.map((o) => o.identifier)).toEqual(['O3']);

    const published = await h.api.get<{ orders: OrderBody[] }>('/api/exports/orders/published?list=true');
    expect(published.body.orders.map((o) => o.identifier)).toEqual(['O1', 'O3', 'O4']);
    const filtered = await h.api.get<{ orders: OrderBody[] }>('/api/exports/orders/published?list=true&options[extended_attributes][ecommerce_indicator]=true');
    expect(filtered.body.orders.map((o) => o.identifier)).toEqual(['O1']);
    const extra = await h.api.get<{ orders: OrderBody[] }>('/api/exports/orders/published?list=true&limit=1&options[extended_attributes][order_att1]=x');
    expect(extra.body.orders.map((o) => o.identifier)).toEqual(['O3']);
  });

  it('shows the order\'s transactions, and gateway requests create or update their order', async () => {
    const sale = await op(h.api, 'sale', { amount_cents: '500', currency: 'USD', order: { identifier: 'WEB-1', number: 'n-1', amount_cents: '500', billing_name: 'Widgets Inc', draft: false }, credit_card: card() });
    expect(sale.body.order).toBe('WEB-1');
    await op(h.api, 'sale', { amount_cents: 700, order: { identifier: 'WEB-1', number: 'n-2' }, fund_token: sale.body.credit_card });
    const view = await h.api.get<OrderBody>('/api/exports/order/WEB-1');
    expect(view.body).toMatchObject({ number: 'n-2', amount_cents: 500, currency: 'usd', billing_name: 'Widgets Inc' });
    expect(view.body.transactions.map((t) => t.action)).toEqual(['sale', 'sale']);
    const byToken = await op(h.api, 'refund', { transaction: sale.body.transaction, amount_cents: 100 });
    expect(byToken.body.order).toBe('WEB-1');
    const existing = await op(h.api, 'sale', { amount_cents: 300, order: 'WEB-1', fund_token: sale.body.credit_card });
    expect(existing.body.order).toBe('WEB-1');
    const mismatch = await op<{ errors: string[] }>(h.api, 'sale', { amount_cents: 300, currency: 'CAD', order: { identifier: 'WEB-2', currency: 'USD' }, fund_token: sale.body.credit_card });
    expect(mismatch.body.errors).toEqual(['currency_mismatch']);
  });
});
