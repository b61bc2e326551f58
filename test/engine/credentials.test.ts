import { afterEach, describe, expect, it } from 'vitest';
import { openTestEngine, TEST_KEY, TEST_TOKEN, type TestEngine } from '../helpers/harness';
import { authorize } from '../../src/engine/account';

let t: TestEngine | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('credentials and JWTs', () => {
  it('accepts the first credentials and refuses a wrong key or an unknown token', async () => {
    t = await openTestEngine();
    const c = t.engine.account.credentials;
    expect(c.verifyBasic(TEST_TOKEN, TEST_KEY)).toMatchObject({ credential: TEST_TOKEN, via: 'basic' });
    expect(c.verifyBasic(TEST_TOKEN, `${TEST_KEY}x`)).toBeNull();
    expect(c.verifyBasic('NOSUCHTOKEN1', TEST_KEY)).toBeNull();
  });

  it('a disabled credential and its JWTs fail at once', async () => {
    t = await openTestEngine();
    const c = t.engine.account.credentials;
    const made = await c.create({ name: 'Web shop' });
    const { jwt } = await c.issueJwt(made.token, 30);
    expect(await c.verifyJwt(jwt)).toMatchObject({ credential: made.token, via: 'jwt' });
    await c.disable(made.token);
    expect(c.verifyBasic(made.token, made.key)).toBeNull();
    expect(await c.verifyJwt(jwt)).toBeNull();
  });

  it('JWT expiry follows jwt_expiry days on the engine clock', async () => {
    t = await openTestEngine();
    const c = t.engine.account.credentials;
    const { jwt, exp } = await c.issueJwt(TEST_TOKEN, 2);
    expect(exp).toBe(Math.floor(t.clock.now() / 1000) + 2 * 86400);
    t.clock.advanceDays(1);
    expect(await c.verifyJwt(jwt)).not.toBeNull();
    t.clock.advanceDays(1.01);
    expect(await c.verifyJwt(jwt)).toBeNull();
  });

  it('refuses a JWT expiry outside 1..365 days', async () => {
    t = await openTestEngine();
    await expect(t.engine.account.credentials.issueJwt(TEST_TOKEN, 0)).rejects.toMatchObject({ code: 'invalid_jwt_expiry' });
    await expect(t.engine.account.credentials.issueJwt(TEST_TOKEN, 366)).rejects.toMatchObject({ code: 'invalid_jwt_expiry' });
  });

  it('refuses a JWT signed with another key', async () => {
    t = await openTestEngine();
    const other = await openTestEngine();
    try {
      const { jwt } = await other.engine.account.credentials.issueJwt(TEST_TOKEN, 30);
      expect(await t.engine.account.credentials.verifyJwt(jwt)).toBeNull();
    } finally {
      await other.close();
    }
  });

  it('scopes: the key holds every scope; a JWT holds api unless minted with more, and mints nothing wider or longer than itself', async () => {
    t = await openTestEngine();
    const { account } = t.engine;
    const key = account.credentials.verifyBasic(TEST_TOKEN, TEST_KEY)!;
    expect(key.scopes).toEqual(['api', 'credentials', 'users', 'settings']);
    expect(() => authorize(key, 'credentials')).not.toThrow();

    const screens = (await account.whoami(TEST_TOKEN, 1))[TEST_TOKEN]!;
    const session = (await account.credentials.verifyJwt(screens.jwt))!;
    expect(session).toMatchObject({ via: 'jwt', scopes: ['api'], exp: screens.jwt_exp });
    expect(() => authorize(session, 'credentials')).toThrow(expect.objectContaining({ code: 'insufficient_scope', kind: 'forbidden' }));
    expect((await account.whoami(session, 365))[TEST_TOKEN]!.jwt_exp).toBe(screens.jwt_exp);
    await expect(account.whoami(session, 1, ['api', 'credentials'])).rejects.toMatchObject({ code: 'insufficient_scope' });

    const owner = (await account.whoami(key, 2, ['api', 'credentials']))[TEST_TOKEN]!;
    expect((await account.credentials.verifyJwt(owner.jwt))!.scopes).toEqual(['api', 'credentials']);
  });
});
