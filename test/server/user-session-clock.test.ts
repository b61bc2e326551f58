import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../helpers/gateway';

let h: Harness;
beforeEach(async () => {
  h = await startGateway();
});
afterEach(async () => {
  await h.close();
});

/**
 * A back-office session is minted on the real time, like every JWT (engine/clock.ts realNow): an
 * owner who moves the sandbox clock from the Settlement screen stays signed in, and one who signs
 * in after the move gets a session that works (it was refused at once when checked on the moved time).
 */
describe('back-office sessions under a moved sandbox clock', () => {
  it('survive the move, and a sign-in after it works', async () => {
    const owner = h.t.engine.users.owner()!;
    const { link } = await h.t.engine.users.newLink(owner.id);
    const s = await h.api.post<{ jwt: string }>('/api/session/link', { link, password: 'owner password', email: 'owner@example.com' }, null);
    expect(s.status).toBe(200);
    const moved = await h.api.post('/api/sandbox/v1/clock/advance', { by: 'P3D' }, `Bearer ${s.body.jwt}`);
    expect(moved.status).toBe(200);
    expect((await h.api.get('/api/session', `Bearer ${s.body.jwt}`)).status).toBe(200);
    const again = await h.api.post<{ jwt: string }>('/api/session', { email: 'owner@example.com', password: 'owner password' }, null);
    expect(again.status).toBe(200);
    expect((await h.api.get('/api/status', `Bearer ${again.body.jwt}`)).status).toBe(200);
  });
});

describe('sign-in links and lock-outs under a moved sandbox clock', () => {
  it('a link made before the move still signs in after it (links expire a day later in real time: test/account/users.test.ts)', async () => {
    const owner = h.t.engine.users.owner()!;
    const { link } = await h.t.engine.users.newLink(owner.id);
    const key = await h.api.post('/api/sandbox/v1/clock/advance', { by: 'P2D' });
    expect(key.status).toBe(200);
    const s = await h.api.post<{ jwt: string }>('/api/session/link', { link, password: 'owner password', email: 'owner@example.com' }, null);
    expect(s.status).toBe(200);
  });
});
