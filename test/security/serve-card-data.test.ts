import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AMEX, DISCOVER, MASTERCARD, VISA, card } from '../helpers/cards';
import { tempDir } from '../helpers/tmp';

/**
 * The whole product as it runs (`serve`, debug logging on): card payments, a wallet, a gift card,
 * an ecommerce frame payment, a CSV card file and requests that put card numbers where they do not
 * belong. Afterwards no full card number and no security code is anywhere in the data folder
 * (database, journal, logs, uploads) or in what the process printed.
 */
const TOKEN = 'SERVECARDS01';
const KEY = 'serve-cards-key-0123456789';
const AUTH = `Basic ${Buffer.from(`${TOKEN}:${KEY}`).toString('base64')}`;
const GIFT = '4775419990420272';
const CVV = '987';
const tmp = tempDir();
let child: ChildProcess | undefined;
let printed = '';

afterAll(() => {
  if (child?.exitCode === null) child.kill('SIGKILL');
  tmp.cleanup();
});

function start(): Promise<string> {
  child = spawn(process.execPath, ['scripts/cli.mjs', 'serve', '--data-dir', join(tmp.dir, 'shop'), '--port', '0', '--log-level', 'debug'], {
    env: { ...process.env, LANEWAY_API_TOKEN: TOKEN, LANEWAY_API_KEY: KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${printed}`)), 60_000);
    const take = (c: Buffer) => {
      printed += c.toString();
      const url = /(http:\/\/127\.0\.0\.1:\d+)\/api\b/.exec(printed)?.[1];
      if (url && printed.includes('Screens:')) {
        clearTimeout(timer);
        resolve(url);
      }
    };
    child!.stdout!.on('data', take);
    child!.stderr!.on('data', take);
    child!.on('exit', (code) => reject(new Error(`serve exited ${code}:\n${printed}`)));
  });
}

function folderText(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(readFileSync(p).toString('latin1'));
    }
  };
  walk(dir);
  return out.join('\n');
}

describe('serve keeps no card data', () => {
  it('after payments, wallets, gift cards, the payment frame and a card file', async () => {
    const url = await start();
    const call = async (method: string, path: string, body?: unknown, auth: string | null = AUTH) => {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { ...(auth ? { Authorization: auth } : {}), ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      for (const pan of [VISA, MASTERCARD, DISCOVER, AMEX, GIFT]) expect(text, `${method} ${path} echoes ${pan}`).not.toContain(pan);
      return { status: res.status, json: (text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text) as Record<string, unknown> };
    };
    expect((await call('POST', '/api/gateway/v1/orders/sale', { amount_cents: 1500, credit_card: card(VISA, { cvv: CVV }) })).json.success).toBe(true);
    expect((await call('POST', '/api/imports/customer', { identifier: 'C-SERVE', name: 'Serve Ltd' })).status).toBe(201);
    expect((await call('POST', '/api/gateway/v1/wallets', { customer: { identifier: 'C-SERVE' }, credit_card: card(MASTERCARD, { cvv: CVV }) })).status).toBe(200);
    await call('POST', '/api/gateway/v1/gift_card', { card_number: GIFT, expiry_month: '12', expiry_year: '2049', pin: '1234', activated: 'true', load_amount_cents: 5000 });
    expect((await call('POST', '/api/gateway/v1/orders/sale', { amount_cents: 700, gift_card: { card_number: GIFT, pin: '1234' } })).json.success).toBe(true);

    const session = await call('POST', '/api/v2/sessions', { gatewayAuthorization: { apiToken: TOKEN, apiKey: KEY }, options: {} }, null);
    const id = session.json.id as string;
    const token = await call('POST', `/api/v2/sessions/${id}/tokens`, { type: 'creditCard', accountHolder: 'Jane Smith', accountNumber: DISCOVER, expirationMonth: 12, expirationYear: 2030, cardVerificationValue: CVV }, null);
    expect(token.status).toBe(201);
    const address = { contactFirstName: 'Jane', contactLastName: 'Smith', address1: '123 Main Street', city: 'Anytown', stateOrProvince: 'CA', postCode: '55555', country: 'US', email: 'jane@example.com' };
    const sold = await call('POST', `/api/v2/sessions/${id}/sales`, { gatewayAuthorization: { apiToken: TOKEN, apiKey: KEY }, orderNumber: 'SO-1', currency: 'USD', billingAddress: address, shippingAddress: address, lines: [{ number: 'W1', description: 'Widget', price: 10, quantity: 1 }], payment: { type: 'creditCard', token: token.json.token, amount: 10, capture: true } }, null);
    expect(sold.status).toBe(201);

    const csv = `customer_identifier,name,first_name,last_name,number,expiry,postal_code,create_debit_agreement,auto_debit_reference\nC-SERVE,Pat ${VISA},Pat,Lee,${AMEX},1230,H0H 0H0,N,\n`;
    const form = new FormData();
    form.append('file', new Blob([csv], { type: 'text/csv' }), `cards-${MASTERCARD}.csv`);
    const uploaded = await fetch(`${url}/api/imports`, { method: 'POST', headers: { Authorization: AUTH }, body: form });
    expect(uploaded.status).toBe(201);
    const batch = (await uploaded.json()) as { id: number };
    for (let i = 0; i < 100 && (await call('GET', `/api/imports/${batch.id}`)).json.status === 'processing'; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await call('GET', `/api/imports/${batch.id}`)).json.result_message).toBe('1 credit card');

    // Card numbers where they do not belong: a path, a wrong type, a note sent as a number.
    await call('GET', `/api/exports/customer/${VISA}`);
    await call('POST', '/api/gateway/v1/orders/sale', `{"amount_cents":"${AMEX}","credit_card":${JSON.stringify(card(VISA, { cvv: CVV }))}}`);
    await call('POST', '/api/imports/customer', `{"identifier":"C-NOTE","notes":${DISCOVER}}`);

    // A pay link's key opens and pays its invoice: the request log (debug) leaves it out.
    expect((await call('POST', '/api/imports/invoice', { number: 'INV-PAYKEY', customer_identifier: 'C-SERVE', amount: 1000, date: '2026-01-01', due_date: '2026-02-01' })).status).toBeLessThan(300);
    const payUrl = String((await call('GET', '/api/exports/invoice/INV-PAYKEY')).json.pay_url);
    const payKey = /\/pay\/([^/?#]+)/.exec(payUrl)?.[1];
    expect(payKey, payUrl).toBeTruthy();
    expect((await call('GET', `/api/pay/${payKey}`, undefined, null)).status).toBe(200);

    child!.kill('SIGTERM');
    await new Promise<void>((resolve) => child!.once('exit', () => resolve()));
    const logFile = join(tmp.dir, 'shop', 'logs', 'laneway.log');
    const logs = `${printed}\n${existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''}`;
    expect(logs).toContain('/api/pay/[key]');
    expect(logs.includes(payKey!)).toBe(false);
    const everything = `${folderText(join(tmp.dir, 'shop'))}\n${printed}`;
    expect(everything).toContain('489528'); // the masked forms are there: the search reads the right place
    for (const pan of [VISA, MASTERCARD, DISCOVER, AMEX, GIFT]) expect(everything.includes(pan), pan).toBe(false);
    expect(everything).not.toMatch(new RegExp(`(cvv|cardVerificationValue)\\W{0,6}${CVV}\\b`, 'i'));
  }, 120_000);
});
