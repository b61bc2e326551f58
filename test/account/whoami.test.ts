import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { card, op, startGateway, type Harness } from '../helpers/gateway';
import { TEST_TOKEN } from '../helpers/harness';
import { TEST_CARDS } from '../../src/engine/gateway/sandbox/test-data';

/**
 * GET /api/whoami carries every field the reference's own example shows, with what this account
 * really has: the brands its processor approves, the MID its settlement reports carry, no deposit
 * or settlement bank account on file (so no number, masked or hashed), no payment matching step.
 */
type Rec = Record<string, unknown>;
type Entry = Rec & { merchant_accounts: Rec[]; settlement_bank_accounts: Rec[]; terminal_processors: Rec[]; gift_card_processors: Rec[]; gift_cards: Rec[] };

const reference = JSON.parse(readFileSync('/work/shared/spec/reference/api-reference-1.3.35.openapi.json', 'utf8')) as {
  paths: { '/api/whoami': { get: { responses: { 200: { content: { 'application/json': { examples: Record<string, { value: { whoami: Record<string, Rec> } }> } } } } } } };
};
const example = Object.values(Object.values(reference.paths['/api/whoami'].get.responses[200].content['application/json'].examples)[0]!.value.whoami)[0]!;

let h: Harness;
beforeAll(async () => {
  h = await startGateway();
  await h.t.engine.account.update({ address_1: '12 Bank Street', city: 'Ottawa', province: 'ON', postal_code: 'K1P 5N2', country: 'CA' });
});
afterAll(async () => {
  await h.close();
});

const whoami = async () => {
  const res = await h.api.get<{ whoami: Record<string, Entry> }>('/api/whoami');
  expect(res.status).toBe(200);
  return res.body.whoami[TEST_TOKEN]!;
};
const missing = (ours: Rec, theirs: Rec) => Object.keys(theirs).filter((k) => !(k in ours));

describe('GET /api/whoami against the reference example', () => {
  it('has every field of the example: top level, merchant accounts, settlement bank accounts, terminal and gift card processors', async () => {
    const entry = await whoami();
    expect(missing(entry, example)).toEqual([]);
    for (const list of ['merchant_accounts', 'settlement_bank_accounts', 'terminal_processors', 'gift_cards'] as const) {
      const theirs = example[list] as Rec[];
      expect(entry[list].length, list).toBeGreaterThan(0);
      expect(missing(entry[list][0]!, theirs[0]!), list).toEqual([]);
    }
    // And every property of the reference's schemas (the example leaves some out).
    const schemas = (reference as unknown as { components: { schemas: Record<string, { properties: Rec }> } }).components.schemas;
    expect(Object.keys(schemas.MerchantAccount!.properties)).toContain('address');
    expect(Object.keys(schemas.BankProcessor!.properties)).toEqual(expect.arrayContaining(['external_name', 'external_number']));
    expect(missing(entry.merchant_accounts[0]!, schemas.MerchantAccount!.properties)).toEqual([]);
    expect(missing(entry.settlement_bank_accounts[0]!, schemas.BankProcessor!.properties)).toEqual([]);
  });

  it("a division has the address fields of the reference's Divisions schema (flat) and of its example (under address)", async () => {
    expect((await h.api.post('/api/imports/division', { code: 'EAST', name: 'East' })).status).toBeLessThan(300);
    const division = ((await whoami()).divisions as Rec[]).find((d) => d.division_code === 'EAST')!;
    const schema = (reference as unknown as { components: { schemas: { Divisions: { properties: Rec } } } }).components.schemas.Divisions.properties;
    expect(missing(division, schema)).toEqual([]);
    expect(missing(division, ((example.divisions as Rec[])[0])!)).toEqual([]);
    const address = division.address as Rec;
    for (const field of ['address_1', 'address_2', 'postal_code', 'city', 'province', 'country']) expect(division[field], field).toBe(address[field]);
  });

  it('answers what the account has: the brands the sandbox approves, its MID, no bank number on file, no matching step', async () => {
    const entry = await whoami();
    const ma = entry.merchant_accounts[0]!;
    expect([...(ma.acceptable_cards as string[])].sort()).toEqual(['american_express', 'discover', 'master', 'visa']);
    for (const brand of ma.acceptable_cards as string[]) {
      const test = TEST_CARDS.find((c) => c.brand === brand && c.profile === 'approve')!;
      expect((await op(h.api, 'sale', { amount_cents: 1000, credit_card: card(test.number, brand === 'american_express' ? { cvv: '6789' } : {}) })).body.success, brand).toBe(true);
    }
    expect(ma).toMatchObject({ is_default: true, tid: null, gl_account: null, reference_token: null, deposit_accounts: [], deposit_account_masked_number: null, deposit_routing_account_hash: null, deposit_routing_account_hash_function: null });
    // The MID is the one the settlement reports carry.
    await h.api.post('/api/sandbox/v1/clock/advance', { by: 'P2D' });
    const batches = (await h.api.get<{ batches: Array<{ mid: string; payment_method_group: string }> }>('/api/gateway/v1/settlement/batches?list=true')).body.batches;
    expect(batches.length).toBeGreaterThan(0);
    expect(new Set(batches.map((b) => b.mid))).toEqual(new Set([ma.mid]));

    const ba = entry.settlement_bank_accounts[0]!;
    // The reference's form of a settlement token (ecommerce SettlementToken: ^[0-9A-Z]{12}$, `MA1F8B2E87AM`).
    for (const t of [ma.token, ba.token, entry.terminal_processors[0]?.token, entry.gift_card_processors[0]?.token].filter(Boolean)) expect(t).toMatch(/^(MA|BA|TP|GC)[0-9A-Z]{10}$/);
    expect(ba).toMatchObject({ token: `BA${(entry.token as string).slice(0, 10)}`, is_default: true, routing_number: null, masked_account_number: null, routing_account_hash: null, routing_account_hash_function: null });
    expect(ba.address).toEqual({ address_1: '12 Bank Street', address_2: null, city: 'Ottawa', province: 'ON', postal_code: 'K1P 5N2', country: 'CA' });
    // The merchant account is at the same address; no external name or number is held for the bank account.
    expect(ma.address).toEqual(ba.address);
    expect(ba).toMatchObject({ external_name: null, external_number: null });

    expect(entry.gift_cards).toEqual(entry.gift_card_processors);
    expect(entry).toMatchObject({ arc_payment_match_mode: 'off', erp_payment_match_mode: 'off', external_payment_match_mode: 'off', erp_payment_auto_match_mode: false, external_payment_auto_match_mode: false });
  });
});
