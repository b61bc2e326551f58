import { describe, expect, it } from 'vitest';
import { createHmac, scryptSync } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { SignJWT } from 'jose';
import { openTestEngine, TEST_KEY, TEST_TOKEN, startApi } from '../helpers/harness';
import type { ManualClock } from '../../src/engine';
import { tempDir } from '../helpers/tmp';
import { luhnValid } from '../../src/engine/security/card-data';
import { INSTALL_ID_FILE, KEY_FILE_NAME, KEYS_FOLDER, KEYS_HOME_ENV, KeyFileError, keyFilePath } from '../../src/engine/security/install-keys';
import { getRecord, putRecord } from '../../src/engine/records';
import { DISCOVER, MASTERCARD, VISA, card } from '../helpers/cards';

const GIFT = '7777000011112222';
const GIFT_PIN = '4321';

/** Every file under a folder, by path relative to it. */
function filesOf(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p));
    }
  };
  walk(dir);
  return out;
}

/**
 * Every value stored in the copied database, parsed: what an attacker holding the file reads with
 * any SQLite tool. JSON cells are parsed and walked.
 */
function storedValues(file: string): unknown[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  const values: unknown[] = [];
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    for (const t of tables) {
      for (const row of db.prepare(`SELECT * FROM "${t.replace(/"/g, '""')}"`).all() as Array<Record<string, unknown>>) {
        for (const cell of Object.values(row)) {
          if (typeof cell !== 'string') continue;
          try {
            values.push(JSON.parse(cell));
          } catch {
            values.push(cell);
          }
        }
      }
    }
  } finally {
    db.close();
  }
  return values;
}

function walk(value: unknown, visit: (o: Record<string, unknown>) => void): void {
  if (Array.isArray(value)) value.forEach((v) => walk(v, visit));
  else if (value && typeof value === 'object') {
    visit(value as Record<string, unknown>);
    Object.values(value).forEach((v) => walk(v, visit));
  }
}

/**
 * Every string in the folder's files that could be a key: hex runs of 32 to 128 characters, taken
 * both as the bytes they encode and as text (an earlier version keyed one HMAC with the hex text).
 * `likely`: the 32-byte hex ones, the shape of every key Laneway has made.
 */
function candidateKeys(files: Map<string, Buffer>): { all: Buffer[]; likely: Buffer[] } {
  const found = new Set<string>();
  for (const bytes of files.values()) for (const m of bytes.toString('latin1').matchAll(/(?<![0-9a-fA-F])[0-9a-fA-F]{32,128}(?![0-9a-fA-F])/g)) found.add(m[0]);
  const all: Buffer[] = [];
  const likely: Buffer[] = [];
  for (const hex of found) {
    if (hex.length % 2 === 0) all.push(Buffer.from(hex, 'hex'));
    if (hex.length === 64) likely.push(Buffer.from(hex, 'hex'));
    all.push(Buffer.from(hex, 'utf8'));
  }
  return { all, likely };
}

type CardRecord = { bin: string; last4: string; length: number; fingerprint: string };

const matches = (key: Buffer, pan: string, record: CardRecord) => createHmac('sha256', key).update(`card:${pan}`).digest('hex').slice(0, record.fingerprint.length) === record.fingerprint;

/** The offline search of issue 13: every Luhn-valid number with this BIN, last four and length. */
function searchCard(record: CardRecord, keys: Buffer[]): string[] {
  const middle = record.length - 10;
  const hits: string[] = [];
  const candidates: string[] = [];
  for (let i = 0; i < 10 ** middle; i++) {
    const pan = `${record.bin}${String(i).padStart(middle, '0')}${record.last4}`;
    if (luhnValid(pan)) candidates.push(pan);
  }
  for (const key of keys) for (const pan of candidates) if (matches(key, pan, record)) hits.push(pan);
  return hits;
}

function modes(dir: string): Array<{ path: string; mode: string }> {
  const out: Array<{ path: string; mode: string }> = [{ path: '.', mode: (statSync(dir).mode & 0o777).toString(8) }];
  const w = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      out.push({ path: relative(dir, p), mode: (statSync(p).mode & 0o777).toString(8) });
      if (e.isDirectory()) w(p);
    }
  };
  w(dir);
  return out;
}

