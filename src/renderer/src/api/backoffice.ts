import { apiFetch, type Credentials } from './client';
import type { CallInput, CallOutput } from '../../../shared/api/pos';
import type { BackofficeEndpoints } from '../../../shared/api/backoffice';
import { backofficeRoutes } from '../../../shared/api/backoffice-routes';

export type BoCall<K extends keyof BackofficeEndpoints> = CallInput<BackofficeEndpoints[K]>;
export type BoAnswer<K extends keyof BackofficeEndpoints> = CallOutput<BackofficeEndpoints[K]>;

/** Query strings the way the server's qs reads them: `options[payments]=true` for nested objects. */
function encodeQuery(query: Record<string, unknown>, prefix = ''): string[] {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === '' || value === null) continue;
    const name = prefix ? `${prefix}[${key}]` : key;
    if (typeof value === 'object') parts.push(...encodeQuery(value as Record<string, unknown>, name));
    else parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
  }
  return parts;
}

/** One typed call of the back office's endpoint table (src/shared/api/backoffice.ts). */
export function boCall<K extends keyof BackofficeEndpoints>(creds: Credentials, name: K, input: BoCall<K>): Promise<BoAnswer<K>> {
  const endpoint = backofficeRoutes[name];
  const { params, query, body } = input as { params?: Record<string, string | number>; query?: Record<string, unknown>; body?: unknown };
  const path = endpoint.path.replace(/:(\w+)/g, (_, p: string) => encodeURIComponent(String(params?.[p])));
  const qs = query ? encodeQuery(query).join('&') : '';
  return apiFetch(creds, endpoint.method, qs ? `${path}?${qs}` : path, body);
}
