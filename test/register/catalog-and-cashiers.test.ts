import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gtinValid } from '../../src/engine/register/catalog';
import { SAMPLE_PRODUCTS } from '../../src/engine/register/sample';
import { CODE_LOCK_MS, CODE_WINDOW_MS, MAX_CODE_ATTEMPTS, MAX_CODE_LOCK_MS, MAX_TAKEN_CODES, codeLockMs } from '../../src/engine/register/cashiers';
import { code, openRegister, type RegisterRig } from '../helpers/register';

let rig: RegisterRig;
afterEach(async () => {
  await rig?.close();
});

describe('catalog', () => {
  it('a new sandbox install has the sample catalog (valid EAN-13 barcodes, 0/5/13% tax) once, not again on restart', async () => {
    rig = await openRegister();
    expect(SAMPLE_PRODUCTS.length).toBeGreaterThanOrEqual(15);
    expect(SAMPLE_PRODUCTS.length).toBeLessThanOrEqual(30);
    for (const p of SAMPLE_PRODUCTS) expect(gtinValid(p.barcode!), p.barcode!).toBe(true);
    expect(new Set(SAMPLE_PRODUCTS.map((p) => p.tax))).toEqual(new Set([0, 5, 13]));
    const all = await rig.register.products({ limit: 500 });
    expect(all).toHaveLength(SAMPLE_PRODUCTS.length);
    await rig.register.updateProduct('1001', { price_cents: 275 });

    const again = await rig.t.restart();
    try {
      expect(again.engine.register.firstCashier).toBeUndefined();
      expect(await again.engine.register.products({ limit: 500 })).toHaveLength(SAMPLE_PRODUCTS.length);
      expect((await again.engine.register.product('1001')).price_cents).toBe(275);
      expect(await again.engine.register.cashiers()).toHaveLength(1);
    } finally {
      await again.close();
    }
  });

  it('searches by words, finds a scan by code, EAN-13 or UPC-A, and validates new products', async () => {
    rig = await openRegister();
    expect((await rig.register.products({ q: 'coffee' })).map((p) => p.code)).toEqual(['1001', '3001']);
    expect((await rig.register.products({ q: 'oat LATTE' })).map((p) => p.code)).toEqual(['1003']);
    expect((await rig.register.products({ category: 'bakery' })).length).toBe(4);

    const created = await rig.register.createProduct({ code: 'MUG-1', description: 'Stoneware mug', price_cents: 1450, tax_rate: 8.875, category: 'Household', barcode: '036000291452' });
    expect(created).toMatchObject({ tax_rate: 8.875, barcode: '0036000291452' });
    const sale = await rig.sale('036000291452', '0036000291452', 'mug-1');
    expect(sale.lines).toEqual([expect.objectContaining({ product_code: 'MUG-1', quantity: 3, tax_cents: 386 })]);

    expect(await code(rig.register.createProduct({ code: 'X1', description: 'x', price_cents: 1, tax_rate: 13, category: 'c', barcode: '0036000291453' }))).toBe('invalid_barcode');
    expect(await code(rig.register.createProduct({ code: 'X1', description: 'x', price_cents: 1, tax_rate: 13, category: 'c', barcode: '036000291452' }))).toBe('barcode_taken');
    expect(await code(rig.register.createProduct({ code: 'X1', description: 'x', price_cents: 1, tax_rate: 8.8755, category: 'c' }))).toBe('invalid_tax_rate');
    expect(await code(rig.register.createProduct({ code: 'MUG-1', description: 'x', price_cents: 1, tax_rate: 5, category: 'c' }))).toBe('product_exists');

    await rig.register.updateProduct('MUG-1', { active: false });
    expect(await code(rig.register.addLine(sale.id, { shift: rig.shift, scan: 'MUG-1' }))).toBe('product_inactive');
  });
});

