import { describe, expect, it } from 'vitest';
import type { TSchema } from '@sinclair/typebox';
import { allRoutes } from '../../src/server/routes';
import { posEndpoints } from '../../src/shared/api/pos';
import { backofficeEndpoints } from '../../src/shared/api/backoffice';

// A `ref(X)` in a route's responses names the component X registered; anything else is the schema itself.
const named = (schema: TSchema | undefined) => (schema && '$ref' in schema ? schema.$ref : schema?.$id ?? schema);

describe('the renderer calls the routes the server has, with the same schemas', () => {
  const tables = [...Object.entries(posEndpoints), ...Object.entries(backofficeEndpoints).map(([n, e]) => [`backoffice.${n}`, e] as const)];
  for (const [name, endpoint] of tables) {
    it(`${name}: ${endpoint.method} ${endpoint.path}`, () => {
      const route = allRoutes.find((r) => r.method === endpoint.method.toLowerCase() && r.path === endpoint.path);
      expect(route, 'no such route').toBeDefined();
      expect(route!.body).toBe('body' in endpoint ? endpoint.body : undefined);
      expect(route!.query).toBe('query' in endpoint ? endpoint.query : undefined);
      const success = Object.keys(route!.responses).map(Number).filter((s) => s >= 200 && s < 300);
      expect(success.length).toBeGreaterThan(0);
      for (const status of success) expect(named(route!.responses[status]!.schema), `answer ${status}`).toEqual(named(endpoint.response));
    });
  }
});
