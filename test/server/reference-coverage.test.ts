import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, openHarness, type Harness } from '../helpers/harness';
import { checkResponse } from '../helpers/openapi-check';

/**
 * Every operation of the reference's OpenAPI document answers at its path: with credentials, a
 * sample path and an empty body, each gets a status our own OpenAPI document lists for it, and
 * never the 404 of a missing route or a 501. Field rules are other tests' business: here a 400,
 * 404 (no such record) or 412 is a fine answer, since it shows the operation is there.
 */
const REFERENCE = '/work/shared/spec/reference/api-reference-1.3.35.openapi.json';
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

type Operation = { method: string; path: string; tag: string };

function referenceOperations(): Operation[] {
  const doc = JSON.parse(readFileSync(REFERENCE, 'utf8')) as { paths: Record<string, Record<string, { tags?: string[] }>> };
  const out: Operation[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = ops[method];
      if (op) out.push({ method: method.toUpperCase(), path, tag: op.tags?.[0] ?? '' });
    }
  }
  return out;
}


const SAMPLES: Record<string, string> = { bin: '489528', format: 'json', batch_file_id: '1', id: 'SAMPLE1' };
const samplePath = (path: string) => path.replace(/\{([^}]+)\}/g, (_m, name: string) => SAMPLES[name] ?? 'SAMPLE1');

let h: Harness;
let partner: string;
beforeAll(async () => {
  h = await openHarness({ api: true });
  const made = await h.t.engine.account.credentials.create({ name: 'Partner', kind: 'partner' });
  partner = basicAuth(made.token, made.key);
});
afterAll(async () => {
  await h.close();
});

async function call(op: Operation): Promise<{ status: number; body: unknown; type: string }> {
  const hasBody = op.method !== 'GET' && op.method !== 'DELETE';
  const res = await fetch(`${h.api.url}${samplePath(op.path)}`, {
    method: op.method,
    headers: { Authorization: op.tag === 'Onboarding' ? partner : basicAuth(), ...(hasBody ? { 'Content-Type': 'application/json' } : {}) },
    ...(hasBody ? { body: '{}' } : {}),
  });
  const type = res.headers.get('content-type') ?? '';
  const text = await res.text();
  return { status: res.status, body: type.includes('json') && text ? JSON.parse(text) : text, type };
}

const operations = referenceOperations();

describe('the reference\'s operations', () => {
  it('number 93', () => {
    expect(operations).toHaveLength(93);
  });

  it.each(operations.map((op) => [`${op.method} ${op.path}`, op] as const))('%s answers with a documented status', async (_name, op) => {
    const res = await call(op);
    const code = (res.body as { code?: unknown } | null)?.code;
    expect(code, `${op.method} ${op.path}: the route is missing`).not.toBe('route_not_found');
    expect(res.status).not.toBe(501);
    expect(code, `${op.method} ${op.path}: internal error`).not.toBe('internal_error');
    expect(checkResponse(op.method, samplePath(op.path), res.status, res.body, res.type)).toEqual([]);
  });

});
