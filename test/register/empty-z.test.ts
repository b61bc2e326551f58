import { afterEach, describe, expect, it } from 'vitest';
import { code, openRegister, type RegisterRig } from '../helpers/register';

let rig: RegisterRig;
afterEach(async () => {
  await rig?.close();
});

describe('a Z report of an empty period', () => {
  it('is refused straight after a Z (z_empty) unless confirmed, and then closes with zeros', async () => {
    rig = await openRegister();
    const sale = await rig.sale('1003');
    await rig.tender(sale, { type: 'cash' });
    const first = await rig.register.zClose('1', { shift: rig.shift, close_batch: false });
    expect(first.z!.number).toBe(1);

    expect(await code(rig.register.zClose('1', { shift: rig.shift, close_batch: false }))).toBe('z_empty');
    expect((await rig.register.xReport('1')).period).toBe(2);
    const second = await rig.register.zClose('1', { shift: rig.shift, close_batch: false, confirm_empty: true });
    expect(second).toMatchObject({ period: 2, sales: { count: 0 }, net_sales_cents: 0, z: { number: 2 } });
    expect((await rig.register.xReport('1')).period).toBe(3);
  });
});
