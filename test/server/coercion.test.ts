import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness, type TestEngine, type ApiClient } from '../helpers/harness';

/**
 * Request bodies are coerced to their schemas the way the reference takes them (src/server/coercion.ts),
 * on every route, over real HTTP: numbers where strings are expected, digit strings where numbers are,
 * "true"/"false" for flags; anything ambiguous is still refused.
 */
const h = useHarness({ api: true });
let t: TestEngine;
let api: ApiClient;
beforeAll(() => {
  ({ t, api } = h);
});

type ErrorBody = { code: string; details?: Array<{ field: string }> };
type OrderView = { number: string | null; billing_postalcode: string | null; billing_telephone: string | null; draft: boolean; amount_cents: number | null };

describe('body coercion', () => {
  it('takes JSON numbers where strings are expected, in an order import and a gateway request', async () => {
    const res = await api.post('/api/imports/order', { identifier: 'CO-1', number: 12345, billing_postalcode: 80803, billing_telephone: 5555555555, amount_cents: '500', draft: 'true' });
    expect(res.status).toBe(201);
    const view = await api.get<OrderView>('/api/exports/order/CO-1');
    expect(view.body).toMatchObject({ number: '12345', billing_postalcode: '80803', billing_telephone: '5555555555', amount_cents: 500, draft: true });

    const sale = await api.post<{ success: boolean; transactions: Array<{ avs_response: string; cvv_response: string }> }>('/api/gateway/v1/orders/verify', {
      credit_card: { name: 'Longbob Longsen', expiry_month: 12, expiry_year: '2030', card_number: '4895281000000006', cvv: 234, address: { address_1: '234 Elm Street', postal_code: 80809, country: 'USA' } },
    });
    expect(sale.status).toBe(200);
    expect(sale.body.success).toBe(true);
    expect(sale.body.transactions[0]).toMatchObject({ avs_response: 'Y', cvv_response: 'M' });
  });

  it('takes digit strings where integers are expected and "true"/"false" where booleans are', async () => {
    const res = await api.patch<{ authorization_hold_days: number; capabilities: Record<string, boolean> }>('/api/account', { authorization_hold_days: '5', capabilities: { discounts: 'true' } });
    expect(res.status).toBe(200);
    expect(res.body.authorization_hold_days).toBe(5);
    expect(res.body.capabilities.discounts).toBe(true);
  });

  it('takes null for an optional field as not sent, as generated clients send unset fields; a required field sent as null is still refused', async () => {
    const before = (await api.get<{ authorization_hold_days: number; capabilities: Record<string, boolean> }>('/api/account')).body;
    const patched = await api.patch<{ authorization_hold_days: number; capabilities: Record<string, boolean> }>('/api/account', { authorization_hold_days: null, capabilities: { discounts: null } });
    expect(patched.status).toBe(200);
    expect([patched.body.authorization_hold_days, patched.body.capabilities.discounts]).toEqual([before.authorization_hold_days, before.capabilities.discounts]);
    const verify = await api.post<{ success: boolean }>('/api/gateway/v1/orders/verify', {
      amount_cents: null,
      transaction_reference: null,
      credit_card: { name: 'Longbob Longsen', expiry_month: 12, expiry_year: 2030, card_number: '4895281000000006', cvv: '234', address: { address_1: '234 Elm Street', address_2: null, postal_code: '80809', country: null } },
    });
    expect([verify.status, verify.body.success]).toEqual([200, true]);
    const missing = await api.post<ErrorBody>('/api/notifications/direct_message', { email: null, object_type: 'invoice', object_identifier: 'INV-1', first_name: null });
    expect(missing.status).toBe(400);
    expect(missing.body.details?.map((d) => d.field)).toEqual(['email']);
  });

  it('still refuses what is not unambiguous, naming the field, and writes nothing', async () => {
    const before = t.engine.core.currentWatermark();
    const cases: Array<[string, 'patch' | 'post', Record<string, unknown>, string]> = [
      ['/api/account', 'patch', { authorization_hold_days: '5 ' }, 'authorization_hold_days'],
      ['/api/account', 'patch', { authorization_hold_days: '5.0' }, 'authorization_hold_days'],
      ['/api/account', 'patch', { authorization_hold_days: '1e1' }, 'authorization_hold_days'],
      ['/api/account', 'patch', { authorization_hold_days: true }, 'authorization_hold_days'],
      ['/api/account', 'patch', { authorization_hold_days: '30' }, 'authorization_hold_days'],
      ['/api/account', 'patch', { capabilities: { discounts: 'yes' } }, 'capabilities.discounts'],
      ['/api/account', 'patch', { capabilities: { discounts: 1 } }, 'capabilities.discounts'],
      ['/api/account', 'patch', { processing_cutoff: 1700 }, 'processing_cutoff'],
      ['/api/imports/order', 'post', { identifier: 'CO-2', amount_cents: '5.5' }, 'amount_cents'],
      ['/api/imports/order', 'post', { identifier: 'CO-2', billing_postalcode: 1e30 }, 'billing_postalcode'],
      ['/api/imports/order', 'post', { identifier: 'CO-2', billing_postalcode: { zip: 80803 } }, 'billing_postalcode'],
      ['/api/imports/order', 'post', { identifier: 'CO-2', draft: 'no' }, 'draft'],
    ];
    for (const [path, method, body, field] of cases) {
      const res = await api[method]<ErrorBody>(path, body);
      const label = `${path} ${JSON.stringify(body)}`;
      expect([400, 412], label).toContain(res.status);
      expect(res.body.code, label).toBe('validation_failed');
      expect(res.body.details?.some((d) => d.field === field), `${label}: ${JSON.stringify(res.body.details)}`).toBe(true);
    }
    expect(t.engine.core.currentWatermark()).toBe(before);
  });
});

describe('query flags', () => {
  it('reads list=1 and list=0 as the flags they mean, as list=true and list=false are, and still refuses other words', async () => {
    await api.post('/api/imports/customer', { identifier: 'QF-1', name: 'Query Flags Ltd' });
    await api.post('/api/imports/invoice', { number: 'QF-INV-1', customer_identifier: 'QF-1', amount: 1_000, date: '2026-03-01', due_date: '2026-03-31' });
    const flat = await api.get<unknown>('/api/exports/invoices?list=1');
    expect(flat.status).toBe(200);
    expect(flat.body).toEqual((await api.get<unknown>('/api/exports/invoices?list=true')).body);
    const paged = await api.get<unknown>('/api/exports/invoices?list=0');
    expect(paged.body).toEqual((await api.get<unknown>('/api/exports/invoices?list=false')).body);
    expect(paged.body).not.toEqual(flat.body);
    const nested = await api.get<{ payments?: unknown }>('/api/exports/invoice/QF-INV-1?options[payments]=1');
    expect(nested.status).toBe(200);
    expect(nested.body.payments).toBeDefined();
    // Python's requests writes True and False; a flag without a value is its default.
    expect((await api.get<unknown>('/api/exports/invoices?list=True')).body).toEqual(flat.body);
    expect((await api.get<unknown>('/api/exports/invoices?list=FALSE')).body).toEqual(paged.body);
    expect((await api.get<unknown>('/api/exports/invoices?list=')).body).toEqual(paged.body);
    const bad = await api.get<ErrorBody>('/api/exports/invoices?list=maybe');
    expect([bad.status, bad.body.code]).toEqual([400, 'validation_failed']);
  });
});
