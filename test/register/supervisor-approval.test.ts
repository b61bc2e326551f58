import { afterEach, describe, expect, it } from 'vitest';
import { openRegister, type RegisterRig } from '../helpers/register';

/**
 * Money given back at the register needs a supervisor: a cashier who is not one refunds or voids a
 * paid sale only with a supervisor's code, which the reversal records. Wrong codes count against the
 * lane as at sign-in, so approvals are no way to guess codes. Cashiers made before supervisors
 * existed keep approving (a shop's register works as it did); new ones do not unless they are made so.
 */
let rig: RegisterRig;
afterEach(async () => {
  await rig?.close();
});

const code = (p: Promise<unknown>) => p.then(() => 'ok', (e: { code?: string }) => e.code ?? String(e));

describe('supervisor approval of refunds and voids', () => {
  it('refuses a non-supervisor cashier\'s refund and void without a supervisor\'s code, and records who approved them', async () => {
    rig = await openRegister();
    const sam = rig.register.firstCashier!;
    const jo = await rig.register.createCashier({ name: 'Jo Park', code: '246813' });
    expect(jo.supervisor).toBe(false);
    expect((await rig.register.cashiers()).find((c) => c.name === sam.name)?.supervisor).toBe(true);

    const paid = await rig.sale('3001', '1002');
    await rig.tender(paid, { type: 'cash', tendered_cents: 5000 });
    const other = await rig.sale('1001');
    await rig.tender(other, { type: 'cash', tendered_cents: 300 });

    const shift = await rig.register.signIn('1', '246813');
    expect(shift.cashier).toMatchObject({ name: 'Jo Park', supervisor: false });
    rig.shift = shift.id;

    // Jo may look at the plan, not give the money back alone.
    const plan = await rig.register.refund(paid.id, { shift: shift.id, lines: [{ line: 1, quantity: 1 }], dry_run: true }, null);
    expect(plan.reversal?.status).toBe('planned');
    expect(await code(rig.register.refund(paid.id, { shift: shift.id, lines: [{ line: 1, quantity: 1 }] }, null))).toBe('supervisor_required');
    expect(await code(rig.register.voidSale(other.id, { shift: shift.id }, null))).toBe('supervisor_required');
    // Jo's own code, or a wrong one, approves nothing.
    expect(await code(rig.register.refund(paid.id, { shift: shift.id, lines: [{ line: 1, quantity: 1 }], approval_code: '246813' }, null))).toBe('supervisor_code_invalid');

    const refund = await rig.register.refund(paid.id, { shift: shift.id, lines: [{ line: 1, quantity: 1 }], approval_code: sam.code }, null);
    expect(refund.reversal).toMatchObject({ status: 'completed', cashier: { name: 'Jo Park' }, approved_by: { name: sam.name } });
    const voided = await rig.register.voidSale(other.id, { shift: shift.id, approval_code: sam.code }, null);
    expect(voided.reversal).toMatchObject({ kind: 'void', approved_by: { name: sam.name } });

    // An open sale with nothing paid is a basket put back: no approval.
    const basket = await rig.sale('1001');
    expect((await rig.register.voidSale(basket.id, { shift: shift.id }, null)).sale.status).toBe('voided');

    // Made a supervisor, Jo approves their own.
    await rig.register.updateCashier(jo.id, { supervisor: true });
    const third = await rig.sale('1001');
    await rig.tender(third, { type: 'cash', tendered_cents: 300 });
    const own = await rig.register.voidSale(third.id, { shift: shift.id }, null);
    expect(own.reversal).toMatchObject({ approved_by: null });
  });

  it('counts wrong approval codes against the lane: the fifth pauses its codes, sign-in included', async () => {
    rig = await openRegister();
    await rig.register.createCashier({ name: 'Jo Park', code: '246813' });
    const sale = await rig.sale('1001');
    await rig.tender(sale, { type: 'cash', tendered_cents: 300 });
    const shift = await rig.register.signIn('1', '246813');
    const guesses = ['1111', '2222', '3333', '4444', '5555'];
    const answers = [];
    for (const guess of guesses) answers.push(await code(rig.register.voidSale(sale.id, { shift: shift.id, approval_code: guess }, null)));
    expect(answers).toEqual(Array(5).fill('supervisor_code_invalid'));
    // Paused now: even the right code waits, for an approval and for a sign-in.
    expect(await code(rig.register.voidSale(sale.id, { shift: shift.id, approval_code: rig.code }, null))).toBe('cashier_sign_in_locked');
    expect(await code(rig.register.signIn('1', rig.code))).toBe('cashier_sign_in_locked');
  });
});
