import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../helpers/harness';
import { card, VISA } from '../helpers/gateway';

/**
 * Valid bodies of the most used operations with one field (at any depth) replaced by an arbitrary
 * JSON value, or a field added: every answer is an answer (a 4xx in the error shape, or the
 * gateway's own 500 `{success: false, errors}`), never an unhandled 500.
 */
const h = useHarness({ api: true });

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const BODIES: Array<[string, Json]> = [
  ['/api/imports/customer', { identifier: 'C-FUZZ', name: 'Acme', email: 'a@acme.test', terms_value: 30, contacts: [{ email: 'ap@acme.test', first_name: 'A' }], attributes_marshal: { k: 'v' } }],
  ['/api/imports/invoice', { number: 'I-FUZZ', customer_identifier: 'C-FUZZ', amount: 5000, date: '2026-03-01', due_date: '2026-03-31', line_items_attributes: [{ description: 'x', amount: 5000, quantity: 1 }] }],
  ['/api/imports/payment', { identifier: 'P-FUZZ', customer_identifier: 'C-FUZZ', amount_cents: 1200, payment_amounts_attributes: [{ invoice_number: 'I-FUZZ', amount_cents: 1200 }] }],
  ['/api/imports/order', { identifier: 'O-FUZZ', amount_cents: 10000, customer_identifier: 'C-FUZZ', line_items: [{ description: 'x', quantity: 1, unit_price_cents: 10000 }] }],
  ['/api/gateway/v1/orders/sale', { amount_cents: 1500, order: { identifier: 'O-FUZZ2' }, contact: { email: 'a@b.test' }, credit_card: card(VISA) as Json }],
  ['/api/gateway/v1/wallets', { customer: { identifier: 'C-FUZZ' }, credit_card: card(VISA) as Json }],
];

/** Every path into a JSON value (objects' keys and arrays' indexes). */
function paths(v: Json, at: Array<string | number> = []): Array<Array<string | number>> {
  if (v === null || typeof v !== 'object') return [at];
  const kids = Array.isArray(v) ? v.map((x, i) => paths(x, [...at, i])) : Object.entries(v).map(([k, x]) => paths(x, [...at, k]));
  return [at, ...kids.flat()];
}

function replaced(v: Json, at: Array<string | number>, value: Json): Json {
  if (at.length === 0) return value;
  const copy = structuredClone(v) as Record<string | number, Json>;
  let node = copy;
  for (const key of at.slice(0, -1)) node = node[key] as Record<string | number, Json>;
  node[at[at.length - 1]!] = value;
  return copy as Json;
}

describe('arbitrary values in request bodies', () => {
  for (const [path, body] of BODIES) {
    it(`POST ${path} never answers an unhandled error`, async () => {
      const all = paths(body);
      await fc.assert(
        fc.asyncProperty(fc.nat({ max: all.length - 1 }), fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>, async (i, value) => {
          const res = await h.api.request<{ code?: string; success?: boolean; errors?: unknown }>('POST', path, { body: replaced(body, all[i]!, value) });
          const gatewayShaped = res.status === 500 && res.body.success === false && Array.isArray(res.body.errors);
          expect(res.status < 500 || gatewayShaped, `${res.status} ${res.text.slice(0, 300)} for ${JSON.stringify(all[i])} = ${JSON.stringify(value).slice(0, 200)}`).toBe(true);
        }),
        { numRuns: 60 },
      );
    });
  }
});
