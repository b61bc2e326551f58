import type { Capability } from '../../src/engine/account';
import type { Harness } from './harness';

export async function withCapabilities<T>(h: Harness, caps: Partial<Record<Capability, boolean>>, fn: () => Promise<T>): Promise<T> {
  const before = { ...h.t.engine.account.profile().capabilities };
  await h.t.engine.account.update({ capabilities: caps });
  try {
    return await fn();
  } finally {
    await h.t.engine.account.update({ capabilities: before });
  }
}

export type ErrorReply = { error: string; code: string; details?: Array<{ field?: string; code?: string; message: string }> };

export const fields = (body: ErrorReply) => (body.details ?? []).map((d) => d.field);

/** A minimal valid PDF. */
export const PDF = Buffer.from('%PDF-1.4\n1 0 obj <</Type /Catalog>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n').toString('base64');

let n = 0;
export const uid = (prefix: string) => `${prefix}${++n}${Math.floor(Math.random() * 1e6)}`;
