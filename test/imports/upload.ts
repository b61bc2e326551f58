import { expect } from 'vitest';
import { basicAuth, type ApiClient } from '../helpers/harness';
import { checkResponse } from '../helpers/openapi-check';

export interface Batch {
  id: number;
  file_name: string;
  file_size: number;
  file_content_type: string;
  file_fingerprint: string;
  file_errors_count: number;
  error: string;
  result_message: string;
  complete_at: string | null;
  status: 'processing' | 'completed' | 'failed';
  kind: string;
  lines_done: number;
  lines_total: number;
  held_back?: { open_invoices: number; unlisted: number } | null;
}

/** A real multipart upload (FormData and Blob, as a browser or an integration builds it), checked against the OpenAPI document. */
export async function upload(url: string, csv: string | Uint8Array, options: { filename?: string; force?: boolean; confirmClose?: boolean; type?: string; auth?: string; path?: string } = {}) {
  const name = options.filename ?? 'data.csv';
  const form = new FormData();
  form.append('filename', name);
  // A form part, as the back office sends it (force goes in the query, as a script often does).
  if (options.confirmClose) form.append('confirm_close', 'true');
  form.append('file', new Blob([csv], { type: options.type ?? 'text/csv' }), name);
  const res = await fetch(`${url}${options.path ?? '/api/imports'}${options.force ? '?force=true' : ''}`, { method: 'POST', headers: { Authorization: options.auth ?? basicAuth() }, body: form });
  const text = await res.text();
  const body = (res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) as Batch & { code: string; error: string };
  const problems = checkResponse('POST', '/api/imports', res.status, body, res.headers.get('content-type') ?? '');
  expect(problems).toEqual([]);
  return { status: res.status, body };
}

/** Waits for a batch to leave `processing` (the engine runs it in the background). */
export async function settled(api: ApiClient, id: number, timeoutMs = 60_000): Promise<Batch> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await api.get<Batch>(`/api/imports/${id}`);
    expect(res.status).toBe(200);
    if (res.body.status !== 'processing') return res.body;
    if (Date.now() > until) throw new Error(`batch ${id} still processing: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function importCsv(api: ApiClient, csv: string, options: { filename?: string; force?: boolean } = {}): Promise<Batch> {
  const res = await upload(api.url, csv, { force: true, ...options });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return settled(api, res.body.id);
}
