import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES, type Role } from '../../src/engine/account/roles';
import { getWebhooks, webhookResponses } from '../../src/server/routes/webhooks';
import { basicAuth, useHarness } from '../helpers/harness';
import { admits } from '../helpers/roles';
import { startReceiver, type Receiver } from '../helpers/receiver';

/**
 * The webhook delivery log shows every endpoint's URL and the start of each answer: it is read by
 * exactly who reads the endpoints themselves (never a clerk), and keeps only a short excerpt.
 */
const h = useHarness({ api: true, webhookDelivery: { timeoutMs: 2_000, retryBaseMs: 1_000 } });
let rx: Receiver;
const sessions: Partial<Record<Role, string>> = {};
// A receiver that answers more than anyone debugging it needs (its own data, say).
const ANSWER = `ok ${'x'.repeat(600)}`;

beforeAll(async () => {
  rx = await startReceiver('/hooks/tok-SECRET-123');
  rx.script([], { status: 200, body: ANSWER });
  const owner = h.t.engine.users.owner()!;
  const { link } = await h.t.engine.users.newLink(owner.id);
  sessions.owner = (await h.api.post<{ jwt: string }>('/api/session/link', { link, password: 'owner password', email: 'owner@example.com' }, null)).body.jwt;
  for (const role of ['manager', 'clerk'] as const) {
    const made = await h.api.post<{ link: string }>('/api/users', { email: `${role}@example.com`, role }, `Bearer ${sessions.owner}`);
    expect(made.status).toBe(201);
    sessions[role] = (await h.api.post<{ jwt: string }>('/api/session/link', { link: made.body.link, password: `${role} password` }, null)).body.jwt;
  }
  expect((await h.api.post('/api/account/webhooks', { url: rx.url, events: ['customer.created'] })).status).toBe(201);
  expect((await h.api.post('/api/imports/customer', { identifier: 'C-LOG-1', name: 'Logged' })).status).toBe(201);
  await h.t.engine.webhooks.drain();
  await rx.waitFor(1);
});
afterAll(async () => {
  await rx.close();
});

type Log = { webhook_responses: Array<{ url: string; body_excerpt: string }> };

describe('who reads the webhook delivery log', () => {
  it('a clerk reads neither the endpoints nor their log; a manager, the owner and the API key read both', async () => {
    const clerk = `Bearer ${sessions.clerk}`;
    const log = await h.api.get<Log & { code: string }>('/api/developers/webhook_responses', clerk);
    expect([log.status, log.body.code]).toEqual([403, 'role_forbidden']);
    expect(JSON.stringify(log.body)).not.toContain('tok-SECRET-123');
    expect((await h.api.get('/api/account/webhooks', clerk)).status).toBe(403);
    // The rest of a clerk's reads are untouched.
    expect((await h.api.get('/api/exports/customer/C-LOG-1', clerk)).status).toBe(200);

    for (const auth of [`Bearer ${sessions.manager}`, `Bearer ${sessions.owner}`, basicAuth()]) {
      const page = await h.api.get<Log>('/api/developers/webhook_responses', auth);
      expect(page.status).toBe(200);
      expect(page.body.webhook_responses[0]?.url).toBe(rx.url);
      expect((await h.api.get('/api/account/webhooks', auth)).status).toBe(200);
    }
  });

  it('every role reads the log exactly where it reads the endpoints (one rule for both)', () => {
    for (const role of ROLES) expect(admits(role, webhookResponses), role).toBe(admits(role, getWebhooks));
    expect(admits('clerk', webhookResponses)).toBe(false);
  });

  it("keeps only the first 200 characters of a receiver's answer", async () => {
    const page = await h.api.get<Log>('/api/developers/webhook_responses');
    expect(page.body.webhook_responses[0]?.body_excerpt).toBe(ANSWER.slice(0, 200));
  });
});
