import { describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildOpenApi } from '../../src/server/openapi';
import { allRoutes } from '../../src/server/routes';
import { openHarness } from '../helpers/harness';

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document according to a third-party validator', async () => {
    const doc = buildOpenApi(allRoutes, { version: 'test', description: 'test' });
    const validator = new Validator();
    const result = await validator.validate(doc as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('documents every mounted operation once, with unique operation ids', () => {
    const doc = buildOpenApi(allRoutes, { version: 'test', description: '' }) as { paths: Record<string, Record<string, { operationId: string }>> };
    const ops = Object.values(doc.paths).flatMap((p) => Object.values(p).map((o) => o.operationId));
    expect(ops).toHaveLength(allRoutes.length);
    expect(new Set(ops).size).toBe(ops.length);
  });

  it('documents a gateway operation\'s malformed request as its 500 operation error, not a 400', () => {
    const doc = buildOpenApi(allRoutes, { version: 'test', description: '' }) as { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>> };
    const gatewayOps = allRoutes.filter((r) => r.errorShape === 'gateway').map((r) => `${r.method} ${r.path}`);
    expect(gatewayOps.sort()).toEqual(
      [...['verify', 'auth', 'capture', 'sale', 'void', 'refund', 'credit'].map((a) => `post /api/gateway/v1/orders/${a}`), 'post /api/gateway/v1/terminal', 'post /api/gateway/v1/gift_card', 'post /api/gateway/v1/gift_card/read'].sort(),
    );
    for (const op of gatewayOps) {
      const [method, path] = op.split(' ') as [string, string];
      const responses = doc.paths[path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')]![method]!.responses;
      expect(responses['400'], op).toBeUndefined();
      expect(responses['500']?.content?.['application/json']?.schema, op).toEqual({ $ref: '#/components/schemas/GatewayError' });
    }
  });

  it('is served at /api/openapi.json without credentials, and the docs page at /api/docs', async () => {
    const h = await openHarness({ api: true });
    const { api } = h;
    try {
      const res = await fetch(`${api.url}/api/openapi.json`);
      expect(res.status).toBe(200);
      const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
      expect(doc.openapi).toBe('3.1.0');
      expect(doc.paths['/api/whoami']).toBeDefined();
      const docs = await fetch(`${api.url}/api/docs`);
      expect(docs.status).toBe(200);
      expect(await docs.text()).toContain('swagger-ui');
      const asset = await fetch(`${api.url}/api/docs/assets/swagger-ui-bundle.js`);
      expect(asset.status).toBe(200);
    } finally {
      await h.close();
    }
  });
});
