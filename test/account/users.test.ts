import { describe, expect, it } from 'vitest';
import { isEngineError } from '../../src/engine';
import { LOCK_MS, MAX_FAILURES, MAX_FAILURES_ALL } from '../../src/engine/account/users';
import { useHarness } from '../helpers/harness';
import { recordsOfKind } from '../../src/engine/records';

/** Back-office users in the engine: sign-in links, passwords, lockout, the last owner, sessions. */
const h = useHarness();
const code = (c: string) => (e: unknown) => isEngineError(e) && e.code === c;
/** Tests that hash a hundred passwords or more (scrypt, 16 MiB each): minutes on a loaded machine, not 30 s. */
const SCRYPT_HEAVY = 180_000;

describe('back-office users', () => {
  it('first start makes the owner with a one-time link; the link sets the password once', async () => {
    const users = h.t.engine.users;
    const owner = users.owner()!;
    expect(owner.role).toBe('owner');
    expect(owner.has_password).toBe(false);
    // The first start's secret was printed, not kept: a new link stands for it.
    const { link } = await users.newLink(owner.id);
    await expect(users.redeemLink(link, 'short')).rejects.toSatisfy(code('password_too_short'));
    const session = await users.redeemLink(link, 'correct horse battery', 'boss@example.com');
    expect(session.user.email).toBe('boss@example.com');
    const principal = await users.verifyJwt(session.jwt);
    expect(principal?.user?.role).toBe('owner');
    expect(principal?.scopes).toContain('users');
    // Used once: the same link no longer works.
    await expect(users.redeemLink(link, 'another long password')).rejects.toSatisfy(code('link_invalid'));
    expect((await users.signIn('BOSS@example.com ', 'correct horse battery')).user.id).toBe(owner.id);
  });

  it('a link expires after a day', async () => {
    const { user, link } = await h.t.engine.users.create({ email: 'late@example.com', role: 'clerk' });
    h.t.clock.advanceDays(2);
    await expect(h.t.engine.users.redeemLink(link, 'long enough password')).rejects.toSatisfy(code('link_invalid'));
    expect(h.t.engine.users.get(user.id).has_password).toBe(false);
  });

  it('wrong passwords lock the user for a while, then the right one works again', async () => {
    const users = h.t.engine.users;
    const { link } = await users.create({ email: 'clerk@example.com', role: 'clerk' });
    await users.redeemLink(link, 'clerk password 1');
    for (let i = 0; i < MAX_FAILURES; i++) await expect(users.signIn('clerk@example.com', 'wrong password')).rejects.toSatisfy(code('sign_in_failed'));
    // Locked: even the right password is refused until the lock ends.
    await expect(users.signIn('clerk@example.com', 'clerk password 1')).rejects.toSatisfy(code('user_locked'));
    h.t.clock.advance(LOCK_MS + 1000);
    expect((await users.signIn('clerk@example.com', 'clerk password 1')).user.role).toBe('clerk');
    // An unknown e-mail answers exactly as a wrong password does, lock included: a lock does not
    // tell which e-mails are users.
    for (let i = 0; i < MAX_FAILURES; i++) await expect(users.signIn('nobody@example.com', 'clerk password 1')).rejects.toSatisfy(code('sign_in_failed'));
    await expect(users.signIn('Nobody@example.com', 'clerk password 1')).rejects.toSatisfy(code('user_locked'));
    h.t.clock.advance(LOCK_MS + 1000);
    await expect(users.signIn('nobody@example.com', 'clerk password 1')).rejects.toSatisfy(code('sign_in_failed'));
  });

  it("a stranger's wrong passwords lock out the stranger's address, not the user at another; many addresses lock everyone", async () => {
    const users = h.t.engine.users;
    const { link } = await users.create({ email: 'second.owner@example.com', role: 'manager' });
    await users.redeemLink(link, 'manager password 1');
    for (let i = 0; i < MAX_FAILURES; i++) await expect(users.signIn('second.owner@example.com', 'guess', '203.0.113.9')).rejects.toSatisfy(code('sign_in_failed'));
    await expect(users.signIn('second.owner@example.com', 'manager password 1', '203.0.113.9')).rejects.toSatisfy(code('user_locked'));
    // The user, at the desk, is not locked out by it.
    expect((await users.signIn('second.owner@example.com', 'manager password 1', '127.0.0.1')).user.role).toBe('manager');
    expect(users.list().find((u) => u.email === 'second.owner@example.com')?.locked_until).toBeNull();
    // A guesser spreading tries over many addresses: fifty in a row lock the user for everyone.
    for (let i = 0; i < MAX_FAILURES_ALL; i++) await expect(users.signIn('second.owner@example.com', 'guess', `198.51.100.${Math.floor(i / 4)}`)).rejects.toSatisfy(code('sign_in_failed'));
    await expect(users.signIn('second.owner@example.com', 'manager password 1', '127.0.0.1')).rejects.toSatisfy(code('user_locked'));
    expect(users.list().find((u) => u.email === 'second.owner@example.com')?.locked_until).not.toBeNull();
    // An unknown e-mail meets the same two locks.
    for (let i = 0; i < MAX_FAILURES_ALL; i++) await expect(users.signIn('ghost@example.com', 'guess', `198.51.100.${Math.floor(i / 4)}`)).rejects.toSatisfy(code('sign_in_failed'));
    await expect(users.signIn('ghost@example.com', 'guess', '127.0.0.1')).rejects.toSatisfy(code('user_locked'));
    h.t.clock.advance(LOCK_MS + 1000);
    expect((await users.signIn('second.owner@example.com', 'manager password 1', '127.0.0.1')).user.role).toBe('manager');
  }, SCRYPT_HEAVY);

  it('wrong passwords sent together are bounded as if sent one by one: the user locks after at most fifty, the right one is then refused', async () => {
    const users = h.t.engine.users;
    const { user, link } = await users.create({ email: 'racer@example.com', role: 'manager' });
    await users.redeemLink(link, 'racer password 1');
    // 100 addresses × 2 wrong tries, all at once: before, each try read the count before its hash
    // and wrote its own count + 1 after it, so they overwrote one another and nothing ever locked.
    const tries = Array.from({ length: 200 }, (_, i) => users.signIn('racer@example.com', `wrong ${i}`, `198.18.${Math.floor(i / 2)}.1`));
    const answers = (await Promise.allSettled(tries)).map((r) => (r.status === 'rejected' && isEngineError(r.reason) ? r.reason.code : 'signed in'));
    expect(answers.filter((c) => c === 'sign_in_failed').length).toBeLessThanOrEqual(MAX_FAILURES_ALL);
    expect(answers.filter((c) => c !== 'sign_in_failed' && c !== 'user_locked')).toEqual([]);
    expect(answers.filter((c) => c === 'user_locked').length).toBeGreaterThanOrEqual(200 - MAX_FAILURES_ALL);
    expect(users.get(user.id).locked_until).not.toBeNull();
    await expect(users.signIn('racer@example.com', 'racer password 1', '127.0.0.1')).rejects.toSatisfy(code('user_locked'));
    // From one address: at most five of many tries sent together are tried.
    const { link: other } = await users.create({ email: 'racer2@example.com', role: 'clerk' });
    await users.redeemLink(other, 'racer password 2');
    const oneAddress = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => users.signIn('racer2@example.com', `wrong ${i}`, '203.0.113.50')));
    const fromOne = oneAddress.map((r) => (r.status === 'rejected' && isEngineError(r.reason) ? r.reason.code : 'signed in'));
    expect(fromOne.filter((c) => c === 'sign_in_failed').length).toBeLessThanOrEqual(MAX_FAILURES);
    expect(fromOne.filter((c) => c === 'user_locked').length).toBeGreaterThanOrEqual(30 - MAX_FAILURES);
    await expect(users.signIn('racer2@example.com', 'racer password 2', '203.0.113.50')).rejects.toSatisfy(code('user_locked'));
    expect((await users.signIn('racer2@example.com', 'racer password 2', '127.0.0.1')).user.role).toBe('clerk');
    // An unknown e-mail is bounded alike, so the answers do not tell it from a user.
    const ghost = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => users.signIn('racer.ghost@example.com', `wrong ${i}`, `198.19.${Math.floor(i / 2)}.1`)));
    const ghostAnswers = ghost.map((r) => (r.status === 'rejected' && isEngineError(r.reason) ? r.reason.code : 'signed in'));
    expect(ghostAnswers.filter((c) => c === 'sign_in_failed').length).toBeLessThanOrEqual(MAX_FAILURES_ALL);
    await expect(users.signIn('racer.ghost@example.com', 'anything', '127.0.0.1')).rejects.toSatisfy(code('user_locked'));
    h.t.clock.advance(LOCK_MS + 1000);
    expect((await users.signIn('racer@example.com', 'racer password 1', '127.0.0.1')).user.role).toBe('manager');
  }, SCRYPT_HEAVY);

  it('a password checked while the user was disabled or given a new one does not sign in', async () => {
    const users = h.t.engine.users;
    const { user, link } = await users.create({ email: 'slow@example.com', role: 'clerk' });
    await users.redeemLink(link, 'slow password 1');
    // The hash takes tens of milliseconds: the user is disabled meanwhile.
    const signingIn = users.signIn('slow@example.com', 'slow password 1');
    await users.update(user.id, { enabled: false });
    await expect(signingIn).rejects.toSatisfy(code('sign_in_failed'));
    expect(users.get(user.id).enabled).toBe(false);
  });

  it("a role change or a disabled user takes effect on the user's live session", async () => {
    const users = h.t.engine.users;
    const { user, link } = await users.create({ email: 'mgr@example.com', role: 'manager' });
    const session = await users.redeemLink(link, 'manager password');
    expect((await users.verifyJwt(session.jwt))?.scopes).toContain('money');
    await users.update(user.id, { role: 'clerk' });
    const after = await users.verifyJwt(session.jwt);
    expect(after?.scopes).not.toContain('money');
    expect(after?.user?.role).toBe('clerk');
    await users.update(user.id, { enabled: false });
    expect(await users.verifyJwt(session.jwt)).toBeNull();
    await expect(users.signIn('mgr@example.com', 'manager password')).rejects.toSatisfy(code('sign_in_failed'));
  });

  it('a disabled user\'s sessions stay ended when a new link enables them again; signing out ends that session and its copies only', async () => {
    const users = h.t.engine.users;
    const { user, link } = await users.create({ email: 'gone@example.com', role: 'clerk' });
    const old = await users.redeemLink(link, 'clerk password 2');
    await users.update(user.id, { enabled: false });
    expect(await users.verifyJwt(old.jwt)).toBeNull();
    const again = await users.newLink(user.id);
    expect(again.user.enabled).toBe(true);
    // Issued, not yet used: the session from before the disabling does not come back.
    expect(await users.verifyJwt(old.jwt)).toBeNull();
    const fresh = await users.redeemLink(again.link, 'clerk password 3');
    expect((await users.verifyJwt(fresh.jwt))?.user?.id).toBe(user.id);
    // Sign out: this session and a copy of it end, another browser's session goes on; signing in again works.
    const elsewhere = await users.signIn('gone@example.com', 'clerk password 3');
    const copy = fresh.jwt;
    await users.signOut(user.id, fresh.jwt, fresh.exp);
    expect(await users.verifyJwt(copy)).toBeNull();
    expect((await users.verifyJwt(elsewhere.jwt))?.user?.id).toBe(user.id);
    const back = await users.signIn('gone@example.com', 'clerk password 3');
    expect((await users.verifyJwt(back.jwt))?.user?.id).toBe(user.id);
    // Signed out stays signed out across a restart.
    await h.restart();
    expect(await h.t.engine.users.verifyJwt(copy)).toBeNull();
    expect((await h.t.engine.users.verifyJwt(elsewhere.jwt))?.user?.id).toBe(user.id);
    expect(await recordsOfKind(h.t.engine.core, 'session_signed_out')).toHaveLength(1);
    // Once the session would have expired anyway, its record goes at the next start.
    h.t.clock.advanceDays(2);
    await h.restart();
    expect(await h.t.engine.users.verifyJwt(copy)).toBeNull();
    expect(await recordsOfKind(h.t.engine.core, 'session_signed_out')).toEqual([]);
  });

  it('the last owner cannot be demoted or disabled; e-mails are unique; roles are checked', async () => {
    const users = h.t.engine.users;
    const owner = users.owner()!;
    await expect(users.update(owner.id, { role: 'manager' })).rejects.toSatisfy(code('last_owner'));
    await expect(users.update(owner.id, { enabled: false })).rejects.toSatisfy(code('last_owner'));
    await expect(users.create({ email: 'clerk@example.com', role: 'clerk' })).rejects.toSatisfy(code('user_exists'));
    await expect(users.create({ email: 'x@example.com', role: 'admin' })).rejects.toSatisfy(code('invalid_role'));
    await expect(users.create({ email: 'not an email', role: 'clerk' })).rejects.toSatisfy(code('invalid_email'));
    // The engine's one e-mail rule (EMAIL_RE, as customers' and invoices' addresses): a domain with no ending is no address.
    await expect(users.create({ email: 'marie.dupont@exemple', role: 'clerk' })).rejects.toSatisfy(code('invalid_email'));
    await expect(users.create({ email: 'a>x<b@evil.test', role: 'clerk' })).rejects.toSatisfy(code('invalid_email'));
    const second = await users.create({ email: 'owner2@example.com', role: 'owner' });
    expect((await users.update(owner.id, { role: 'manager' })).role).toBe('manager');
    await users.update(owner.id, { role: 'owner' });
    await users.update(second.user.id, { enabled: false });
  });

  it('stores only a salted hash: no password or link secret at rest', async () => {
    const users = h.t.engine.users;
    const { user, link } = await users.create({ email: 'hash@example.com', role: 'cashier' });
    await users.redeemLink(link, 'a secret passphrase');
    const rec = await h.t.engine.core.get<{ id: string; watermark: number; data: Record<string, unknown> }>('records', `user/${user.id}`);
    const text = JSON.stringify(rec);
    expect(text).not.toContain('a secret passphrase');
    expect(text).not.toContain(link);
    expect((rec!.data.password as { salt: string }).salt).toMatch(/^[0-9a-f]{32}$/);
  });
});
