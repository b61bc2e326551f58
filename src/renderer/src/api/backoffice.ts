import { ApiError, apiFetch, apiFetchWithHeaders, type Credentials } from './client';
import { MAIL_MESSAGES_HEADER } from '../../../shared/mail-header';
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
  // A GET carries no body in a browser (GET /api/autopay declares one for the reference's callers).
  return apiFetch(creds, endpoint.method, qs ? `${path}?${qs}` : path, endpoint.method === 'GET' ? undefined : body);
}

/**
 * A call that queues e-mail (an invitation, a reminder): its answer, and the ids of the outbox
 * messages it queued (the Laneway-Mail-Messages header), so the screen can say whether they went.
 */
export async function boCallQueued<K extends 'invite' | 'remind'>(creds: Credentials, name: K, input: BoCall<K>): Promise<{ answer: BoAnswer<K>; messages: string[] }> {
  const endpoint = backofficeRoutes[name];
  const { params, body } = input as { params?: Record<string, string | number>; body?: unknown };
  const path = endpoint.path.replace(/:(\w+)/g, (_, p: string) => encodeURIComponent(String(params?.[p])));
  const { data, headers } = await apiFetchWithHeaders<BoAnswer<K>>(creds, endpoint.method, path, body);
  return { answer: data, messages: (headers.get(MAIL_MESSAGES_HEADER) ?? '').split(',').filter(Boolean) };
}

// A shape whose `error` is the reference's code (a wallet method's) says it in words as `message`.
const refusal = (status: number, e: { error?: string; message?: string; code?: string }, statusText: string) => new ApiError(status, String(e.code ?? status), e.message ?? e.error ?? statusText);

async function refused(res: Response): Promise<ApiError> {
  return refusal(res.status, (await res.json().catch(() => ({}))) as { error?: string; code?: string }, res.statusText);
}

/**
 * POST /api/imports: the file as multipart/form-data (parts `file` and `filename`), streamed by the
 * browser; refusals (413, 415, 412, 409) arrive as ApiError with the engine's message. Sent with
 * XMLHttpRequest, the one browser API that reports how much of a body went out: `onProgress` gets
 * the bytes sent and the total (a 25 MB file to a back-office server across the shop takes a while).
 */
/**
 * `force`: the same file again within 24 hours. `confirmClose`: an invoice reconciliation may close
 * the open invoices it leaves out even when they are most of them (docs/csv-imports.md).
 */
export interface UploadOptions {
  force?: boolean;
  confirmClose?: boolean;
}

export function boUpload(creds: Credentials, file: File, options: UploadOptions = {}, onProgress?: (sent: number, total: number) => void): Promise<BoAnswer<'uploadImport'>> {
  const form = new FormData();
  form.append('filename', file.name);
  if (options.force) form.append('force', 'true');
  if (options.confirmClose) form.append('confirm_close', 'true');
  form.append('file', file, file.name);
  const endpoint = backofficeRoutes.uploadImport;
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(endpoint.method, `${creds.baseUrl}${endpoint.path}`);
    xhr.setRequestHeader('Authorization', creds.authorization);
    if (onProgress) xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded, e.total);
    xhr.onload = () => {
      let body: unknown = {};
      try {
        body = JSON.parse(xhr.responseText || '{}');
      } catch {
        // A proxy's HTML error page: the status says enough.
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as BoAnswer<'uploadImport'>);
      else reject(refusal(xhr.status, body as { error?: string; code?: string }, xhr.statusText));
    };
    xhr.onerror = () => reject(new ApiError(0, 'network', 'Laneway is not answering. Check that it is running, then try again.'));
    xhr.send(form);
  });
}

/** A CSV answer (batch errors, tokenized results) as a file: fetched with the user's credentials, then saved. */
export async function boDownload(creds: Credentials, name: 'importErrorsCsv' | 'importEcho', id: number, fileName: string): Promise<void> {
  const res = await fetch(`${creds.baseUrl}${backofficeRoutes[name].path.replace(':id', String(id))}`, { headers: { Authorization: creds.authorization } });
  if (!res.ok) throw await refused(res);
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