describe('a data folder copied without its key file', () => {
  it('reveals no card number, gift card PIN, cashier code or API key, and signs no JWT the install accepts', async () => {
    const t = await openTestEngine({ keep: true });
    const sampleCode = t.engine.register.firstCashier?.code;
    expect(sampleCode).toMatch(/^[0-9]{4,8}$/);
    let api = await startApi(t.engine);
    try {
      await api.post('/api/gateway/v1/orders/sale', { amount_cents: 1000, credit_card: card(VISA) });
      await api.post('/api/gateway/v1/orders/sale', { amount_cents: 1000, credit_card: card(MASTERCARD) });
      const vaulted = await api.post<{ token?: string }>('/api/gateway/v1/wallets', { credit_card: card(DISCOVER) });
      expect(vaulted.status).toBe(200);
      const gift = await api.post('/api/gateway/v1/gift_card', { card_number: GIFT, pin: GIFT_PIN, activated: 'true', load_amount_cents: 5000 });
      expect(gift.status).toBe(200);
    } finally {
      await api.close();
      await t.engine.close();
    }

    // The folder and every file in it are private to the account running Laneway.
    for (const { path, mode } of modes(t.dir)) {
      const isDir = statSync(join(t.dir, path)).isDirectory();
      expect(mode, path).toBe(isDir ? '700' : '600');
    }
    // The key file is not in the data folder: a copy of the folder leaves it behind.
    const keyFile = keyFilePath(t.dir);
    expect(existsSync(keyFile)).toBe(true);
    expect(keyFile.startsWith(t.dir)).toBe(false);

    // The copy: the whole data folder.
    const copy = tempDir('laneway-copy-');
    cpSync(t.dir, copy.dir, { recursive: true });
    const files = filesOf(copy.dir);
    expect([...files.keys()].some((p) => p.includes(KEY_FILE_NAME))).toBe(false);
    const { all: keys, likely } = candidateKeys(files);
    expect(likely.length).toBeGreaterThan(0);
    const values = storedValues(join(copy.dir, 'laneway.sqlite'));

    // Cards: BIN, last four, length and a fingerprint are stored; the search finds none of them.
    const cards: Array<{ bin: string; last4: string; length: number; fingerprint: string }> = [];
    walk(values, (o) => {
      if (typeof o.bin === 'string' && typeof o.last4 === 'string' && typeof o.length === 'number' && typeof o.fingerprint === 'string') {
        cards.push({ bin: o.bin, last4: o.last4, length: o.length, fingerprint: o.fingerprint });
      }
    });
    const distinct = [...new Map(cards.map((c) => [c.fingerprint, c])).values()];
    expect(distinct.length).toBeGreaterThan(0);
    // The whole search with every 32-byte key found (the shape of every key Laneway has made)...
    for (const c of distinct) expect(searchCard(c, likely), `${c.bin}...${c.last4}`).toEqual([]);
    // ...and with every other candidate, the one test the search needs to succeed: the true number.
    const used = [VISA, MASTERCARD, DISCOVER];
    for (const c of distinct) {
      const pan = used.find((p) => p.startsWith(c.bin) && p.endsWith(c.last4))!;
      expect(keys.some((k) => matches(k, pan, c)), pan).toBe(false);
    }

    // The gift card's PIN hash: salted scrypt whose input no key in the copy can make. A search over
    // every PIN succeeds only if the right one verifies with some key, so that is what is tried.
    const pinHashes: string[] = [];
    walk(values, (o) => {
      if (typeof o.pin_hash === 'string') pinHashes.push(o.pin_hash);
    });
    expect(pinHashes.length).toBe(1);
    const [scheme, , salt, hash] = pinHashes[0]!.split('$');
    expect(scheme).toBe('scrypt1');
    const tokens: string[] = [];
    walk(values, (o) => {
      if (typeof o.token === 'string' && typeof o.pin_hash === 'string') tokens.push(o.token);
    });
    for (const key of [...likely, Buffer.alloc(0)]) {
      const input = createHmac('sha256', key).update(`gift-pin:${tokens[0]}:${GIFT_PIN}`).digest();
      const out = scryptSync(input, Buffer.from(salt!, 'base64url'), 32, { N: 1 << 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
      expect(out.toString('base64url') === hash).toBe(false);
    }
    for (const key of keys) expect(createHmac('sha256', key).update(`gift-pin:${GIFT_PIN}`).digest('hex').slice(0, 40) === pinHashes[0]).toBe(false);

    // The sample cashier's code and the API key, tried against their stored hashes with every key.
    const codeHashes = new Set<string>();
    const keyHashes = new Set<string>();
    walk(values, (o) => {
      if (typeof o.code_hash === 'string') codeHashes.add(o.code_hash);
      if (typeof o.key_hash === 'string') keyHashes.add(o.key_hash);
    });
    expect(codeHashes.size).toBeGreaterThan(0);
    expect(keyHashes.size).toBeGreaterThan(0);
    for (const key of keys) {
      expect(codeHashes.has(createHmac('sha256', key).update(`cashier-code:${sampleCode}`).digest('hex').slice(0, 40))).toBe(false);
      expect(keyHashes.has(createHmac('sha256', key).update(TEST_KEY).digest('hex'))).toBe(false);
    }

    // On another machine (another keys folder) the copy does not start: its key file is missing,
    // and new keys would not be made for it.
    const elsewhere = tempDir('laneway-keys-');
    try {
      await withKeysHome(elsewhere.dir, () => expect(openTestEngine({ dir: copy.dir })).rejects.toBeInstanceOf(KeyFileError));
    } finally {
      elsewhere.cleanup();
    }

    // JWTs signed with anything found in the copy are refused by the install; its own JWT works.
    const again = await openTestEngine({ dir: t.dir, clock: t.clock });
    api = await startApi(again.engine);
    try {
      const now = Math.floor(t.clock.now() / 1000);
      for (const key of keys) {
        const forged = await new SignJWT({ token: TEST_TOKEN }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuedAt(now).setExpirationTime(now + 3600).sign(new Uint8Array(key));
        expect((await api.get('/api/whoami', `Bearer ${forged}`)).status).toBe(401);
      }
      const { jwt } = await again.engine.account.credentials.issueJwt(TEST_TOKEN, 1);
      expect((await api.get('/api/whoami', `Bearer ${jwt}`)).status).toBe(200);
    } finally {
      await api.close();
      await again.engine.close();
      copy.cleanup();
      rmSync(t.dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('an earlier version data folder', () => {
  /** What the earlier version wrote: keys in `secret` records, hashes under them, 0755/0644. */
  const LEGACY = {
    hmac: 'a'.repeat(8) + 'b1c2d3e4f5061728394a5b6c7d8e9f00112233445566778899aabbcc',
    jwt: 'c'.repeat(8) + '0f1e2d3c4b5a69788796a5b4c3d2e1f0ffeeddccbbaa998877665544',
    vault: 'e'.repeat(8) + '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5',
    register: '5'.repeat(8) + '9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4',
  };
  const hmacHex = (key: Buffer | string, value: string) => createHmac('sha256', key).update(value).digest('hex');

  it('is upgraded in place: keys move to a 0600 key file and leave the database, modes tighten, everything still works', async () => {
    const t = await openTestEngine({ keep: true });
    const legacyToken = 'LEGACYTOKEN01';
    const legacyKey = 'legacy-key-0123456789';
    const vault = Buffer.from(LEGACY.vault, 'hex');
    await t.engine.core.mutate(async (tx) => {
      await putRecord(tx, 'secret', 'install', { hmac_key: LEGACY.hmac, jwt_key: LEGACY.jwt }, { type: 'install.created', entity: 'install', key: 'install' });
      await putRecord(tx, 'secret', 'vault', { fingerprint_key: LEGACY.vault }, { type: 'vault.created', entity: 'vault', key: 'vault' });
      await putRecord(tx, 'secret', 'register', { key: LEGACY.register }, { type: 'secret.created', entity: 'secret', key: 'register' });
      // The test credential too, as the earlier version hashed it (no key id).
      await putRecord(tx, 'credential', TEST_TOKEN, { token: TEST_TOKEN, name: 'first', key_hash: hmacHex(Buffer.from(LEGACY.hmac, 'hex'), TEST_KEY), created_at: tx.at, disabled_at: null }, { type: 'credential.created', entity: 'credential', key: TEST_TOKEN });
      await putRecord(tx, 'credential', legacyToken, { token: legacyToken, name: 'old', key_hash: hmacHex(Buffer.from(LEGACY.hmac, 'hex'), legacyKey), created_at: tx.at, disabled_at: null }, { type: 'credential.created', entity: 'credential', key: legacyToken });
      const gift = { id: 99, token: 'GIFTLEGACY00001', last4: GIFT.slice(-4), expiry_month: null, expiry_year: null, pin_hash: hmacHex(vault, `gift-pin:${GIFT_PIN}`).slice(0, 40), balance_cents: 2500, activated: true, currency: 'usd', created_at: tx.at, updated_at: tx.at };
      await putRecord(tx, 'gift_card', gift.token, gift, { type: 'gift_card.created', entity: 'gift_card', key: gift.token });
      await putRecord(tx, 'gift_card_number', hmacHex(vault, `gift:${GIFT}`).slice(0, 40), { token: gift.token }, { type: 'gift_card.linked', entity: 'gift_card', key: gift.token });
      const codeHash = hmacHex(LEGACY.register, 'cashier-code:5555').slice(0, 40);
      const cashier = { id: 'CASHIERLEGACY01', name: 'Old Cashier', code_hash: codeHash, active: true, created_at: tx.at, updated_at: tx.at, last_sign_in_at: null };
      await putRecord(tx, 'pos_cashier', cashier.id, cashier, { type: 'pos_cashier.created', entity: 'pos_cashier', key: cashier.id }, codeHash);
    });
    await t.engine.close();
    // The earlier version's layout: no key file, world-readable folder and files.
    rmSync(keyFilePath(t.dir), { force: true });
    rmSync(join(t.dir, INSTALL_ID_FILE), { force: true });
    chmodSync(t.dir, 0o755);
    for (const f of ['laneway.sqlite', 'laneway.sqlite-wal', 'logs/laneway.log']) if (existsSync(join(t.dir, f))) chmodSync(join(t.dir, f), 0o644);
    chmodSync(join(t.dir, 'logs'), 0o755);
    // Not Laneway's: left as it is.
    writeFileSync(join(t.dir, 'README.txt'), 'the shop data', { mode: 0o644 });

    const up = await openTestEngine({ dir: t.dir, clock: t.clock });
    const api = await startApi(up.engine);
    try {
      expect(modes(t.dir).filter((m) => m.mode !== (statSync(join(t.dir, m.path)).isDirectory() ? '700' : '600'))).toEqual([{ path: 'README.txt', mode: '644' }]);
      const keyFile = JSON.parse(readFileSync(keyFilePath(t.dir), 'utf8')) as Record<string, { current: { secret: string }; previous: Array<{ secret: string }> }>;
      expect(keyFile.vault!.previous.map((k) => k.secret)).toContain(LEGACY.vault);
      expect(keyFile.api_key_hash!.previous.map((k) => k.secret)).toContain(LEGACY.hmac);
      // The old JWT secret is not kept: a copy of the old database could sign with it.
      expect(JSON.stringify(keyFile)).not.toContain(LEGACY.jwt);

      // Gone from the database, and from the file's bytes.
      expect(await up.engine.core.get('records', 'secret/install')).toBeUndefined();
      expect(await up.engine.core.get('records', 'secret/vault')).toBeUndefined();
      expect(await up.engine.core.get('records', 'secret/register')).toBeUndefined();
      const bytes = Buffer.concat(['laneway.sqlite', 'laneway.sqlite-wal'].filter((f) => existsSync(join(t.dir, f))).map((f) => readFileSync(join(t.dir, f))));
      for (const [name, secret] of Object.entries(LEGACY)) expect(bytes.includes(secret), name).toBe(false);

      // What the old keys protected still works, and moves to the new keys as it is used.
      const basic = `Basic ${Buffer.from(`${legacyToken}:${legacyKey}`).toString('base64')}`;
      expect((await api.get('/api/whoami', basic)).status).toBe(200);
      await up.engine.core.mutate(async () => undefined);
      await new Promise((r) => setTimeout(r, 50));
      const cred = (await getRecord<{ key_id?: string }>(up.engine.core, 'credential', legacyToken))!;
      expect(cred.data.key_id).toBe('k1');
      expect((await api.get('/api/whoami', basic)).status).toBe(200);
      const oldJwt = await new SignJWT({ token: legacyToken }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setExpirationTime(Math.floor(t.clock.now() / 1000) + 3600).sign(new Uint8Array(Buffer.from(LEGACY.jwt, 'hex')));
      expect((await api.get('/api/whoami', `Bearer ${oldJwt}`)).status).toBe(401);

      const read = await api.post<{ balance: number }>('/api/gateway/v1/gift_card/read', { card_number: GIFT, pin: GIFT_PIN });
      expect(read.body, JSON.stringify(read.body)).toMatchObject({ balance: 2500 });
      const giftDoc = (await getRecord<{ pin_hash: string }>(up.engine.core, 'gift_card', 'GIFTLEGACY00001'))!;
      expect(giftDoc.data.pin_hash.startsWith('scrypt1$k1$')).toBe(true);
      const sale = await api.post<{ success: boolean }>('/api/gateway/v1/orders/sale', { amount_cents: 500, gift_card: { card_number: GIFT, pin: GIFT_PIN } });
      expect(sale.body.success).toBe(true);
      expect(await up.engine.core.get('records', `gift_card_number/${hmacHex(vault, `gift:${GIFT}`).slice(0, 40)}`)).toBeUndefined();

      // The old cashier's code is still found: another cashier cannot take it.
      await expect(up.engine.register.createCashier({ name: 'New Cashier', code: '5555' })).rejects.toMatchObject({ code: 'cashier_code_taken' });
    } finally {
      await api.close();
      await up.close();
      rmSync(t.dir, { recursive: true, force: true });
    }
  }, 60_000);
});

/** Runs `fn` with LANEWAY_KEYS_HOME set to `home` (another machine's, or one that cannot be written). */
async function withKeysHome<T>(home: string, fn: () => Promise<T>): Promise<T> {
  const before = process.env[KEYS_HOME_ENV];
  process.env[KEYS_HOME_ENV] = home;
  try {
    return await fn();
  } finally {
    process.env[KEYS_HOME_ENV] = before;
  }
}

/** Opens the install in `dir` again and signs in with its first credential: it found its key file. */
async function signsInAgain(dir: string, clock: ManualClock): Promise<void> {
  const again = await openTestEngine({ dir, clock });
  const api = await startApi(again.engine);
  try {
    expect((await api.get('/api/whoami')).status).toBe(200);
  } finally {
    await api.close();
    await again.engine.close();
  }
}

describe('a data folder whose key file an earlier version kept inside it', () => {
  it('is opened with that key file, moved out of the folder; a move cut short is finished at the next open', async () => {
    const t = await openTestEngine();
    await t.engine.close();
    await signsInAgain(t.dir, t.clock);
    const moved = keyFilePath(t.dir);
    const bytes = readFileSync(moved);
    const inside = join(t.dir, KEYS_FOLDER, KEY_FILE_NAME);
    try {
      // As an earlier version left it: the key file inside, no install id.
      cpSync(moved, inside);
      rmSync(moved);
      rmSync(join(t.dir, INSTALL_ID_FILE));
      await signsInAgain(t.dir, t.clock);
      expect(existsSync(join(t.dir, KEYS_FOLDER))).toBe(false);
      expect(keyFilePath(t.dir).startsWith(t.dir)).toBe(false);
      expect(readFileSync(keyFilePath(t.dir))).toEqual(bytes);

      // Cut short after the copy was written: both files are there; the one inside goes.
      mkdirSync(join(t.dir, KEYS_FOLDER));
      cpSync(keyFilePath(t.dir), inside);
      await signsInAgain(t.dir, t.clock);
      expect(existsSync(inside)).toBe(false);
    } finally {
      rmSync(keyFilePath(t.dir), { force: true });
      rmSync(t.dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('a keys home that cannot be written (a locked-down account)', () => {
  it('keeps the key file inside the data folder, as before, and moves it out at an open that can write it', async () => {
    const t = await withKeysHome('/dev/null/laneway-keys', async () => {
      const t = await openTestEngine();
      await t.engine.close();
      expect(existsSync(join(t.dir, KEYS_FOLDER, KEY_FILE_NAME))).toBe(true);
      // Opened again the same way: the same keys.
      await signsInAgain(t.dir, t.clock);
      return t;
    });
    try {
      await signsInAgain(t.dir, t.clock);
      expect(existsSync(join(t.dir, KEYS_FOLDER))).toBe(false);
      expect(keyFilePath(t.dir).startsWith(t.dir)).toBe(false);
    } finally {
      rmSync(keyFilePath(t.dir), { force: true });
      rmSync(t.dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('key rotation', () => {
  it('refuses JWTs signed before a jwt rotation; credentials, gift cards and cashier codes keep working across the others', async () => {
    const t = await openTestEngine();
    const api = await startApi(t.engine);
    try {
      const code = t.engine.register.firstCashier!.code;
      await api.post('/api/gateway/v1/gift_card', { card_number: GIFT, pin: GIFT_PIN, activated: 'true', load_amount_cents: 5000 });
      const { jwt: before } = await t.engine.account.credentials.issueJwt(TEST_TOKEN, 1);
      expect((await api.get('/api/whoami', `Bearer ${before}`)).status).toBe(200);

      const rotated = await t.engine.keys.rotate();
      expect(rotated.map((r) => `${r.purpose}:${r.id}`).sort()).toEqual(['api_key_hash:k2', 'cashier_code:k2', 'jwt:k2', 'settings_secret:k2', 'vault:k2']);
      expect((await api.get('/api/whoami', `Bearer ${before}`)).status).toBe(401);
      const { jwt: after } = await t.engine.account.credentials.issueJwt(TEST_TOKEN, 1);
      expect((await api.get('/api/whoami', `Bearer ${after}`)).status).toBe(200);

      // The credential signs in with its key and is re-hashed under the new key.
      expect((await api.get('/api/whoami')).status).toBe(200);
      await new Promise((r) => setTimeout(r, 50));
      await t.engine.core.mutate(async () => undefined);
      expect((await getRecord<{ key_id: string }>(t.engine.core, 'credential', TEST_TOKEN))!.data.key_id).toBe('k2');
      // A second rotation drops hash key k1 (no enabled credential needs it) and keeps k2.
      await t.engine.keys.rotate(['api_key_hash']);
      const file = JSON.parse(readFileSync(t.engine.keys.path, 'utf8')) as Record<string, { previous: Array<{ id: string }> }>;
      expect(file.api_key_hash!.previous.map((k) => k.id)).toEqual(['k2']);
      expect((await api.get('/api/whoami')).status).toBe(200);

      // The gift card is found by number and its PIN checked under the previous vault key.
      const read = await api.post<{ balance: number }>('/api/gateway/v1/gift_card/read', { card_number: GIFT, pin: GIFT_PIN });
      expect(read.body.balance).toBe(5000);
      expect((await api.post('/api/gateway/v1/orders/sale', { amount_cents: 100, gift_card: { card_number: GIFT, pin: GIFT_PIN } })).body).toMatchObject({ success: true });
      await expect(t.engine.register.createCashier({ name: 'Another', code })).rejects.toMatchObject({ code: 'cashier_code_taken' });
    } finally {
      await api.close();
      await t.close();
    }
  }, 60_000);

  it('seals the key file with a protector (the desktop keychain seam); without it the file does not open', async () => {
    const { createCipheriv, createDecipheriv, randomBytes } = await import('node:crypto');
    const { openInstallKeys } = await import('../../src/engine/security/install-keys');
    // Stands in for the OS keychain: a key held only in this process's memory.
    const keychain = randomBytes(32);
    const protector = {
      name: 'test-keychain',
      seal(plain: Buffer) {
        const iv = randomBytes(12);
        const c = createCipheriv('aes-256-gcm', keychain, iv);
        const body = Buffer.concat([c.update(plain), c.final()]);
        return Buffer.concat([iv, c.getAuthTag(), body]);
      },
      unseal(sealed: Buffer) {
        const d = createDecipheriv('aes-256-gcm', keychain, sealed.subarray(0, 12));
        d.setAuthTag(sealed.subarray(12, 28));
        return Buffer.concat([d.update(sealed.subarray(28)), d.final()]);
      },
    };
    const dir = tempDir();
    try {
      const plain = openInstallKeys({ dataDir: dir.dir });
      const jwtKey = plain.current('jwt').secret;
      expect(readFileSync(plain.path, 'utf8')).toContain(jwtKey);
      // A plain file is sealed the first time it is opened with a protector.
      const sealed = openInstallKeys({ dataDir: dir.dir, protector });
      expect(sealed.current('jwt').secret).toBe(jwtKey);
      expect(readFileSync(plain.path, 'utf8')).not.toContain(jwtKey);
      expect((statSync(plain.path).mode & 0o777).toString(8)).toBe('600');
      expect(() => openInstallKeys({ dataDir: dir.dir })).toThrow(/sealed by test-keychain/);
      expect(openInstallKeys({ dataDir: dir.dir, protector }).current('vault').secret).toBe(plain.current('vault').secret);
    } finally {
      dir.cleanup();
    }
  });
});
