import express from 'express';
import { describe, expect, it } from 'vitest';
import type { AnyRoute } from '../../src/server/route';
import { routeLayers, staticDispatch, type RouteHandler } from '../../src/server/static-dispatch';

/**
 * Pins the express internals static dispatch reads (router@2: route layers, `match`, the private
 * `route._handlesMethod`). An express upgrade that changes them fails here rather than turning
 * the fast path off in silence (or failing at start-up).
 */
describe('static dispatch on express internals', () => {
  const handler = (name: string): RouteHandler => {
    const h = async (_req: express.Request, res: express.Response) => void res.json({ name });
    Object.defineProperty(h, 'name', { value: name });
    return h;
  };
  const routes = [
    { route: { method: 'get', path: '/api/x/:id' }, handler: handler('byId') },
    { route: { method: 'get', path: '/api/x/special' }, handler: handler('shadowed') },
    { route: { method: 'get', path: '/api/x' }, handler: handler('list') },
    { route: { method: 'post', path: '/api/x' }, handler: handler('create') },
  ];
  const app = express();
  for (const { route, handler: h } of routes) app[route.method as 'get' | 'post'](route.path, h);

  it('finds the route layers, their match and their private _handlesMethod', () => {
    const layers = routeLayers(app);
    expect(layers).toHaveLength(routes.length);
    for (const layer of layers) {
      expect(typeof layer.match).toBe('function');
      expect(typeof layer.route?._handlesMethod).toBe('function');
      expect(Array.isArray(layer.route?.stack)).toBe(true);
    }
    const list = layers[2]!;
    expect(list.match('/api/x')).toBeTruthy();
    expect(list.match('/api/y')).toBeFalsy();
    expect(list.route!._handlesMethod('GET')).toBe(true);
    expect(list.route!._handlesMethod('DELETE')).toBe(false);
    expect(layers[3]!.route!._handlesMethod('POST')).toBe(true);
    expect(layers[3]!.route!._handlesMethod('GET')).toBe(false);
  });

  it('maps exactly the static paths the router would give to the same route', () => {
    const fast = staticDispatch(app, routes as unknown as Array<{ route: AnyRoute; handler: RouteHandler }>);
    expect([...fast.keys()].sort()).toEqual(['GET /api/x', 'POST /api/x']);
    expect(fast.get('GET /api/x')).toBe(routes[2]!.handler);
    expect(fast.get('POST /api/x')).toBe(routes[3]!.handler);
  });
});
