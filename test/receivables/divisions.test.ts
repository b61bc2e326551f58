import { describe, expect, it } from 'vitest';
import { uid, withCapabilities, type ErrorReply } from '../helpers/receivables';
import { useHarness } from '../helpers/harness';

const ctx = useHarness({ api: true });
const importDivision = (body: Record<string, unknown>) => ctx.api.post<ErrorReply & { identifier: string; message: string }>('/api/imports/division', body);
const divisions = async () => {
  const res = await ctx.api.get<{ whoami: Record<string, { divisions: Array<{ division_code: string; division_name: string; parent_code: string | null }> }> }>('/api/whoami');
  return Object.values(res.body.whoami)[0]!.divisions;
};

describe('divisions', () => {
  it('creates and updates in one operation; an unknown parent creates the division without one', async () => {
    const [parent, child, orphan] = [uid('D'), uid('D'), uid('D')];
    expect((await importDivision({ code: parent, name: 'North' })).body).toEqual({ identifier: parent, message: '1 division' });
    expect((await importDivision({ code: child, name: 'North East', parent_code: parent })).status).toBe(201);
    expect((await importDivision({ code: orphan, name: 'Lost', parent_code: 'NO-SUCH' })).status).toBe(201);
    await importDivision({ code: parent, name: 'Northern' });
    const list = await divisions();
    expect(list.find((d) => d.division_code === parent)?.division_name).toBe('Northern');
    expect(list.find((d) => d.division_code === child)?.parent_code).toBe(parent);
    expect(list.find((d) => d.division_code === orphan)?.parent_code).toBeNull();
    const loop = await importDivision({ code: parent, name: 'Northern', parent_code: child });
    expect(loop.status).toBe(412);
    expect(loop.body.code).toBe('hierarchy_cycle');
    expect((await importDivision({ name: 'no code' })).status).toBe(412);
  });

  it('refuses deleting a division used by an invoice or parent of another; allows it otherwise', async () => {
    const [used, parent, child, free] = [uid('D'), uid('D'), uid('D'), uid('D')];
    for (const code of [used, parent, free]) await importDivision({ code, name: code });
    await importDivision({ code: child, name: child, parent_code: parent });
    await ctx.api.post('/api/imports/invoice', { number: uid('INV'), customer_identifier: uid('C'), amount: 100, division: used });
    const inUse = await importDivision({ code: used, name: used, deleted: true });
    expect(inUse.status).toBe(412);
    expect(inUse.body.code).toBe('division_in_use');
    const isParent = await importDivision({ code: parent, name: parent, deleted: true });
    expect(isParent.body.code).toBe('division_has_children');
    expect((await importDivision({ code: free, name: free, deleted: true })).status).toBe(201);
    expect((await divisions()).some((d) => d.division_code === free)).toBe(false);
    // An inactive division cannot be put on a new invoice.
    const inactive = await ctx.api.post<ErrorReply>('/api/imports/invoice', { number: uid('INV'), customer_identifier: uid('C'), amount: 100, division: free });
    expect(inactive.body.code).toBe('division_inactive');
  });

  it('checks a payment allocation\'s division against its invoice', async () => {
    await withCapabilities(ctx, { dynamic_division_creation: true }, async () => {
      const number = uid('INV');
      await ctx.api.post('/api/imports/invoice', { number, customer_identifier: uid('C'), amount: 100, division: 'EAST' });
      const res = await ctx.api.post<ErrorReply>('/api/imports/payment', { identifier: uid('P'), division: 'WEST', payment_amounts_attributes: [{ invoice_number: number, amount: 100 }] });
      expect(res.body.code).toBe('division_mismatch');
    });
  });
});

describe('country codes', () => {
  it('serves ISO 3166 countries and provinces without credentials', async () => {
    const res = await ctx.api.request<{ countries: Record<string, string>; provinces: Record<string, Array<Record<string, string>>> }>('GET', '/api/reference_data/v1/country_codes', { auth: null });
    expect(res.status).toBe(200);
    expect(res.body.countries.CA).toBe('Canada');
    expect(Object.keys(res.body.countries).length).toBeGreaterThan(240);
    expect(res.body.provinces.CA).toContainEqual({ ON: 'Ontario' });
    expect(res.body.provinces.US).toContainEqual({ NY: 'New York' });
  });
});
