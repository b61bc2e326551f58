// A sample shop on the ecommerce API, no framework: this server creates a payment session for each
// checkout and, once the page hands it the tokens the payment frame made, creates the sale. The card
// number never reaches this server or its page: the buyer types it into the frame, served by Laneway.
//
//   LANEWAY_URL=http://127.0.0.1:4747 LANEWAY_API_TOKEN=... LANEWAY_API_KEY=... npm run example:shop
//
// A shop written for the real service needs only its base URL changed: `${LANEWAY_URL}/api/v2`, and
// its script URL: `${LANEWAY_URL}/client.js`.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const LANEWAY = (process.env.LANEWAY_URL ?? 'http://127.0.0.1:4747').replace(/\/+$/, '');
const API = `${LANEWAY}/api/v2`;
const gatewayAuthorization = { apiToken: process.env.LANEWAY_API_TOKEN ?? '', apiKey: process.env.LANEWAY_API_KEY ?? '' };
const PORT = Number(process.env.PORT ?? 4800);
// localhost: the sandbox lets pages on localhost show the payment frame.
const HOST = process.env.HOST ?? 'localhost';

const CART = [
  { number: 'W1', description: 'Widget', price: 10.5, quantity: 2 },
  { number: 'G1', description: 'Gadget', price: 9.5, quantity: 1 },
];
const TOTAL = CART.reduce((sum, l) => sum + l.price * l.quantity, 0);
/** sessionId -> { orderId, paid: Set of "type/token/amount" already taken } */
const orders = new Map();

async function laneway(method, path, body) {
  const res = await fetch(`${API}${path}`, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ gatewayAuthorization, ...body }) });
  const json = await res.json().catch(() => ({}));
  return { status: res.status, body: json };
}

/** A signed-in customer (here: `?customer=C1` on the page) gets a wallet: saved cards, and saving new ones. */
async function createSession(customer) {
  const { status, body } = await laneway('POST', '/sessions', {
    options: {
      ...(customer ? { wallet: { customerId: customer, allowAdd: true, allowEdit: true, saveByDefault: true } } : {}),
      paymentTypes: [{ name: 'creditCard', label: 'Card' }, { name: 'ach', label: 'Bank account' }, { name: 'giftCard', label: 'Gift card' }],
      avsRules: { rejectAddressMismatch: true, rejectPostCodeMismatch: true },
      amount: TOTAL,
    },
  });
  if (status !== 201) throw new Error(`session: ${status} ${body.message ?? ''}`);
  return body.id;
}

function saleBody(sessionId, billing) {
  const address = { contactFirstName: billing.firstName || 'Jane', contactLastName: billing.lastName || 'Buyer', address1: billing.street || '1 Main Street', city: billing.city || 'Springfield', postCode: billing.postCode || '55555', country: 'US' };
  return { orderNumber: `WEB-${sessionId.slice(0, 8)}`, currency: 'USD', billingAddress: address, shippingAddress: address, lines: CART };
}

/** Takes the payments the page got from the frame; finalizes the order once all are approved. */
async function pay({ sessionId, billing, payments }) {
  let order = orders.get(sessionId);
  if (!order && payments.length === 1) {
    // One payment: the one-step sale, finalized when approved.
    const { status, body } = await laneway('POST', `/sessions/${sessionId}/sales`, { ...saleBody(sessionId, billing), payment: { ...payments[0], capture: true } });
    if (body.orderId) orders.set(sessionId, { orderId: body.orderId, paid: new Set(status === 201 ? [key(payments[0])] : []) });
    return status === 201 ? { status: 200, body: { orderId: body.orderId, finalized: body.finalized } } : { status, body: { message: body.message } };
  }
  if (!order) {
    const { status, body } = await laneway('POST', `/sessions/${sessionId}/sales`, saleBody(sessionId, billing));
    if (status !== 201) return { status, body: { message: body.message } };
    order = { orderId: body.orderId, paid: new Set() };
    orders.set(sessionId, order);
  }
  for (const p of payments) {
    if (order.paid.has(key(p))) continue;
    const { status, body } = await laneway('POST', `/sessions/${sessionId}/sales/${order.orderId}/payments`, { ...p, capture: true });
    if (status !== 201) return { status, body: { message: body.message } };
    order.paid.add(key(p));
  }
  const { status, body } = await laneway('PATCH', `/sessions/${sessionId}/sales/${order.orderId}`, {});
  return status === 202 ? { status: 200, body: { orderId: order.orderId, finalized: body.finalized } } : { status, body: { message: body.message } };
}

const key = (p) => `${p.type}/${p.token}/${p.amount}`;

function readBody(req) {
  return new Promise((resolve) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => resolve(data));
  });
}

const send = (res, status, type, body) => {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
  res.end(body);
};

const server = createServer(async (req, res) => {
  const raw = req.method === 'POST' ? await readBody(req) : '';
  // Every request, body and all, as a shop's access log would have it: card data must never be here.
  console.log(`${new Date().toISOString()} ${req.method} ${req.url} ${raw}`);
  try {
    if (req.method === 'GET' && (req.url === '/' || req.url?.startsWith('/?'))) {
      const page = readFileSync(join(here, 'index.html'), 'utf8').replaceAll('{{LANEWAY_URL}}', LANEWAY).replaceAll('{{TOTAL}}', TOTAL.toFixed(2));
      return send(res, 200, 'text/html; charset=utf-8', page);
    }
    if (req.method === 'GET' && req.url === '/shop.js') return send(res, 200, 'text/javascript', readFileSync(join(here, 'shop.js')));
    if (req.method === 'POST' && req.url === '/checkout/session') {
      const { customer } = JSON.parse(raw || '{}');
      const known = typeof customer === 'string' && /^[0-9A-Za-z]{1,40}$/.test(customer) ? customer : undefined;
      return send(res, 200, 'application/json', JSON.stringify({ sessionId: await createSession(known), amount: TOTAL }));
    }
    if (req.method === 'POST' && req.url === '/checkout/pay') {
      const result = await pay(JSON.parse(raw));
      console.log(`${new Date().toISOString()} pay -> ${result.status} ${JSON.stringify(result.body)}`);
      return send(res, result.status, 'application/json', JSON.stringify(result.body));
    }
    send(res, 404, 'text/plain', 'not here');
  } catch (err) {
    console.error(`${new Date().toISOString()} error: ${err.message}`);
    send(res, 502, 'application/json', JSON.stringify({ message: err.message }));
  }
});

server.listen(PORT, HOST, () => {
  const { port } = server.address();
  console.log(`Sample shop on http://${HOST}:${port} (Laneway at ${LANEWAY})`);
});
