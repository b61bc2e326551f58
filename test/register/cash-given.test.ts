import { afterEach, describe, expect, it } from 'vitest';
import type { Sale, Tender } from '../../src/shared/schemas/register';
import { code, openRegister, type RegisterRig } from '../helpers/register';

let rig: RegisterRig;
afterEach(async () => {
  await rig?.close();
});

type Outcome = { sale: Sale; tender: Tender; message: string };

describe('cash handed over far above the balance', () => {
  it('is refused until the cashier confirms it (the shared rule), and a 100 note for a small sale is not', async () => {
    rig = await openRegister();
    const sale = await rig.sale('1003'); // Latte 4.95 + 0.25 tax = 5.20
    expect(await code(rig.tender(sale, { type: 'cash', tendered_cents: 52000 }))).toBe('confirm_change_required');
    expect((await rig.register.sale(sale.id)).tenders).toHaveLength(0);
    const confirmed = await rig.tender(sale, { type: 'cash', tendered_cents: 52000, confirm_change: true });
    expect(confirmed.tender).toMatchObject({ tendered_cents: 52000, change_cents: 51480 });

    const small = await rig.sale('1003');
    const note = await rig.tender(small, { type: 'cash', tendered_cents: 10000 });
    expect(note.tender.change_cents).toBe(9480);
  });

  it('words the amounts of its answer in the screen\'s locale (Accept-Language), the same way the screen formats them', async () => {
    rig = await openRegister();
    const api = await rig.startApi();
    const sale = await rig.sale('1003');
    const far = await api.request<{ code: string; error: string }>('POST', `/api/pos/sales/${sale.id}/tenders`, { body: { shift: rig.shift, type: 'cash', tendered_cents: 52000 }, headers: { 'Accept-Language': 'fr-CA,fr;q=0.9' } });
    expect(far.status).toBe(412);
    expect(far.body.code).toBe('confirm_change_required');
    expect(far.body.error.replace(/\s/g, ' ')).toContain('520,00 $ US given for 5,20 $ US due');
    const paid = await api.request<Outcome>('POST', `/api/pos/sales/${sale.id}/tenders`, { body: { shift: rig.shift, type: 'cash', tendered_cents: 2000 }, headers: { 'Accept-Language': 'fr-CA' } });
    expect(paid.body.message.replace(/\s/g, ' ')).toBe('Change due: 14,80 $ US.');
    const other = await rig.sale('1003');
    const plain = await api.post<Outcome>(`/api/pos/sales/${other.id}/tenders`, { shift: rig.shift, type: 'cash', tendered_cents: 2000 });
    expect(plain.body.message).toBe('Change due: $14.80.');
  });
});

describe('refund and void messages', () => {
  it('word their amounts in the screen\'s locale too', async () => {
    rig = await openRegister();
    const api = await rig.startApi();
    const sale = await rig.sale('1003');
    await rig.tender(sale, { type: 'cash', tendered_cents: 520 });
    const fr = { 'Accept-Language': 'fr-CA' };
    const plan = await api.request<{ message: string }>('POST', `/api/pos/sales/${sale.id}/refunds`, { body: { shift: rig.shift, all: true, dry_run: true }, headers: fr });
    expect(plan.body.message.replace(/\s/g, ' ')).toBe('Refund of 5,20 $ US: 5,20 $ US to cash from the drawer.');
    const voided = await api.request<{ message: string }>('POST', `/api/pos/sales/${sale.id}/void`, { body: { shift: rig.shift }, headers: fr });
    expect(voided.body.message.replace(/\s/g, ' ')).toBe('Voided 5,20 $ US: 5,20 $ US to cash. Give 5,20 $ US in cash from the drawer.');
  });
});

describe('cash with both the amount to pay and the amount handed over', () => {
  it('pays amount_cents, gives the rest back as change, and refuses less handed over than that', async () => {
    rig = await openRegister();
    const api = await rig.startApi();
    const sale = await rig.sale('4002'); // 5084
    const short = await api.post<{ code: string; details: Array<{ field: string }> }>(`/api/pos/sales/${sale.id}/tenders`, { shift: rig.shift, type: 'cash', amount_cents: 2000, tendered_cents: 1500 });
    expect([short.status, short.body.code]).toEqual([400, 'tendered_below_amount']);
    expect(short.body.details).toEqual([expect.objectContaining({ field: 'tendered_cents' })]);
    const over = await api.post<{ code: string }>(`/api/pos/sales/${sale.id}/tenders`, { shift: rig.shift, type: 'cash', amount_cents: 6000, tendered_cents: 6000 });
    expect([over.status, over.body.code]).toEqual([400, 'amount_over_balance']);

    const paid = await api.post<Outcome>(`/api/pos/sales/${sale.id}/tenders`, { shift: rig.shift, type: 'cash', amount_cents: 2000, tendered_cents: 5000 });
    expect(paid.body.tender).toMatchObject({ amount_cents: 2000, tendered_cents: 5000, change_cents: 3000 });
    expect(paid.body.sale).toMatchObject({ status: 'open', totals: { paid_cents: 2000, balance_cents: 3084 } });
    expect(paid.body.message).toBe('Change due: $30.00.');
    // What the screens send (the amount handed over only) still pays up to the balance: part of it, then the rest.
    const part = await api.post<Outcome>(`/api/pos/sales/${sale.id}/tenders`, { shift: rig.shift, type: 'cash', tendered_cents: 1000 });
    expect(part.body.tender).toMatchObject({ amount_cents: 1000, tendered_cents: 1000, change_cents: 0 });
    const rest = await api.post<Outcome>(`/api/pos/sales/${sale.id}/tenders`, { shift: rig.shift, type: 'cash', tendered_cents: 4000 });
    expect(rest.body.tender).toMatchObject({ amount_cents: 2084, tendered_cents: 4000, change_cents: 1916 });
    expect(rest.body.sale.status).toBe('paid');
  });
});
