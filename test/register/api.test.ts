import { afterEach, describe, expect, it } from 'vitest';
import type { Register, RegisterReport, Receipt, Sale, Shift, Tender } from '../../src/shared/schemas/register';
import { openRegister, AMEX, type RegisterRig } from '../helpers/register';

let rig: RegisterRig;
afterEach(async () => {
  await rig?.close();
});

type Outcome = { sale: Sale; tender: Tender; message: string };

describe('/api/pos over HTTP (every answer checked against the OpenAPI document)', () => {
  it('signs a cashier in, rings up, pays by card with a signature, prints the receipt, and reports', async () => {
    rig = await openRegister();
    const api = await rig.startApi();
    rig.terminal.pan = AMEX;
    rig.terminal.cvm = 'signature';
    rig.terminal.signature = { mediaType: 'image/svg+xml', data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64') };

    expect((await api.post('/api/pos/shifts', { laneid: '1', code: '00000000' })).status).toBe(403);
    const signIn = await api.post<Shift>('/api/pos/shifts', { laneid: '1', code: rig.code });
    expect(signIn.status).toBe(201);
    const shift = signIn.body.id;
    const reg = await api.get<Register>('/api/pos/registers/1');
    expect(reg.body).toMatchObject({ laneid: '1', lane: { name: 'Front counter' }, signed_in: { cashier: 'Sam Rivera' }, open_sale: null, currency: 'usd' });
    expect(JSON.stringify(reg.body)).not.toContain(shift);

    const started = await api.post<Sale>('/api/pos/sales', { shift, line: { scan: '0629110050011' } });
    expect(started.status).toBe(201);
    const resumed = await api.post<Sale>('/api/pos/sales', { shift });
    expect(resumed.status).toBe(200);
    expect(resumed.body.id).toBe(started.body.id);
    const id = started.body.id;
    const added = await api.post<Sale>(`/api/pos/sales/${id}/lines`, { shift, scan: '2*5002' });
    expect(added.body.lines).toHaveLength(2);
    const changed = await api.patch<Sale>(`/api/pos/sales/${id}/lines/2`, { shift, discount: { amount_cents: 100, reason: 'Loyalty' } });
    expect(changed.body.lines[1]).toMatchObject({ discount_cents: 100, net_cents: 498 });
    expect((await api.patch(`/api/pos/sales/${id}/lines/2`, { shift, discount: { percent: 5, amount_cents: 10 } })).status).toBe(400);
    expect((await api.post(`/api/pos/sales/${id}/lines`, { shift: 'NOSUCHSHIFT', scan: '1001' })).status).toBe(403);
    expect((await api.post(`/api/pos/sales/${id}/lines`, { shift, scan: '123' })).status).toBe(404);

    const paid = await api.post<Outcome>(`/api/pos/sales/${id}/tenders`, { shift, type: 'card' });
    expect(paid.body.tender).toMatchObject({ status: 'approved', label: 'Amex •••• 2000', card: { signature: true, cardholder_verification: 'signature' } });
    expect(paid.body.sale.status).toBe('paid');
    expect((await api.post(`/api/pos/sales/${id}/tenders`, { shift, type: 'cash' })).status).toBe(412);

    const receipt = await api.get<Receipt>(`/api/pos/sales/${started.body.number}/receipt`);
    expect(receipt.body).toMatchObject({ kind: 'sale', merchant: 'Laneway Sandbox Store', lane: 'Front counter', cashier: 'Sam Rivera', number: started.body.number, copy: false });
    expect(receipt.body.tenders[0]).toMatchObject({ card: { aid: 'A0000000031010', application_label: 'VISA CREDIT', tvr: '0000008000', tsi: 'E800' }, signature: { media_type: 'image/svg+xml' } });
    expect(receipt.body.taxes).toEqual([{ mark: 'C', tax_rate: 13, taxable_cents: 1495 + 498, tax_cents: 194 + 65 }]);
    expect(receipt.body.lines.map((l) => l.notes)).toEqual([[], ['2 @ $2.99', 'Discount (Loyalty): −$1.00']]);
    // A screen in fr-CA reads the amounts in the notes its way, as it reads every other amount.
    const fr = await api.request<Receipt>('GET', `/api/pos/sales/${started.body.number}/receipt`, { headers: { 'Accept-Language': 'fr-CA,fr;q=0.9' } });
    expect(fr.body.lines.map((l) => l.notes.map((n) => n.replace(/[\u00a0\u202f]/g, ' ')))).toEqual([[], ['2 @ 2,99 $ US', 'Discount (Loyalty): −1,00 $ US']]);
    expect((await api.get<Receipt>(`/api/pos/sales/${id}/receipt?copy=true`)).body.copy).toBe(true);

    const refund = await api.post<{ sale: Sale; reversal: { number: number; status: string } }>(`/api/pos/sales/${id}/refunds`, { shift, lines: [{ line: 1, quantity: 1 }] });
    expect(refund.body.reversal).toMatchObject({ number: 1, status: 'completed' });
    const refundReceipt = await api.get<Receipt>(`/api/pos/sales/${id}/receipt?reversal=1`);
    expect(refundReceipt.body).toMatchObject({ kind: 'refund', number: '1-R000001', sale_number: started.body.number, total_cents: -1689, tenders: [{ method: 'refund', amount_cents: -1689 }] });
    expect((await api.get(`/api/pos/sales/${id}/receipt?reversal=9`)).status).toBe(404);

    const recent = await api.get<{ sales: Sale[] }>('/api/pos/sales?laneid=1');
    expect(recent.body.sales.map((s) => s.id)).toEqual([id]);
    const x = await api.get<RegisterReport>('/api/pos/registers/1/x');
    expect(x.body).toMatchObject({ sales: { count: 1 }, refunds: { count: 1, total_cents: 1689 } });
    const z = await api.post<RegisterReport>('/api/pos/registers/1/z', { shift });
    expect(z.status).toBe(201);
    expect(z.body.z).toMatchObject({ number: 1, batch_closed: true });
    expect((await api.get<{ reports: RegisterReport[] }>('/api/pos/registers/1/z')).body.reports).toHaveLength(1);
    expect((await api.get('/api/pos/registers/1/z/7')).status).toBe(404);
    expect((await api.get('/api/pos/registers/9')).status).toBe(404);

    const closed = await api.post<Shift>(`/api/pos/shifts/${shift}/close`);
    expect(closed.body).toMatchObject({ closed_reason: 'signed_out' });
    expect((await api.post('/api/pos/sales', { shift })).status).toBe(403);
  });

  it('manages products, cashiers and settings', async () => {
    rig = await openRegister();
    const api = await rig.startApi();
    expect((await api.get<{ products: unknown[] }>('/api/pos/products?q=tea')).body.products).toHaveLength(2);
    expect((await api.post('/api/pos/products', { code: 'T1', description: 'Tea towel', price_cents: 899, tax_rate: 13, category: 'Household', barcode: '4006381333931' })).status).toBe(201);
    expect((await api.post('/api/pos/products', { code: 'T2', description: 'x', price_cents: 1, tax_rate: 13, category: 'x', barcode: '4006381333932' })).status).toBe(400);
    expect((await api.post('/api/pos/products', { code: 'T1', description: 'x', price_cents: 1, tax_rate: 13, category: 'x' })).status).toBe(409);
    expect((await api.patch('/api/pos/products/T1', { price_cents: 999 })).body).toMatchObject({ price_cents: 999 });
    expect((await api.get('/api/pos/products/NOPE')).status).toBe(404);
    expect((await api.post('/api/pos/cashiers', { name: 'Kim', code: '12' })).status).toBe(400);
    const kim = await api.post<{ id: string }>('/api/pos/cashiers', { name: 'Kim', code: '5555' });
    expect(kim.status).toBe(201);
    expect((await api.post('/api/pos/cashiers', { name: 'Kim 2', code: '5555' })).status).toBe(409);
    expect(kim.body).not.toHaveProperty('code');
    expect((await api.patch(`/api/pos/cashiers/${kim.body.id}`, { active: false })).body).toMatchObject({ active: false });
    const settings = await api.patch('/api/pos/settings', { tenders: { cheque: false }, other_tenders: ['Voucher', 'Mobile wallet'] });
    expect(settings.body).toMatchObject({ tenders: { cheque: false, cash: true }, other_tenders: ['Voucher', 'Mobile wallet'], default_tax_rate: 13 });
    const sale = await rig.sale('1001');
    expect(sale.allowed.tenders).toEqual(['card', 'cash', 'gift_card', 'other']);
    expect((await api.post(`/api/pos/sales/${sale.id}/tenders`, { shift: rig.shift, type: 'cheque', reference: '1' })).status).toBe(412);
  });

  it('makes a six-digit code for a cashier added without one, answers it once, and makes a new one on reset', async () => {
    rig = await openRegister();
    const api = await rig.startApi();
    const made = await api.post<{ id: string; name: string; code: string }>('/api/pos/cashiers', { name: 'Robin' });
    expect(made.status).toBe(201);
    expect(made.body.code).toMatch(/^[0-9]{6}$/);
    // Shown once: never in a list, never in the cashier's own answer again.
    expect(JSON.stringify((await api.get('/api/pos/cashiers')).body)).not.toContain(made.body.code);
    const shift = await api.post<Shift>('/api/pos/shifts', { laneid: '1', code: made.body.code });
    expect(shift.status).toBe(201);
    expect(shift.body.cashier.name).toBe('Robin');

    const reset = await api.post<{ id: string; code: string }>(`/api/pos/cashiers/${made.body.id}/code`);
    expect(reset.status).toBe(200);
    expect(reset.body.code).toMatch(/^[0-9]{6}$/);
    expect(reset.body.code).not.toBe(made.body.code);
    expect((await api.post('/api/pos/shifts', { laneid: '1', code: made.body.code })).status).toBe(403);
    expect((await api.post('/api/pos/shifts', { laneid: '1', code: reset.body.code })).status).toBe(201);
    expect((await api.post('/api/pos/cashiers/NOSUCH/code')).status).toBe(404);
  });
});
