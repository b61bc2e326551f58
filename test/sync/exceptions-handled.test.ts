import { describe, expect, it } from 'vitest';
import { applyPush } from '../../src/engine/sync/master';
import type { SyncDoc } from '../../src/engine/sync/streams';
import { useHarness } from '../helpers/harness';
import { card, op, VISA } from '../helpers/gateway';

/**
 * A sync exception is open until somebody marks it handled (POST /api/sync/exceptions/handled):
 * who and when are kept, open ones are listed first, and the same exception happening again opens
 * it again.
 */
const h = useHarness({ api: true });
type Listed = { exceptions: Array<Record<string, unknown> & { key: string; handled_at: string | null }> };

/** A lane pushing a transaction the hub made: refused, recorded as a sync exception (master.ts). */
async function refusedPush(): Promise<string> {
  const sale = await op(h.api, 'sale', { amount_cents: 4200, credit_card: card(VISA) });
  const { core } = h.t.engine;
  const current = (await core.get<SyncDoc>('transactions', sale.body.transaction))!;
  const forged = { ...current, data: { ...(current.data as object), state: 'cancelled', laneid: '1' } };
  expect(await applyPush(core, 'transactions', '1', [{ newDocumentState: forged }])).toMatchObject({ refused: 1 });
  return `1:${current.id}`;
}

describe('sync exceptions handled', () => {
  it('marks one handled with who and when, and lists open ones first', async () => {
    const first = await refusedPush();
    const second = await refusedPush();
    let listed = (await h.api.get<Listed>('/api/sync/resolutions')).body;
    expect(listed.exceptions.map((e) => [e.key, e.handled_at])).toEqual([[second, null], [first, null]]);

    h.t.clock.advance(60_000);
    const done = await h.api.post<Record<string, unknown>>('/api/sync/exceptions/handled', { key: second, note: 'voided on the lane by hand' });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ key: second, handled_at: new Date(h.t.clock.now()).toISOString(), handled_note: 'voided on the lane by hand', reason: 'owner_mismatch' });
    expect(String(done.body.handled_by)).toContain('API credential');
    listed = (await h.api.get<Listed>('/api/sync/resolutions')).body;
    expect(listed.exceptions.map((e) => e.key)).toEqual([first, second]);
    expect(listed.exceptions[1]!.handled_at).toBe(done.body.handled_at);

    // Again: nothing changes, the first handling is kept.
    h.t.clock.advance(60_000);
    const again = await h.api.post<Record<string, unknown>>('/api/sync/exceptions/handled', { key: second });
    expect(again.body.handled_at).toBe(done.body.handled_at);

    const missing = await h.api.post<{ code: string }>('/api/sync/exceptions/handled', { key: 'no-such-exception' });
    expect([missing.status, missing.body.code]).toEqual([404, 'sync_exception_not_found']);
    const bad = await h.api.post<{ code: string }>('/api/sync/exceptions/handled', { key: '' });
    expect(bad.status).toBe(400);
  });

  it('opens a handled exception again when the same refusal happens again', async () => {
    const sale = await op(h.api, 'sale', { amount_cents: 1200, credit_card: card(VISA) });
    const { core } = h.t.engine;
    const current = (await core.get<SyncDoc>('transactions', sale.body.transaction))!;
    const push = (state: string) => applyPush(core, 'transactions', '1', [{ newDocumentState: { ...current, data: { ...(current.data as object), state, laneid: '1' } } }]);
    await push('cancelled');
    const key = `1:${current.id}`;
    expect((await h.api.post('/api/sync/exceptions/handled', { key })).status).toBe(200);
    await push('voided');
    const listed = (await h.api.get<Listed>('/api/sync/resolutions')).body;
    expect(listed.exceptions.find((e) => e.key === key)).toMatchObject({ handled_at: null });
    expect(listed.exceptions[0]!.key).toBe(key);
  });
});
