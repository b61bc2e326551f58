import { afterEach, describe, expect, it } from 'vitest';
import { openHarness, type Harness } from '../helpers/harness';

/**
 * Two pairing codes shown for the same lane (the first one lost, say, and a second one shown) must
 * not pair two machines as that lane: the second would take over the lane's records while the first
 * kept a working credential the hub no longer lists, so nobody could revoke it.
 */
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const pair = (api: Harness['api'], code: string) => api.request('POST', '/api/sync/pair', { body: { code }, auth: null });

describe('pairing codes for one lane', () => {
  it('the second code of a lane already paired is refused, and nothing is made for it', async () => {
    h = await openHarness({ api: true });
    const first = await h.api.request<{ code: string }>('POST', '/api/sync/pairing-codes', { body: { laneid: '7' } });
    const second = await h.api.request<{ code: string }>('POST', '/api/sync/pairing-codes', { body: { laneid: '7' } });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);

    const granted = await pair(h.api, first.body.code);
    expect(granted.status).toBe(201);
    const refused = await pair(h.api, second.body.code);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'lane_paired', error: expect.stringContaining('Lane 7 is paired already') });

    const lanes = await h.api.request<{ lanes: Array<{ laneid: string; credential: string; revoked_at: string | null }> }>('GET', '/api/sync/lanes');
    expect(lanes.body.lanes.filter((l) => l.laneid === '7')).toHaveLength(1);
    // The lane the hub lists is the first machine's, and only one lane credential exists.
    const credentials = await h.api.request<{ credentials: Array<{ token: string; name: string; disabled_at: string | null }> }>('GET', '/api/account/credentials');
    const laneCreds = (credentials.body.credentials ?? []).filter((c) => c.name === 'Lane 7 (sync)');
    expect(laneCreds).toHaveLength(1);
  });

  it('after the lane is revoked, a new code pairs it again', async () => {
    h = await openHarness({ api: true });
    const first = await h.api.request<{ code: string }>('POST', '/api/sync/pairing-codes', { body: { laneid: '3' } });
    expect((await pair(h.api, first.body.code)).status).toBe(201);
    expect((await h.api.request('DELETE', '/api/sync/lanes/3')).status).toBe(200);
    const again = await h.api.request<{ code: string }>('POST', '/api/sync/pairing-codes', { body: { laneid: '3' } });
    expect((await pair(h.api, again.body.code)).status).toBe(201);
  });
});
