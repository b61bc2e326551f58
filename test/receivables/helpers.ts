import { afterAll, beforeAll } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/engine';
import { startApi, type ApiClient } from '../helpers/http';
import type { Capability } from '../../src/engine/account';

export interface Ctx {
  t: TestEngine;
  api: ApiClient;
}

/** One engine and one loopback API per test file; every response is checked against our OpenAPI document. */
export function useApi(): Ctx {
  const ctx = {} as Ctx;
  beforeAll(async () => {
    ctx.t = await openTestEngine();
    ctx.api = await startApi(ctx.t.engine);
  });
  afterAll(async () => {
    await ctx.api?.close();
    await ctx.t?.close();
  });
  return ctx;
}

export async function withCapabilities<T>(ctx: Ctx, caps: Partial<Record<Capability, boolean>>, fn: () => Promise<T>): Promise<T> {
  const before = { ...ctx.t.engine.account.profile().capabilities };
  await ctx.t.engine.account.update({ capabilities: caps });
  try {
    return await fn();
  } finally {
    await ctx.t.engine.account.update({ capabilities: before });
  }
}

export type ErrorReply = { error: string; code: string; details?: Array<{ field?: string; code?: string; message: string }> };

export const fields = (body: ErrorReply) => (body.details ?? []).map((d) => d.field);

/** A minimal valid PDF. */
export const PDF = Buffer.from('%PDF-1.4\n1 0 obj <</Type /Catalog>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n').toString('base64');

let n = 0;
export const uid = (prefix: string) => `${prefix}${++n}${Math.floor(Math.random() * 1e6)}`;
