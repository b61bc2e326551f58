import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { startGateway, type Harness } from '../helpers/gateway';

/**
 * Every request example the reference API document gives for the operations of this domain is
 * accepted as it is written (no 400: our schemas take what existing clients send) and answered with
 * a status and body our OpenAPI document describes (checked by the test client). The examples name
 * tokens and cards that do not exist here, so many are refused by the engine: what matters is the
 * shape. The paths of this domain must all exist.
 */
type RefDoc = {
  paths: Record<string, Record<string, { tags?: string[]; requestBody?: { content?: Record<string, { examples?: Record<string, { $ref?: string; value?: unknown }> }> } }>>;
  components: { examples: Record<string, { value: unknown }> };
};

const doc = JSON.parse(readFileSync('/work/shared/spec/reference/api-reference-1.3.35.openapi.json', 'utf8')) as RefDoc;
const TAGS = new Set(['Orders', 'Order Transactions', 'Wallets', 'Autopay', 'Gift Cards', 'Reference Data']);

let h: Harness;
beforeAll(async () => {
  h = await startGateway();
});
afterAll(async () => {
  await h.close();
});

function concrete(path: string): string {
  return path.replace('{wallet_token}', 'WALLETX').replace('{fund_token}', 'FUNDX').replace('{identifier}', 'ORDERX').replace('{token_or_reference}', 'TXX').replace('{bin}', '489528').replace('{token}', 'TOKENX');
}

describe('the reference API examples', () => {
  it('has every path of this domain', async () => {
    const missing: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (!op.tags?.some((t) => TAGS.has(t)) || path === '/api/reference_data/v1/country_codes') continue;
        const res = await h.api.request(method.toUpperCase(), method === 'get' && path === '/api/autopay' ? '/api/autopay?customer_identifier=C1' : concrete(path), method === 'get' || method === 'delete' ? {} : { body: {} });
        if (res.status === 404 && (res.body as { code?: string }).code === 'route_not_found') missing.push(`${method} ${path}`);
      }
    }
    for (const path of ['/api/gateway/v1/transactions/{token}', '/api/gateway/v1/orders/{token}', '/api/gateway/v1/payments/{token}']) {
      const res = await h.api.get<{ code?: string }>(concrete(path));
      if (res.body.code === 'route_not_found') missing.push(`get ${path}`);
    }
    expect(missing).toEqual([]);
  });

  it('accepts every request example of this domain as written', async () => {
    let sent = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (!op.tags?.some((t) => TAGS.has(t))) continue;
        const examples = op.requestBody?.content?.['application/json']?.examples ?? {};
        for (const [name, ex] of Object.entries(examples)) {
          const body = ex.$ref ? doc.components.examples[ex.$ref.split('/').pop()!]!.value : ex.value;
          const res = await h.api.request(method.toUpperCase(), concrete(path), { body });
          sent += 1;
          expect(res.status, `${method} ${path} ${name}: ${res.text.slice(0, 300)}`).not.toBe(400);
          expect([200, 201, 412, 500], `${method} ${path} ${name}`).toContain(res.status);
        }
      }
    }
    expect(sent).toBeGreaterThan(40);
  });
});
