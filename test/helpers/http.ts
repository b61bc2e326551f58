import { createApp } from '../../src/server/app';
import { startServer, type RunningServer } from '../../src/server/http';
import type { Engine } from '../../src/engine';
import { checkResponse } from './openapi-check';
import { TEST_KEY, TEST_TOKEN } from './engine';

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface ApiClient {
  url: string;
  server: RunningServer;
  request<T = unknown>(method: string, path: string, options?: { body?: unknown; auth?: string | null; headers?: Record<string, string>; raw?: string }): Promise<ApiResponse<T>>;
  get<T = unknown>(path: string, auth?: string | null): Promise<ApiResponse<T>>;
  post<T = unknown>(path: string, body?: unknown, auth?: string | null): Promise<ApiResponse<T>>;
  patch<T = unknown>(path: string, body?: unknown, auth?: string | null): Promise<ApiResponse<T>>;
  put<T = unknown>(path: string, body?: unknown, auth?: string | null): Promise<ApiResponse<T>>;
  delete<T = unknown>(path: string, body?: unknown, auth?: string | null): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

export const basicAuth = (token = TEST_TOKEN, key = TEST_KEY) => `Basic ${Buffer.from(`${token}:${key}`).toString('base64')}`;

/**
 * Real HTTP on loopback against a real engine. Every response is checked against our OpenAPI
 * document; a response the document does not describe fails the test.
 */
export async function startApi(engine: Engine, options: { rateLimit?: number } = {}): Promise<ApiClient> {
  const server = await startServer(engine, { port: 0, rateLimit: options.rateLimit ?? 1_000_000 });
  const client: ApiClient = {
    url: server.url,
    server,
    async request<T>(method: string, path: string, opts: { body?: unknown; auth?: string | null; headers?: Record<string, string>; raw?: string } = {}) {
      const auth = opts.auth === undefined ? basicAuth() : opts.auth;
      const hasBody = opts.body !== undefined || opts.raw !== undefined;
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: {
          ...(auth ? { Authorization: auth } : {}),
          ...(hasBody ? { 'Content-Type': 'application/json' } : {}),
          ...(opts.headers ?? {}),
        },
        ...(hasBody ? { body: opts.raw ?? JSON.stringify(opts.body) } : {}),
      });
      const text = await res.text();
      const type = res.headers.get('content-type') ?? '';
      const body = (type.includes('json') && text ? JSON.parse(text) : text) as T;
      if (path.startsWith('/api/')) {
        const problems = checkResponse(method, path, res.status, body, type);
        if (problems.length) throw new Error(`Response does not match the OpenAPI document:\n${problems.join('\n')}\nbody: ${text.slice(0, 500)}`);
      }
      return { status: res.status, body, headers: res.headers, text };
    },
    get: (path, auth) => client.request('GET', path, { ...(auth !== undefined ? { auth } : {}) }),
    post: (path, body, auth) => client.request('POST', path, { body: body ?? {}, ...(auth !== undefined ? { auth } : {}) }),
    patch: (path, body, auth) => client.request('PATCH', path, { body: body ?? {}, ...(auth !== undefined ? { auth } : {}) }),
    put: (path, body, auth) => client.request('PUT', path, { body: body ?? {}, ...(auth !== undefined ? { auth } : {}) }),
    delete: (path, body, auth) => client.request('DELETE', path, { ...(body !== undefined ? { body } : {}), ...(auth !== undefined ? { auth } : {}) }),
    close: () => server.close(),
  };
  return client;
}

export { createApp };
