import { describe, expect, it } from 'vitest';
import { useHarness } from '../helpers/harness';
import { uid, withCapabilities } from '../helpers/receivables';

const h = useHarness({ api: true });

type Err = { error: string; code: string };
type Message = { to: string; purpose: string; state: string };
const dm = (body: Record<string, unknown>) => h.api.post<Err>('/api/notifications/direct_message', body);
const outbox = async () => (await h.api.get<{ messages: Message[] }>('/api/notifications/outbox?limit=500')).body.messages;

async function customer(extra: Record<string, unknown> = {}, contacts: Array<Record<string, unknown>> = []) {
  const identifier = uid('C');
  expect((await h.api.post('/api/imports/customer', { identifier, name: 'Acme Inc.', contacts, ...extra })).status).toBe(201);
  return identifier;
}
async function contactsOf(identifier: string) {
  return (await h.api.get<{ contacts: Array<{ email: string; activated?: boolean; activated_at?: string | null }> }>(`/api/exports/customer/${identifier}`)).body.contacts;
}
async function order(fields: Record<string, unknown>) {
  const identifier = uid('ORD');
  expect((await h.api.post('/api/imports/order', { identifier, amount_cents: 10_000, ...fields })).status).toBe(201);
  return identifier;
}

describe('direct message: invoice', () => {
  it('sends a reminder to the email; object_identifier is required; an unknown invoice is 404', async () => {
    const c = await customer({}, [{ email: 'ap@acme.test' }]);
    const number = uid('INV');
    await h.api.post('/api/imports/invoice', { number, customer_identifier: c, amount: 5_000 });
    expect((await dm({ email: 'ap@acme.test', object_type: 'invoice' })).body.code).toBe('object_identifier_required');
    expect((await dm({ email: 'ap@acme.test', object_type: 'invoice', object_identifier: 'NOPE' })).status).toBe(404);
    const ok = await dm({ email: 'ap@acme.test', object_type: 'invoice', object_identifier: number, create_contact: false });
    expect([ok.status, ok.body]).toEqual([200, {}]);
    expect((await outbox())[0]).toMatchObject({ to: 'ap@acme.test', purpose: 'reminder' });
    // create_contact false: an email that is no contact of the customer is refused.
    const stranger = await dm({ email: 'stranger@acme.test', object_type: 'invoice', object_identifier: number, create_contact: false });
    expect(stranger.body.code).toBe('contact_not_activated');
    // The reference's validation failures are in errors.base; the sentence is in error too.
    expect((stranger.body as Err & { errors: { base: string[] } }).errors.base).toEqual([stranger.body.error]);
  });
});

describe('direct message: order (deposit request)', () => {
  it('400 for each failed condition, in the order the reference lists them, else sent', async () => {
    const c = await customer({}, [{ email: 'buyer@acme.test', bulk_activate: true }]);
    const good = { customer_identifier: c, deposit_amount_cents: 2_500 };
    const send = (id: string) => dm({ email: 'buyer@acme.test', object_type: 'order', object_identifier: id });
    expect((await dm({ email: 'buyer@acme.test', object_type: 'order' })).body.code).toBe('object_identifier_required');
    const ok = await order(good);
    await withCapabilities(h, { orders: false }, async () => {
      const res = await send(ok);
      expect([res.status, res.body.code]).toEqual([400, 'deposit_requests_disabled']);
    });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...good, draft: true }, 'order_is_draft'],
      [{ ...good, owing_cents: 0 }, 'order_not_owing'],
      [{ customer_identifier: c }, 'order_no_deposit'],
      [{ deposit_amount_cents: 2_500 }, 'order_without_customer'],
    ];
    for (const [fields, code] of cases) {
      const res = await send(await order(fields));
      expect([res.status, res.body.code], code).toEqual([400, code]);
    }
    expect((await send(ok)).status).toBe(200);
    expect((await outbox())[0]).toMatchObject({ to: 'buyer@acme.test', purpose: 'deposit_request' });
  });
});

describe('direct message: payment_method', () => {
  const send = (body: Record<string, unknown>) => dm({ email: 'owner@acme.test', object_type: 'payment_method', ...body });

  it('400 for each failed condition of the reference', async () => {
    expect((await send({})).body.code).toBe('customer_identifier_required');
    expect((await send({ customer_identifier: 'NOBODY' })).body.code).toBe('customer_not_found');
    expect((await send({ customer_identifier: await customer({ account_status: 'closed' }), create_contact: true })).body).toMatchObject({ code: 'customer_closed', error: 'Customer is closed.' });
    expect((await send({ customer_identifier: await customer({ suspended: true }), create_contact: true })).body.code).toBe('customer_closed');
    const open = await customer();
    await withCapabilities(h, { wallets: false }, async () => {
      expect((await send({ customer_identifier: open, create_contact: true })).body).toMatchObject({ code: 'credit_cards_not_accepted', error: 'Credit cards are not accepted' });
    });
    expect((await send({ customer_identifier: await customer({ credit_card_exempt: true }), create_contact: true })).body).toMatchObject({ code: 'customer_card_exempt', error: 'Customer exempted from credit card payments' });
    expect((await send({ customer_identifier: open, create_contact: false })).body).toMatchObject({ code: 'contact_not_activated', error: 'email must belong to an activated contact' });
  });

  it('create_contact true makes the contact, activated; false activates an existing one', async () => {
    const before = (await outbox()).length;
    const fresh = await customer();
    expect((await send({ customer_identifier: fresh, create_contact: true, first_name: 'Olive', last_name: 'Owner' })).status).toBe(200);
    expect((await contactsOf(fresh)).find((c) => c.email === 'owner@acme.test')).toBeTruthy();
    const existing = await customer({}, [{ email: 'owner@acme.test' }]);
    expect((await send({ customer_identifier: existing, create_contact: false })).status).toBe(200);
    const after = await outbox();
    expect(after.length - before).toBe(2);
    expect(after[0]).toMatchObject({ to: 'owner@acme.test', purpose: 'payment_method_request' });
  });
});
