import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../helpers/harness';
import { filesHolding } from '../helpers/data-folder';
import { getRecord, recordsOfKind } from '../../src/engine/records';
import { GIFT_CARD_COPY, type GiftCardCopy } from '../../src/engine/wallets/gift-cards';
import { applyPush } from '../../src/engine/sync/master';
import { centralDocument } from '../../src/engine/sync/chain-keys';
import { streamNamed } from '../../src/engine/sync/streams';
import type { CustomerDoc } from '../../src/engine/receivables/types';

/**
 * What a lane's credential may make the hub store or do through a push (real HTTP on loopback, a
 * lane paired with the hub's own pairing code): nothing that moves a gift card's balance but a
 * spend the lane's register could have made, no card data in clear, no customer the hub's readers
 * cannot read, and no ledger but the hub's.
 */
const h = useHarness({ api: true });
let laneAuth: string;

type PushOutcome = { written: number; unchanged: number; refused: number; conflicts: Array<Record<string, unknown>> };
type Exception = { key: string; reason: string; document?: string; problem?: string };

async function push(stream: string, docs: Array<Record<string, unknown>>): Promise<PushOutcome> {
  const res = await h.api.post<PushOutcome>(`/api/sync/push/${stream}`, { rows: docs.map((d) => ({ newDocumentState: d })) }, laneAuth);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function exceptions(): Promise<Exception[]> {
  return (await h.api.get<{ exceptions: Exception[] }>('/api/sync/resolutions?limit=1000')).body.exceptions;
}

beforeAll(async () => {
  const { code } = (await h.api.post<{ code: string }>('/api/sync/pairing-codes', { laneid: '7' })).body;
  const grant = await h.api.post<{ token: string; key: string }>('/api/sync/pair', { code }, null);
  expect(grant.status).toBe(201);
  laneAuth = `Basic ${Buffer.from(`${grant.body.token}:${grant.body.key}`).toString('base64')}`;
});

describe("a lane's pushed gift card spend made apart from the hub", () => {
  const cards = { a: '6277000012345671', b: '6277000076543210' };
  const loaded: Record<string, { token: string; ref: string }> = {};
  const balance = async (number: string) => (await h.api.post<{ balance: number }>('/api/gateway/v1/gift_card/read', { card_number: number })).body.balance;

  beforeAll(async () => {
    for (const [name, number] of Object.entries(cards)) {
      const made = await h.api.post<{ token: string }>('/api/gateway/v1/gift_card', { card_number: number, activated: 'true', load_amount_cents: 1000 });
      expect(made.status).toBe(200);
      // The card's name across the shop: the lanes' copy of it is kept under it.
      const copy = (await recordsOfKind<GiftCardCopy>(h.t.engine.core, GIFT_CARD_COPY)).find((r) => r.data.token === made.body.token)!;
      loaded[name] = { token: made.body.token, ref: copy.key };
    }
  });

  /** A spend as a lane's register records it (recordOfflineSpendInTx), with `change` over it. */
  const spend = (tender: string, change: Record<string, unknown> = {}, card = loaded.a!) => {
    const data = { laneid: '7', card: card.ref, last4: '5671', sale: '7-000001', tender, amount_cents: 300, currency: 'usd', token: card.token, offline_since: '2026-03-02T14:00:00.000Z', at: '2026-03-02T15:00:00.000Z', ...change };
    return { id: `pos_offline_spend/7/${tender}`, kind: 'pos_offline_spend', key: `7/${tender}`, ref: data.card, data };
  };

  it('refuses one that would credit the card, names another card, or is not the lane register\'s, debits nothing, records each, and takes the rest of the push', async () => {
    const before = (await exceptions()).length;
    const bad = [
      spend('neg', { amount_cents: -500_000 }),
      spend('zero', { amount_cents: 0 }),
      spend('huge', { amount_cents: 1_000_000_000 }),
      spend('frac', { amount_cents: 12.5 }),
      spend('text', { amount_cents: '300' }),
      // Card B's token under card A's name, and a token of no card.
      spend('foreign', { token: loaded.b!.token }),
      spend('nocard', { token: 'NOSUCHCARD0001' }),
      spend('cur', { currency: 'cad' }),
      // Another lane's receipt number, no sale, a time that is none.
      spend('sale8', { sale: '8-000001' }),
      spend('nosale', { sale: '' }),
      spend('at', { at: 'yesterday' }),
      { ...spend('ref'), ref: 'another-card' },
      { ...spend('key'), id: 'pos_offline_spend/7/other', key: '7/other' },
    ];
    const sale = { id: 'pos_sale/S7-1', kind: 'pos_sale', key: 'S7-1', ref: '7/00000001', data: { id: 'S7-1', laneid: '7', number: '7-000001', status: 'paid' } };
    expect(await push('lane_records', [...bad, sale])).toMatchObject({ written: 1, refused: bad.length });
    expect([await balance(cards.a), await balance(cards.b)]).toEqual([1000, 1000]);
    const recorded = (await exceptions()).slice(0, (await exceptions()).length - before);
    expect(recorded.filter((e) => e.reason === 'invalid_document').map((e) => e.document).sort()).toEqual(bad.map((d) => d.id).sort());
    expect(recorded.find((e) => e.document === 'pos_offline_spend/7/neg')!.problem).toContain('amount_cents');
    expect(recorded.find((e) => e.document === 'pos_offline_spend/7/foreign')!.problem).toContain('token');
    for (const d of bad) expect(await getRecord(h.t.engine.core, 'pos_offline_spend', d.key)).toBeUndefined();
    expect(await getRecord(h.t.engine.core, 'pos_sale', 'S7-1')).toBeDefined();
  });

  it("debits a well-formed one once, and never takes another version of it (its amount bounds the card's refunds)", async () => {
    expect(await push('lane_records', [spend('ok1')])).toMatchObject({ written: 1, refused: 0 });
    expect(await balance(cards.a)).toBe(700);
    // Pushed again after a lost answer: unchanged, debited once.
    expect(await push('lane_records', [spend('ok1')])).toMatchObject({ written: 0, unchanged: 1 });
    // A spend without the hub's card (the lane read the card itself) is counted, not debited.
    const { token: _token, ...untokened } = spend('ok2').data;
    expect(await push('lane_records', [{ ...spend('ok2'), data: untokened }])).toMatchObject({ written: 1 });
    expect(await balance(cards.a)).toBe(700);
    // A lane before this version names the sale by its id, not its receipt number: still debited.
    expect(await push('lane_records', [spend('ok3', { sale: 'SALE0000000042' })])).toMatchObject({ written: 1, refused: 0 });
    expect(await balance(cards.a)).toBe(400);
    // The same spend made larger afterwards would let the lane refund more than it took.
    expect(await push('lane_records', [spend('ok1', { amount_cents: 900_000 })])).toMatchObject({ written: 0, refused: 1 });
    expect((await getRecord<{ amount_cents: number }>(h.t.engine.core, 'pos_offline_spend', '7/ok1'))!.data.amount_cents).toBe(300);
    expect(await balance(cards.a)).toBe(400);
  });

  it("is not debited again on the chain's central install, which holds a copy of the hub's record", async () => {
    const stream = streamNamed('lane_records')!;
    const copy = centralDocument('shop1', stream, { ...spend('central'), watermark: 1 } as never);
    expect(await applyPush(h.t.engine.core, 'lane_records', null, [{ newDocumentState: copy as unknown as Record<string, unknown> }])).toMatchObject({ written: 1 });
    expect(await balance(cards.a)).toBe(400);
  });
});

describe('card data in a pushed document', () => {
  const DISCOVER = '6011000990911111';
  const VISA = '4895281000000006';
  const AMEX = '341111597242000';

  it('is masked before it is stored, from a lane and on the central install: no card number or CVV in the data folder', async () => {
    const sale = { id: 'pos_sale/7-000009', kind: 'pos_sale', key: '7-000009', ref: '7/00000009', data: { laneid: '7', number: '7-000009', card_number: DISCOVER, cvv: '8642', card_cvv: '8642' } };
    expect(await push('lane_records', [sale])).toMatchObject({ written: 1 });
    const customer = laneCustomer('LCCARD', { extra: { card_number: VISA, cvv: '9753', nested: { pin: '2468' } } });
    expect(await push('customers', [customer])).toMatchObject({ written: 1 });
    const stream = streamNamed('lane_records')!;
    const central = centralDocument('shop1', stream, { id: 'pos_sale/7-000010', kind: 'pos_sale', key: '7-000010', ref: '7/00000010', watermark: 1, data: { laneid: '7', number: '7-000010', card_number: AMEX, cvc: '5310' } } as never);
    expect(await applyPush(h.t.engine.core, 'lane_records', null, [{ newDocumentState: central as unknown as Record<string, unknown> }])).toMatchObject({ written: 1 });

    const stored = (await getRecord<Record<string, unknown>>(h.t.engine.core, 'pos_sale', '7-000009'))!.data;
    expect(stored).toMatchObject({ card_number: '601100******1111', cvv: '****', card_cvv: '****', number: '7-000009' });
    expect((await getRecord<Record<string, unknown>>(h.t.engine.core, 'pos_sale', 'shop1:7-000010'))!.data).toMatchObject({ card_number: '341111*****2000', cvc: '****' });
    const exported = await h.api.get<{ attributes_marshal: Record<string, unknown> }>('/api/exports/customer/LCCARD');
    expect(exported.body.attributes_marshal).toMatchObject({ card_number: '489528******0006', cvv: '****', nested: { pin: '****' } });
    await new Promise((r) => setTimeout(r, 200));
    for (const secret of [DISCOVER, VISA, AMEX, '"cvv":"8642"', '"card_cvv":"8642"', '"cvv":"9753"', '"pin":"2468"', '"cvc":"5310"']) expect(filesHolding(h.t.dir, secret), secret).toEqual([]);
  });
});

/** A customer as a lane's engine makes one (customers.ts createCustomer), with `data` over it. */
function laneCustomer(identifier: string, data: Record<string, unknown> = {}, id = `LANE${identifier}`): Record<string, unknown> {
  return {
    id,
    identifier,
    parent: '',
    data: {
      identifier,
      name: `Customer ${identifier}`,
      pdf_attachment_opt_in: false,
      account_status: 'open',
      ignores_cc_payment_rules: false,
      notification_suppressed: false,
      auto_debit: false,
      contacts: [{ email: `${identifier.toLowerCase()}@x.test`, created_by: 'supplier', token: `T${identifier}` }],
      extra: {},
      ledger: { open: {}, unapplied: {}, currencies: {}, divisions: {} },
      created_at: '2026-03-02T15:00:00.000Z',
      updated_at: '2026-03-02T15:00:00.000Z',
      updated_ms: Date.parse('2026-03-02T15:00:00.000Z'),
      ...data,
    },
  };
}

describe('a customer pushed by a lane', () => {
  const feeds = async () => [
    (await h.api.get('/api/exports/customers')).status,
    (await h.api.get('/api/backoffice/customers')).status,
  ];

  it('is refused when it is not of a customer\'s types, recorded, and the customer feeds still answer', async () => {
    const before = (await exceptions()).length;
    const bad = [
      // The probe's: no ledger, none of the flags.
      { id: 'LANECUST000001', identifier: 'LC1', parent: '', data: { identifier: 'LC1', name: 'x', contacts: [], extra: {} } },
      laneCustomer('LC2', { name: { first: 'x' } }),
      laneCustomer('LC3', { contacts: 'x@x.test' }),
      laneCustomer('LC4', { contacts: [{ name: 'no email' }] }),
      laneCustomer('LC5', { extra: ['x'] }),
      laneCustomer('LC6', { pdf_attachment_opt_in: 'yes' }),
      laneCustomer('LC7', { identifier: 'LC-other' }),
      laneCustomer('LC 8'),
      laneCustomer('LC9', { locale: 'xx' }),
      laneCustomer('LC10', { credit_limit_cents: '100' }),
    ];
    const good = laneCustomer('LCGOOD');
    expect(await push('customers', [...bad, good])).toMatchObject({ written: 1, refused: bad.length });
    const recorded = (await exceptions()).slice(0, (await exceptions()).length - before);
    expect(recorded.map((e) => [e.reason, e.document]).sort()).toEqual(bad.map((d) => ['invalid_document', d.id]).sort());
    expect(await feeds()).toEqual([200, 200]);
    expect((await h.api.get('/api/exports/customer/LC1')).status).toBe(404);
    expect((await h.api.get('/api/exports/customer/LCGOOD')).status).toBe(200);
  });

  it("is refused when an edit of a hub customer is not of a customer's types, the hub's version kept", async () => {
    await h.api.post('/api/imports/customer', { identifier: 'HUBC1', name: 'Hub One' });
    const current = (await h.t.engine.core.find<CustomerDoc & { [k: string]: unknown }>('customers', { selector: { identifier: 'HUBC1' } }))[0]!;
    const { watermark: _w, ...doc } = current;
    expect(await push('customers', [{ ...doc, data: { ...doc.data, name: 42 } }])).toMatchObject({ written: 0, refused: 1 });
    expect((await h.api.get<{ name: string }>('/api/exports/customer/HUBC1')).body.name).toBe('Hub One');
    expect(await feeds()).toEqual([200, 200]);
  });

  it("gets the hub's empty ledger when new, whatever ledger the lane sent, and the lane is answered the hub's version", async () => {
    const claimed = { open: { 'LANE-INV-1': ['2026-03-01', '2026-03-31', 250_000, 'usd'] }, unapplied: { usd: 99_999 }, currencies: { usd: 1 }, divisions: {}, paid_here: true };
    const outcome = await push('customers', [laneCustomer('LCLEDGER', { ledger: claimed })]);
    expect(outcome).toMatchObject({ written: 1, refused: 0 });
    const stored = (await h.t.engine.core.get<CustomerDoc & { [k: string]: unknown }>('customers', 'LANELCLEDGER'))!;
    expect(stored.data.ledger).toEqual({ open: {}, unapplied: {}, currencies: {}, divisions: {} });
    expect(outcome.conflicts.map((c) => (c.data as { ledger: unknown }).ledger)).toEqual([stored.data.ledger]);
    // Exported as a customer with nothing owing and nothing paid, as one made on the hub is.
    type Money = { balance: string; unapplied_payment: string; oldest_open_invoice: string };
    const exported = (await h.api.get<Money>('/api/exports/customer/LCLEDGER')).body;
    const fresh = (await h.api.get<Money>('/api/exports/customer/LCGOOD')).body;
    expect([exported.balance, exported.unapplied_payment, exported.oldest_open_invoice]).toEqual([fresh.balance, fresh.unapplied_payment, '']);
  });
});
