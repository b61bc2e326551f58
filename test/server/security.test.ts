import { beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { useHarness, TEST_TOKEN, type TestEngine, basicAuth, type ApiClient } from '../helpers/harness';
import { tempDir } from '../helpers/tmp';
import { startServer, type RunningServer } from '../../src/server/http';
import { getRecord } from '../../src/engine/records';
import { card as gatewayCard, VISA } from '../helpers/cards';

/**
 * Issue 13 (items 2, 3, 4, 5, 6, 11): what a hostile web page, another local process or a leaked
 * screen session can do over real loopback HTTP. Chromium's side of item 2 is in
 * test/e2e/cross-site.test.ts; lane port paths (item 10) in test/serial/port-path.test.ts.
 */

const card = gatewayCard(VISA);

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: { error?: string; code?: string | number; [k: string]: unknown };
}

/** One HTTP request with exactly these headers (fetch would not let a test set Host). */
function raw(url: string, method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer, localAddress?: string): Promise<Raw> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, method, path, ...(localAddress ? { localAddress } : {}), headers: { ...(body !== undefined ? { 'Content-Length': String(Buffer.byteLength(body)) } : {}), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json = {};
        try {
          json = JSON.parse(text) as object;
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

const h = useHarness({ api: true });
let t: TestEngine;
let api: ApiClient;

beforeAll(() => {
  ({ t, api } = h);
});

const watermark = () => t.engine.core.currentWatermark();
const AUTH = { Authorization: basicAuth() };

describe('cross-site requests and the browser (item 2)', () => {
  it('a body that is not JSON is 415 on a JSON operation, and nothing is written', async () => {
    const before = watermark();
    const bodies: Array<[string, string]> = [
      ['application/x-www-form-urlencoded', `amount_cents=5000&credit_card[card_number]=${VISA}&credit_card[expiry_month]=12&credit_card[expiry_year]=2030&credit_card[name]=X`],
      ['text/plain', JSON.stringify({ amount_cents: 5000, credit_card: card })],
      ['multipart/form-data; boundary=X', `--X\r\nContent-Disposition: form-data; name="amount_cents"\r\n\r\n5000\r\n--X--\r\n`],
    ];
    for (const [type, body] of bodies) {
      const res = await raw(api.url, 'POST', '/api/gateway/v1/orders/credit', { ...AUTH, 'Content-Type': type }, body);
      expect(res.status, type).toBe(415);
      expect(res.json.code, type).toBe('unsupported_media_type');
      expect(typeof res.json.error).toBe('string');
    }
    // A body without a Content-Type is not JSON either.
    expect((await raw(api.url, 'PATCH', '/api/account', AUTH, '{"name":"No type"}')).status).toBe(415);
    expect(watermark()).toBe(before);
    // JSON still works, and so does a POST without a body.
    const sale = await api.post<{ success: boolean }>('/api/gateway/v1/orders/sale', { amount_cents: 1000, credit_card: card });
    expect(sale.status).toBe(200);
    expect(sale.body.success).toBe(true);
  });

  it('answers 401 without a WWW-Authenticate challenge, so a browser never prompts for the key and replays it', async () => {
    for (const auth of [null, basicAuth(TEST_TOKEN, 'wrong-key-123')]) {
      const res = await raw(api.url, 'GET', '/api/whoami', auth ? { Authorization: auth } : {});
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBeUndefined();
    }
  });

  it('refuses what a browser marks as sent from another site, even with valid credentials; programs and our own screens pass', async () => {
    const before = watermark();
    for (const site of ['cross-site', 'same-site']) {
      const res = await raw(api.url, 'PATCH', '/api/account', { ...AUTH, 'Content-Type': 'application/json', 'Sec-Fetch-Site': site, 'Sec-Fetch-Mode': 'cors' }, '{"name":"Pwned"}');
      expect(res.status, site).toBe(403);
      expect(res.json.code).toBe('cross_site_request');
    }
    // Browsers without Sec-Fetch-* still send Origin on a POST.
    for (const origin of ['http://evil.example', 'http://127.0.0.1:1', 'null']) {
      const res = await raw(api.url, 'PATCH', '/api/account', { ...AUTH, 'Content-Type': 'application/json', Origin: origin }, '{"name":"Pwned"}');
      expect(res.status, origin).toBe(403);
    }
    // A form post the browser sends cross-site is refused before its body is even looked at.
    const form = await raw(api.url, 'POST', '/api/gateway/v1/orders/credit', { ...AUTH, 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate' }, 'amount_cents=5000');
    expect(form.status).toBe(403);
    expect(watermark()).toBe(before);
    expect(t.engine.account.profile().name).not.toBe('Pwned');

    const own = new URL(api.url).origin;
    const passes: Array<Record<string, string>> = [{}, { 'Sec-Fetch-Site': 'same-origin', Origin: own }, { 'Sec-Fetch-Site': 'none' }, { Origin: own }];
    for (const headers of passes) {
      const res = await raw(api.url, 'GET', '/api/whoami', { ...AUTH, ...headers });
      expect(res.status, JSON.stringify(headers)).toBe(200);
    }
    // A link to the screens, a click-to-pay link or the docs from another site opens them (a navigation carries no credentials).
    for (const path of ['/app/', '/pay/ABC123', '/api/docs']) {
      const nav = await raw(api.url, 'GET', path, { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document' });
      expect(nav.status, path).not.toBe(403);
    }
    // ...but a navigation that is an API operation is not.
    const navApi = await raw(api.url, 'GET', '/api/whoami', { ...AUTH, 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate' });
    expect(navApi.status).toBe(403);
  });

  it('answers only to localhost, IP addresses and configured host names (DNS rebinding)', async () => {
    const port = new URL(api.url).port;
    for (const host of ['evil.example', `evil.example:${port}`, `attacker.localhost.evil:${port}`, `127.0.0.1.nip.io:${port}`]) {
      const res = await raw(api.url, 'GET', '/api/whoami', { ...AUTH, Host: host });
      expect(res.status, host).toBe(403);
      expect(res.json.code).toBe('host_not_allowed');
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`, '127.0.0.1']) {
      expect((await raw(api.url, 'GET', '/api/whoami', { ...AUTH, Host: host })).status, host).toBe(200);
    }
    const named = await startServer(t.engine, { port: 0, rateLimit: 1000, hostNames: ['till-1.shop.lan'], publicUrl: 'https://pay.shop.example' });
    try {
      for (const host of ['till-1.shop.lan', 'pay.shop.example', 'TILL-1.shop.lan:8080']) {
        expect((await raw(named.url, 'GET', '/api/whoami', { ...AUTH, Host: host })).status, host).toBe(200);
      }
      expect((await raw(named.url, 'GET', '/api/whoami', { ...AUTH, Host: 'other.shop.lan' })).status).toBe(403);
      // Behind a TLS proxy, an older browser's Origin is the public URL's.
      const proxied = { ...AUTH, Host: 'pay.shop.example', 'Content-Type': 'application/json' };
      expect((await raw(named.url, 'PATCH', '/api/account', { ...proxied, Origin: 'https://pay.shop.example' }, '{}')).status).toBe(200);
      expect((await raw(named.url, 'PATCH', '/api/account', { ...proxied, Origin: 'https://evil.example' }, '{}')).status).toBe(403);
    } finally {
      await named.close();
    }
  });
});

describe('rate-limit buckets (item 3)', () => {
  it('a flood of bad credentials does not lock the till: sales keep their own budget per credential', async () => {
    const server = await startServer(t.engine, { port: 0, rateLimit: 60 });
    try {
      const statuses = new Set<number>();
      for (let i = 0; i < 70; i++) {
        const res = await raw(server.url, 'GET', '/api/whoami', { Authorization: basicAuth(TEST_TOKEN, `guess-${i}-xxxxxxxx`) });
        statuses.add(res.status);
      }
      // The anonymous bucket is smaller than a credential's (a tenth: 6 a minute here) and ran out.
      expect([...statuses].sort()).toEqual([401, 429]);
      const sale = await raw(server.url, 'POST', '/api/gateway/v1/orders/sale', { ...AUTH, 'Content-Type': 'application/json' }, JSON.stringify({ amount_cents: 1200, credit_card: card }));
      expect(sale.status).toBe(200);
      expect(sale.json.success).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('one credential spending its budget leaves another untouched; open operations are budgeted per IP apart', async () => {
    const other = await t.engine.account.credentials.create({ name: 'ERP' });
    const server = await startServer(t.engine, { port: 0, rateLimit: 5, anonymousRateLimit: 2 });
    try {
      const whoami = (auth: string) => raw(server.url, 'GET', '/api/whoami', { Authorization: auth });
      for (let i = 0; i < 5; i++) expect((await whoami(basicAuth())).status).toBe(200);
      const limited = await whoami(basicAuth());
      expect(limited.status).toBe(429);
      expect(limited.json).toMatchObject({ error: 'you are being rate limited', code: 1015 });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      // Its JWT shares its budget.
      expect((await whoami(`Bearer ${(await t.engine.account.credentials.issueJwt(TEST_TOKEN, 1)).jwt}`)).status).toBe(429);
      expect((await whoami(basicAuth(other.token, other.key))).status).toBe(200);
      expect((await raw(server.url, 'GET', '/api/reference_data/v1/response_codes')).status).toBe(200);
      expect((await raw(server.url, 'GET', '/api/reference_data/v1/response_codes')).status).toBe(200);
      expect((await raw(server.url, 'GET', '/api/reference_data/v1/response_codes')).status).toBe(429);
      // An open operation called with valid credentials spends the credential's budget, not the IP's.
      expect((await raw(server.url, 'GET', '/api/reference_data/v1/response_codes', { Authorization: basicAuth(other.token, other.key) })).status).toBe(200);
      // Bad credentials there spend the IP's (already spent) budget.
      expect((await raw(server.url, 'GET', '/api/reference_data/v1/response_codes', { Authorization: basicAuth(other.token, 'wrong-key') })).status).toBe(429);
      expect((await whoami(basicAuth(other.token, other.key))).status).toBe(200);
      // Guesses at a secret spend the address's budget whatever credentials come with them: a
      // cashier's session must not buy ten times the password, link or pay-key tries.
      const json = { 'Content-Type': 'application/json', Authorization: basicAuth(other.token, other.key) };
      expect((await raw(server.url, 'POST', '/api/session', json, JSON.stringify({ email: 'who@example.com', password: 'a guess at it' }))).status).toBe(429);
      expect((await raw(server.url, 'POST', '/api/session/link', json, JSON.stringify({ link: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', password: 'a guess at it' }))).status).toBe(429);
      expect((await raw(server.url, 'GET', '/api/pay/95-AAAAAAAAAAAAAAAA', { Authorization: basicAuth(other.token, other.key) })).status).toBe(429);
      expect((await raw(server.url, 'POST', '/api/sync/pair', json, JSON.stringify({ code: 'ABCDE-FGHIJ' }))).status).toBe(429);
    } finally {
      await server.close();
      await t.engine.account.credentials.disable(other.token);
    }
  });
});

type Whoami = { whoami: Record<string, { jwt: string; jwt_exp: number }> };

describe('scopes of JWTs (item 4)', () => {
  const mint = async (auth: string, query = '') => {
    const res = await api.get<Whoami>(`/api/whoami${query}`, auth);
    expect(res.status).toBe(200);
    return res.body.whoami[TEST_TOKEN]!;
  };

  it("the screens' one-day JWT works for the till but cannot manage credentials or outlive itself", async () => {
    // What src/renderer does: sign in once with the key, keep a one-day JWT.
    const screens = await mint(basicAuth(), '?options[jwt_expiry]=1');
    const bearer = `Bearer ${screens.jwt}`;
    expect((await api.get('/api/lanes', bearer)).status).toBe(200);
    expect((await api.post('/api/gateway/v1/orders/sale', { amount_cents: 1300, credit_card: card }, bearer)).status).toBe(200);

    const before = (await api.get<{ credentials: unknown[] }>('/api/account/credentials')).body.credentials;
    const made = await api.post<{ code: string }>('/api/account/credentials', { name: 'Backdoor' }, bearer);
    expect(made.status).toBe(403);
    expect(made.body.code).toBe('insufficient_scope');
    expect((await api.get('/api/account/credentials', bearer)).status).toBe(403);
    expect((await api.post(`/api/account/credentials/${TEST_TOKEN}/disable`, undefined, bearer)).status).toBe(403);
    expect((await api.get<{ credentials: unknown[] }>('/api/account/credentials')).body.credentials).toEqual(before);

    // Asking for a year gets at most what it has left; asking for more scope is refused.
    const longer = await mint(bearer, '?options[jwt_expiry]=365');
    expect(longer.jwt_exp).toBeLessThanOrEqual(screens.jwt_exp);
    const wider = await api.get<{ code: string }>('/api/whoami?options[jwt_scope]=api%20credentials', bearer);
    expect(wider.status).toBe(403);
    expect(wider.body.code).toBe('insufficient_scope');
    expect((await api.post('/api/account/credentials', { name: 'Backdoor' }, `Bearer ${longer.jwt}`)).status).toBe(403);
  });

  it('the screens\' JWT leaves nothing that outlives it: no cashier, lane, framing site, register setting or sandbox clock move', async () => {
    const bearer = `Bearer ${(await mint(basicAuth(), '?options[jwt_expiry]=1')).jwt}`;
    const { cashiers } = (await api.get<{ cashiers: Array<{ id: string }> }>('/api/pos/cashiers')).body;
    const refused: Array<[string, string, unknown]> = [
      ['post', '/api/pos/cashiers', { name: 'Mallory', code: '864209' }],
      ['post', `/api/pos/cashiers/${cashiers[0]!.id}/code`, {}],
      ['patch', `/api/pos/cashiers/${cashiers[0]!.id}`, { supervisor: true }],
      ['put', '/api/ecommerce/settings', { allowedOrigins: ['https://evil.example'] }],
      ['post', '/api/lanes', { laneid: '77', port: '/dev/ttyS77' }],
      ['patch', '/api/pos/settings', { receipt_footer: 'x' }],
      ['post', '/api/pos/products', { code: 'X1', description: 'X', price_cents: 1 }],
      ['post', '/api/sandbox/v1/clock/advance', { by: 'P1D' }],
    ];
    const before = t.engine.core.currentWatermark();
    for (const [method, path, body] of refused) {
      const res = await (api as unknown as Record<string, (p: string, b: unknown, a: string) => Promise<{ status: number; body: { code: string } }>>)[method]!(path, body, bearer);
      expect([path, res.status, res.body.code]).toEqual([path, 403, 'insufficient_scope']);
    }
    expect(t.engine.core.currentWatermark()).toBe(before);
    // The key holds settings, and a JWT the key mints with it may do them.
    const owner = `Bearer ${(await mint(basicAuth(), '?options[jwt_expiry]=1&options[jwt_scope]=api%20settings')).jwt}`;
    expect((await api.post('/api/pos/cashiers', { name: 'Dana', code: '864209' }, owner)).status).toBe(201);
  });

  it('the key manages credentials; a JWT minted with credentials lists and disables them but creates none (it would outlive the JWT)', async () => {
    const owner = await mint(basicAuth(), '?options[jwt_expiry]=1&options[jwt_scope]=api%20credentials');
    const refused = await api.post<{ code: string }>('/api/account/credentials', { name: 'JWT-made' }, `Bearer ${owner.jwt}`);
    expect([refused.status, refused.body.code]).toEqual([403, 'minted_jwt_cannot_create_credentials']);
    const made = await api.post<{ token: string }>('/api/account/credentials', { name: 'Key-made' });
    expect(made.status).toBe(201);
    expect((await api.get('/api/account/credentials', `Bearer ${owner.jwt}`)).status).toBe(200);
    expect((await api.post(`/api/account/credentials/${made.body.token}/disable`, undefined, `Bearer ${owner.jwt}`)).status).toBe(200);
    // The owner's session cannot outlive itself either.
    expect((await mint(`Bearer ${owner.jwt}`, '?options[jwt_expiry]=365&options[jwt_scope]=api%20credentials')).jwt_exp).toBeLessThanOrEqual(owner.jwt_exp);
    expect((await api.get<{ code: string }>('/api/whoami?options[jwt_scope]=root', basicAuth())).body.code).toBe('invalid_scope');
  });

  it('refuses a JWT without an expiry, even one signed with the install key', async () => {
    const key = await installJwtKey(t);
    const forever = await new SignJWT({ token: TEST_TOKEN, scope: 'api credentials' }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuedAt().sign(key);
    expect((await api.get('/api/whoami', `Bearer ${forever}`)).status).toBe(401);
    const dated = await new SignJWT({ token: TEST_TOKEN }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setExpirationTime(Math.floor(t.clock.now() / 1000) + 60).sign(key);
    expect((await api.get('/api/whoami', `Bearer ${dated}`)).status).toBe(200);
    // Minted before scopes existed (no scope claim): the least, not the most.
    expect((await api.get('/api/account/credentials', `Bearer ${dated}`)).status).toBe(403);
  });
});

/**
 * The install's JWT signing key, to forge tokens as someone holding it would: from the key file
 * when the engine keeps one (`engine.keys.path`, issue 13 item 1), else from the database record
 * where earlier versions kept it.
 */
async function installJwtKey(te: TestEngine): Promise<Uint8Array> {
  const keyFile = (te.engine as unknown as { keys?: { path?: string } }).keys?.path;
  if (keyFile) {
    const data = JSON.parse(readFileSync(keyFile, 'utf8')) as { jwt?: { current?: { secret?: string } } };
    const secret = data.jwt?.current?.secret;
    if (!secret) throw new Error(`no jwt key in ${keyFile}: update installJwtKey`);
    return new Uint8Array(Buffer.from(secret, 'hex'));
  }
  const secrets = (await getRecord<{ jwt_key: string }>(te.engine.core, 'secret', 'install'))?.data;
  if (!secrets) throw new Error('the install secrets moved: update installJwtKey');
  return new Uint8Array(Buffer.from(secrets.jwt_key, 'hex'));
}

/** `{"a":{"a":...1...}}`, `levels` objects deep. */
const nested = (levels: number): string => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

describe('free-form attributes are bounded (item 5)', () => {
  const importCustomer = (identifier: string, extra: string) =>
    raw(api.url, 'POST', '/api/imports/customer', { ...AUTH, 'Content-Type': 'application/json' }, `{"identifier":"${identifier}","name":"Deep","profile":${extra}}`);

  it('a `__proto__` key in a JSON body is no field: nothing under it is taken, and a card number under it is stored nowhere', async () => {
    // The name under it is not taken: the customer has none, and is refused as such.
    const unnamed = await api.request<{ code: string }>('POST', '/api/imports/customer', { raw: '{"identifier":"PROTO0","__proto__":{"name":"N 4895281000000006"}}' });
    expect([unnamed.status, unnamed.body.code]).toEqual([412, 'validation_failed']);
    const made = await api.request('POST', '/api/imports/customer', { raw: '{"identifier":"PROTO1","name":"Proto Ltd","__proto__":{"notes":"5541032000004422"}}' });
    expect(made.status, made.text).toBe(201);
    const view = await api.get<{ name: string; notes: string | null }>('/api/exports/customer/PROTO1');
    expect(view.body.name).toBe('Proto Ltd');
    expect(view.text).not.toContain('5541032000004422');
    const invoice = '{"number":"PROTO-INV","customer_identifier":"PROTO1","amount":5000,"__proto__":{"amount":100,"notes_text":"card 4895281000000006"}}';
    expect((await api.request('POST', '/api/imports/invoice', { raw: invoice })).status).toBe(201);
    const inv = await api.get<{ amount_cents: number }>('/api/exports/invoice/PROTO-INV');
    expect(inv.body.amount_cents).toBe(5_000);
    expect(inv.text).not.toContain('4895281000000006');
    await t.engine.core.mutate(async () => undefined);
    for (const f of ['laneway.sqlite', 'laneway.sqlite-wal']) {
      const bytes = (() => { try { return readFileSync(join(t.dir, f)); } catch { return Buffer.alloc(0); } })();
      expect(bytes.includes('4895281000000006'), f).toBe(false);
      expect(bytes.includes('5541032000004422'), f).toBe(false);
    }
  });

  it('a customer with an attribute nested past 16 levels is 412 and not written; 16 levels is kept and exported', async () => {
    for (const [levels, code] of [[1500, 'nesting_too_deep'], [17, 'attribute_too_deep']] as const) {
      const before = watermark();
      const res = await importCustomer(`DEEP${levels}`, nested(levels));
      expect(res.status, String(levels)).toBe(412);
      expect(res.json.code).toBe(code);
      expect(watermark()).toBe(before);
      expect((await api.get(`/api/exports/customer/DEEP${levels}`)).status).toBe(404);
    }
    expect((await importCustomer('DEEP16', nested(16))).status).toBe(201);
    const view = await api.get<{ attributes_marshal: Record<string, unknown> }>('/api/exports/customer/DEEP16');
    expect(view.status).toBe(200);
    expect(JSON.stringify(view.body.attributes_marshal.profile)).toBe(nested(16));
  });

  it("a record's free-form attributes over 64K characters are 412; so are deep ones on invoices and line items, and large ones on orders", async () => {
    const big = await importCustomer('BIGATTR', JSON.stringify('x'.repeat(70_000)));
    expect(big.status).toBe(412);
    expect(big.json.code).toBe('attributes_too_large');
    const invoice = (extra: Record<string, unknown>) => ({ number: `INV-DEEP-${Math.random()}`, customer_identifier: 'DEEP16', amount: 100, date: '2026-03-01', ...extra });
    const deep = JSON.parse(nested(20)) as unknown;
    const onInvoice = await api.post<{ code: string }>('/api/imports/invoice', invoice({ memo_tree: deep }));
    expect(onInvoice.status).toBe(412);
    expect(onInvoice.body.code).toBe('attribute_too_deep');
    const onLine = await api.post<{ code: string; details: Array<{ field: string }> }>('/api/imports/invoice', invoice({ line_item_attributes: [{ description: 'x', amount: 100, tree: deep }] }));
    expect(onLine.status).toBe(412);
    expect(onLine.body.details.map((d) => d.field)).toContain('line_item_attributes.0.tree');
    // An order's extended attributes are scalars (the schema says so); together they are bounded too.
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`order_att${i}`, 'y'.repeat(2000)]));
    const order = await api.post<{ code: string }>('/api/imports/order', { identifier: 'ORD-BIG', amount_cents: 100, currency: 'usd', ...many });
    expect(order.status).toBe(412);
    expect(order.body.code).toBe('attributes_too_large');
  });
});

describe('client errors are 4xx, never 500 (item 6)', () => {
  it('Content-Encoding: gzip on a body that is not gzip is 400; real gzip works; an unknown encoding is 415', async () => {
    const json = '{"name":"Laneway Sandbox Store"}';
    const headers = { ...AUTH, 'Content-Type': 'application/json' };
    const bad = await raw(api.url, 'PATCH', '/api/account', { ...headers, 'Content-Encoding': 'gzip' }, json);
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe('invalid_body_encoding');
    expect((await raw(api.url, 'PATCH', '/api/account', { ...headers, 'Content-Encoding': 'gzip' }, gzipSync(json))).status).toBe(200);
    const unknown = await raw(api.url, 'PATCH', '/api/account', { ...headers, 'Content-Encoding': 'compress' }, json);
    expect(unknown.status).toBe(415);
    expect(typeof unknown.json.error).toBe('string');
  });

  it('a body nested thousands of levels deep is a 4xx (it overflowed the stack of the null-stripping)', async () => {
    const body = `{"identifier":"NESTED","name":"N","x":${'['.repeat(5000)}null${']'.repeat(5000)}}`;
    const imp = await raw(api.url, 'POST', '/api/imports/customer', { ...AUTH, 'Content-Type': 'application/json' }, body);
    expect(imp.status).toBe(412);
    expect(imp.json.code).toBe('nesting_too_deep');
    const other = await raw(api.url, 'PATCH', '/api/account', { ...AUTH, 'Content-Type': 'application/json' }, `{"name":${nested(3000)}}`);
    expect(other.status).toBe(400);
    expect(other.json.code).toBe('nesting_too_deep');
  });

  it('an open route refuses a large body unread and an object of thousands of fields before anything walks it; the API answers meanwhile', async () => {
    // 400,000 fields in 4.7 MB kept the server busy 3-6 s a request (sign-in, pairing), 37 MB of details answered.
    const fields = (n: number) => JSON.stringify({ email: 'a@b.c', password: 'x', code: 'ABCDE-FGHIJ', ...Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 1])) });
    const json = { 'Content-Type': 'application/json' };
    const huge = fields(400_000);
    const answers = await Promise.all([
      ...['/api/session', '/api/sync/pair', '/api/v2/sessions'].map((path) => raw(api.url, 'POST', path, json, huge)),
      api.get('/api/status'),
    ]);
    expect(answers.slice(0, 3).map((a) => (a as Raw).status)).toEqual([413, 413, 413]);
    expect(answers[3]!.status).toBe(200);
    for (const path of ['/api/session', '/api/sync/pair']) {
      const many = await raw(api.url, 'POST', path, json, fields(5_000));
      expect(many.status, path).toBe(400);
      expect(many.json.code).toBe('too_many_fields');
      expect(many.text.length).toBeLessThan(500);
    }
    // A body under the open routes' limit still signs in (no user here: 401, not a body error).
    expect((await raw(api.url, 'POST', '/api/session', json, fields(10))).status).toBe(401);
  });

  it('a credentialed route refuses an object of over 10,000 fields, and lists at most 100 of the fields a body got wrong', async () => {
    const many = Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`k${i}`, 1]));
    const wide = await raw(api.url, 'PATCH', '/api/account', { ...AUTH, 'Content-Type': 'application/json' }, JSON.stringify(many));
    expect(wide.status).toBe(400);
    expect(wide.json.code).toBe('too_many_fields');
    const unknown = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, 1]));
    const bad = await raw(api.url, 'PATCH', '/api/account', { ...AUTH, 'Content-Type': 'application/json' }, JSON.stringify(unknown));
    expect(bad.status).toBe(400);
    expect((bad.json.details as unknown[]).length).toBe(100);
    expect(bad.json.error).toMatch(/and 499 more/);
  });

  it('a path whose percent-encoding is not UTF-8 is 400 with the usual error shape, in the API and the screens', async () => {
    const ui = tempDir();
    mkdirSync(ui.dir, { recursive: true });
    writeFileSync(join(ui.dir, 'index.html'), '<!doctype html><title>Laneway</title>');
    const withUi = await startServer(t.engine, { port: 0, rateLimit: 1000, uiDir: ui.dir });
    try {
      for (const url of [api.url, withUi.url]) {
        for (const path of ['/api/exports/customer/%ff%fe', '/api/exports/invoice/%E0%A4%A', '/app/%', '/app/%ff']) {
          const res = await raw(url, 'GET', path, AUTH);
          expect(res.status, `${url}${path}`).toBe(400);
          expect(res.json.code).toMatch(/^(invalid_path_encoding|bad_request)$/);
          expect(typeof res.json.error).toBe('string');
        }
      }
    } finally {
      await withUi.close();
      ui.cleanup();
    }
  });
});

describe('sign-in lockout', () => {
  it("wrong passwords from one address lock that address out, not the user signing in from another (a stranger cannot keep the owner out)", async () => {
    const { link } = await t.engine.users.create({ email: 'desk@example.com', role: 'manager' });
    await t.engine.users.redeemLink(link, 'desk password 1');
    const json = { 'Content-Type': 'application/json' };
    const signIn = (password: string, from: string) => raw(api.url, 'POST', '/api/session', json, JSON.stringify({ email: 'desk@example.com', password }), from);
    // Another machine's address, as the server sees it: all of 127/8 is this machine's loopback.
    for (let i = 0; i < 5; i++) expect((await signIn('not it at all', '127.0.0.2')).status).toBe(401);
    const there = await signIn('desk password 1', '127.0.0.2');
    expect(there.status).toBe(403);
    expect(there.json.code).toBe('user_locked');
    const here = await signIn('desk password 1', '127.0.0.1');
    expect(here.status).toBe(200);
    expect(typeof here.json.jwt).toBe('string');
  });
});

describe('pay_url comes from configuration, not the Host header (item 11)', () => {
  const payInvoice = (client: { url: string }, host?: string) =>
    raw(
      client.url,
      'POST',
      '/api/imports/invoice',
      { ...AUTH, 'Content-Type': 'application/json', ...(host ? { Host: host } : {}) },
      JSON.stringify({ number: `INV-PAY-${Math.random()}`, customer_identifier: 'PAYER1', customer_name: 'Payer', customer_email: 'payer@example.com', amount: 500, echo: 'pay_urls' }),
    );

  it('defaults to the bound address whatever Host the request named', async () => {
    const res = await payInvoice(api, `localhost:${new URL(api.url).port}`);
    expect(res.status).toBe(201);
    expect(res.json.pay_url).toMatch(new RegExp(`^${api.url.replace(/\./g, '\\.')}/pay/[0-9]+-[A-Z0-9]+$`));
    for (const url of Object.values(res.json.pay_urls as Record<string, string>)) expect(url.startsWith(`${api.url}/pay/`)).toBe(true);
  });

  it('uses the configured public URL', async () => {
    const server: RunningServer = await startServer(t.engine, { port: 0, rateLimit: 1000, publicUrl: 'https://pay.shop.example/' });
    try {
      const res = await payInvoice(server);
      expect(res.status).toBe(201);
      expect(res.json.pay_url).toMatch(/^https:\/\/pay\.shop\.example\/pay\/[0-9]+-[A-Z0-9]+$/);
      const number = (res.json.identifier as string) ?? '';
      const view = await raw(server.url, 'GET', `/api/exports/invoice/${encodeURIComponent(number)}`, AUTH);
      if (view.json.pay_url !== undefined) expect(view.json.pay_url).toMatch(/^https:\/\/pay\.shop\.example\/pay\//);
    } finally {
      await server.close();
    }
  });
});