describe('cashiers', () => {
  // Eight digits: the file holds random hex (salts, hashes), where a short code turns up by chance.
  it('keeps only a keyed hash of a code, refuses a code already used, and signs in by code alone', async () => {
    rig = await openRegister();
    const pat = await rig.register.createCashier({ name: 'Pat Lee', code: '24680913' });
    expect(JSON.stringify(await rig.register.cashiers())).not.toContain('24680913');
    expect(await code(rig.register.createCashier({ name: 'Copycat', code: '24680913' }))).toBe('cashier_code_taken');
    expect(await code(rig.register.createCashier({ name: 'Copycat', code: rig.code }))).toBe('cashier_code_taken');
    expect(await code(rig.register.updateCashier(pat.id, { code: rig.code }))).toBe('cashier_code_taken');
    await rig.t.engine.core.mutate(async () => undefined);
    for (const file of ['laneway.sqlite', 'laneway.sqlite-wal']) {
      const path = join(rig.t.dir, file);
      if (existsSync(path)) expect(readFileSync(path).toString('latin1')).not.toContain('24680913');
    }

    const shift = await rig.register.signIn('1', '24680913');
    expect(shift).toMatchObject({ laneid: '1', cashier: { id: pat.id, name: 'Pat Lee' }, closed_at: null });
    // The sample cashier's shift on lane 1 was replaced.
    expect(await code(rig.register.startSale({ shift: rig.shift }))).toBe('shift_closed');
    expect((await rig.register.register('1')).signed_in).toMatchObject({ cashier: 'Pat Lee' });
    const sale = (await rig.register.startSale({ shift: shift.id, line: { scan: '1001' } })).sale;
    expect(sale.cashier.name).toBe('Pat Lee');

    await rig.register.updateCashier(pat.id, { active: false });
    expect(await code(rig.register.addLine(sale.id, { shift: shift.id, scan: '1001' }))).toBe('shift_closed');
    expect(await code(rig.register.signIn('1', '24680913'))).toBe('cashier_code_invalid');
  });

  it('after three chosen codes found taken, choosing a code pauses for an hour (trying codes on the cashier form does not find a supervisor\'s); made codes go on', async () => {
    rig = await openRegister();
    const pat = await rig.register.createCashier({ name: 'Pat Lee', code: '24680913' });
    for (let i = 0; i < MAX_TAKEN_CODES; i++) expect(await code(rig.register.createCashier({ name: 'Guess', code: rig.code }))).toBe('cashier_code_taken');
    // Now even a free code, or the supervisor's own, answers alike: nothing more is told.
    expect(await code(rig.register.createCashier({ name: 'Guess', code: '13572468' }))).toBe('cashier_code_choice_paused');
    expect(await code(rig.register.updateCashier(pat.id, { code: rig.code }))).toBe('cashier_code_choice_paused');
    const made = await rig.register.createCashier({ name: 'Made Code' });
    expect(made.code).toMatch(/^\d{6}$/);
    rig.t.clock.advance(CODE_WINDOW_MS);
    expect((await rig.register.createCashier({ name: 'Chosen Again', code: '13572468' })).name).toBe('Chosen Again');
  });

  it(`pauses sign-in on a lane for ${CODE_LOCK_MS / 1000} s after ${MAX_CODE_ATTEMPTS} wrong codes`, async () => {
    rig = await openRegister();
    const wrong = rig.code === '0000' ? '1111' : '0000';
    for (let i = 0; i < MAX_CODE_ATTEMPTS; i++) expect(await code(rig.register.signIn('1', wrong))).toBe('cashier_code_invalid');
    expect(await code(rig.register.signIn('1', rig.code))).toBe('cashier_sign_in_locked');
    rig.t.clock.advance(CODE_LOCK_MS);
    expect((await rig.register.signIn('1', rig.code)).cashier.name).toBe('Sam Rivera');
    expect(await code(rig.register.signIn('nope', rig.code))).toBe('lane_not_found');
  });

  it('doubles each further pause on a lane, up to 15 minutes; a right code between guesses does not clear the count, an hour without wrong codes does', async () => {
    rig = await openRegister();
    const wrong = rig.code === '0000' ? '1111' : '0000';
    const pausedFor = async (ms: number) => {
      for (let i = 0; i < MAX_CODE_ATTEMPTS; i++) {
        expect(await code(rig.register.signIn('1', wrong))).toBe('cashier_code_invalid');
        // The cashier's own code between guesses, as someone guessing others' codes would type it.
        if (i < MAX_CODE_ATTEMPTS - 1) expect((await rig.register.signIn('1', rig.code)).cashier.name).toBe('Sam Rivera');
      }
      rig.t.clock.advance(ms - 1000);
      expect(await code(rig.register.signIn('1', rig.code))).toBe('cashier_sign_in_locked');
      rig.t.clock.advance(1000);
    };
    for (const ms of [30_000, 60_000, 120_000, 240_000, 480_000, 900_000, 900_000]) await pausedFor(ms);
    expect(codeLockMs(20)).toBe(MAX_CODE_LOCK_MS);
    // An hour later the wrong codes are forgotten: five more pause for 30 seconds again.
    rig.t.clock.advance(CODE_WINDOW_MS);
    await pausedFor(CODE_LOCK_MS);
    expect((await rig.register.signIn('1', rig.code)).cashier.name).toBe('Sam Rivera');
  });
});
