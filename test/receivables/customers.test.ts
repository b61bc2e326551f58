import { describe, expect, it } from 'vitest';
import { fields, uid, withCapabilities, type ErrorReply } from '../helpers/receivables';
import { useHarness } from '../helpers/harness';
import { startReceiver } from '../helpers/receiver';

const ctx = useHarness({ api: true });
type View = Record<string, unknown> & { contacts: Array<{ email: string; first_name: string | null; disabled: boolean }> };

const importCustomer = (body: Record<string, unknown>) => ctx.api.post<ErrorReply & { identifier: string; message: string }>('/api/imports/customer', body);
const view = async (id: string) => (await ctx.api.get<View>(`/api/exports/customer/${id}`)).body;

describe('customer import', () => {
  it('with create_only refuses an identifier already used (412 customer_exists) and changes nothing', async () => {
    const id = uid('C');
    expect((await importCustomer({ identifier: id, name: 'Boulangerie Élise', credit_limit_cents: 123_456 })).status).toBe(201);
    const again = await ctx.api.post<ErrorReply>(`/api/imports/customer?create_only=true`, { identifier: id, name: 'Duplicate', credit_limit_cents: 1_000 });
    expect(again.status).toBe(412);
    expect(JSON.stringify(again.body)).toContain('customer_exists');
    expect(JSON.stringify(again.body)).toContain(`${id} is already a customer: Boulangerie Élise`);
    expect(await view(id)).toMatchObject({ name: 'Boulangerie Élise' });
    const fresh = uid('C');
    expect((await ctx.api.post(`/api/imports/customer?create_only=true`, { identifier: fresh, name: 'New' })).status).toBe(201);
  });

  it('takes a web site only as an http or https address (or a bare host, as the reference writes it), never a javascript: link', async () => {
    const id = uid('C');
    expect((await importCustomer({ identifier: id, name: 'Acme', url: 'https://www.acme.test/about' })).status).toBe(201);
    const before = ctx.t.engine.core.currentWatermark();
    for (const bad of ['javascript:alert(document.cookie)', ' JaVaScRiPt:alert(1)', 'javascript:1', 'data:text/html,<script>alert(1)</script>', 'vbscript:msgbox(1)', 'ftp://files.acme.test', 'https://bank.test@evil.test', 'https://', 'not a web site']) {
      const res = await importCustomer({ identifier: id, name: 'Acme', url: bad });
      expect([res.status, res.body.code, fields(res.body)], bad).toEqual([412, 'invalid_url', ['url']]);
    }
    expect(ctx.t.engine.core.currentWatermark()).toBe(before);
    expect((await view(id)).url).toBe('https://www.acme.test/about');
    for (const good of ['http://acme.test', 'HTTPS://Acme.test/x?y=1', 'www.acmeinc.com', 'acme.test:8080/shop']) {
      expect((await importCustomer({ identifier: id, name: 'Acme', url: good })).status, good).toBe(201);
      expect((await view(id)).url).toBe(good);
    }
  });

  it('creates, then updates the same identifier, answering 201 {identifier, message}', async () => {
    const id = uid('C');
    const first = await importCustomer({ identifier: id, name: 'Acme Inc.', email: 'bob@acme.test', contacts: [{ email: 'jane@acme.test', first_name: 'Jane' }] });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ identifier: id, message: '1 customer with 2 contacts' });
    const second = await importCustomer({ identifier: id, name: 'Acme Holdings' });
    expect(second.status).toBe(201);
    const v = await view(id);
    expect(v.name).toBe('Acme Holdings');
    expect(v.email).toBe('bob@acme.test');
    expect(v.contacts.map((c) => c.email).sort()).toEqual(['bob@acme.test', 'jane@acme.test']);
  });

  it('refuses each broken field rule with 412 naming the field, and changes nothing', async () => {
    const before = ctx.t.engine.core.currentWatermark();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ identifier: 'bad id!', name: 'X' }, 'identifier'],
      [{ identifier: uid('C') }, 'name'],
      [{ identifier: uid('C'), name: 'X', email: 'not-an-email' }, 'email'],
      [{ identifier: uid('C'), name: 'X', locale: 'de' }, 'locale'],
      [{ identifier: uid('C'), name: 'X', account_status: 'frozen' }, 'account_status'],
      [{ identifier: uid('C'), name: 'X', terms_type: 'day', terms_value: 101 }, 'terms_value'],
      [{ identifier: uid('C'), name: 'X', terms_type: 'day', terms_value: -1 }, 'terms_value'],
      [{ identifier: uid('C'), name: 'X', terms_type: 'date', terms_value: 28 }, 'terms_value'],
      [{ identifier: uid('C'), name: 'X', terms_type: 'date', terms_value: 0 }, 'terms_value'],
      [{ identifier: uid('C'), name: 'X', terms_type: 'date', terms_value: -3 }, 'terms_value'],
      [{ identifier: uid('C'), name: 'X', business_number: 'ABC-123' }, 'business_number'],
      [{ identifier: uid('C'), name: 'X', business_number: '123456789012345678901' }, 'business_number'],
      [{ identifier: uid('C'), name: 'X', notes: 'n'.repeat(65537) }, 'notes'],
      [{ identifier: uid('C'), name: 'X', country: 'ZZ' }, 'country'],
      [{ identifier: uid('C'), name: 'X', country: 'CA', province: 'NY' }, 'province'],
      [{ identifier: uid('C'), name: 'X', parent_identifier: 'NOPE404' }, 'parent_identifier'],
    ];
    for (const [body, field] of cases) {
      const res = await importCustomer(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(412);
      expect(fields(res.body), JSON.stringify(body).slice(0, 80)).toContain(field);
      expect(typeof res.body.error).toBe('string');
    }
    expect(ctx.t.engine.core.currentWatermark()).toBe(before);
  });

  it('accepts the reference\'s own customer example, whose numbers and flags are strings', async () => {
    const parent = uid('P');
    await importCustomer({ identifier: parent, name: 'Parent' });
    const id = uid('C');
    const res = await importCustomer({
      identifier: id, display_number: 'DispNum1234', name: 'Acme Inc.', email: 'bob.smith@example.com', first_name: 'Bob', last_name: 'Smith',
      notes: 'Payment terms will be revised next year.', address_1: '200 Main Street', address_2: 'Suite 250', city: 'Toronto', province: 'ON',
      postal_code: 'M5M 5M5', country: 'CA', telephone: '(416) 123-4567', fax: '(416) 100-1020', url: 'www.acmeinc.com', business_number: 'GS324587987',
      locale: 'en', parent_identifier: parent, account_status: 'open', last_contact_date: '2017-12-04', next_contact_date: '2018-02-15',
      credit_limit_cents: '2000000', credit_limit_currency: 'CAD', credit_rating: 'AA', terms_type: 'day', terms_value: 15,
      company_bio: 'Acme Inc. sells cutting-edge widgets.', ignores_cc_payment_rules: 'false', notification_suppressed: 'false', tags: 'Blue;Green;Yellow',
      line_item_attributes: [{ email: 'jane.smith@example.com', first_name: 'Jane', last_name: 'Smith', telephone: '809-888-1234', title: 'Buyer' }],
    });
    expect(res.status).toBe(201);
    expect(res.body.message).toBe('1 customer with 2 contacts');
    const v = await view(id);
    expect([v.credit_limit, v.credit_limit_currency, v.notification_suppressed]).toEqual(['$20,000.00', 'cad', 'N']);
  });

  it('accepts the edges of the terms ranges and both terms types', async () => {
    for (const [type, value] of [['day', 0], ['day', 100], ['date', 1], ['date', 27], ['date', -1], ['date', -2]] as const) {
      const res = await importCustomer({ identifier: uid('T'), name: 'Terms', terms_type: type, terms_value: value });
      expect(res.status, `${type} ${value}`).toBe(201);
    }
  });

  it('takes null as a field not sent, as clients generated from the reference send it', async () => {
    const id = uid('C');
    expect((await importCustomer({ identifier: id, name: 'Null Co', email: 'ap@null.test', notes: 'Keep' })).status).toBe(201);
    const res = await importCustomer({ identifier: id, name: 'Null Co', email: null, notes: null, locale: null, credit_limit_cents: null, contacts: [{ email: 'b@null.test', first_name: null }] });
    expect(res.status).toBe(201);
    const v = await view(id);
    expect([v.email, v.notes]).toEqual(['ap@null.test', 'Keep']);
    expect(v.contacts.map((c) => c.email)).toContain('b@null.test');
    const invoice = await ctx.api.post<ErrorReply>('/api/imports/invoice', { number: uid('INV'), customer_identifier: id, amount: 100, ref1: null, order_date: null, line_item_attributes: null });
    expect(invoice.status).toBe(201);
    // A required field sent as null is still missing.
    expect(fields((await importCustomer({ identifier: null, name: 'X' })).body)).toContain('identifier');
  });

  it('normalises countries and validates the province against ISO 3166-2', async () => {
    const id = uid('C');
    expect((await importCustomer({ identifier: id, name: 'X', country: 'can', province: 'CA-on' })).status).toBe(201);
    const v = await view(id);
    expect([v.country, v.province]).toEqual(['CA', 'ON']);
    // The country alone moved: the province kept from before must belong to it too.
    const moved = await importCustomer({ identifier: id, name: 'X', country: 'US' });
    expect(moved.status).toBe(412);
    expect(fields(moved.body)).toEqual(['province']);
    expect((await importCustomer({ identifier: id, name: 'X', country: 'US', province: 'NY' })).status).toBe(201);
    expect((await importCustomer({ identifier: id, name: 'Y', country: 'US' })).status).toBe(201);
    expect([(await view(id)).country, (await view(id)).province]).toEqual(['US', 'NY']);
    // The same for an invoice's shipping address.
    const number = uid('INV');
    const shipTo = { number, customer_identifier: id, amount: 100, shipping_country: 'US', shipping_province: 'NY' };
    expect((await ctx.api.post('/api/imports/invoice', shipTo)).status).toBe(201);
    const shipped = await ctx.api.post<ErrorReply>('/api/imports/invoice', { number, customer_identifier: id, shipping_country: 'FR' });
    expect(fields(shipped.body)).toEqual(['shipping_province']);
  });

  it('ignores an older last_contact_date; next_contact_date always overwrites', async () => {
    const id = uid('C');
    await importCustomer({ identifier: id, name: 'X', last_contact_date: '2026-02-10', next_contact_date: '2026-04-01' });
    await importCustomer({ identifier: id, name: 'X', last_contact_date: '2026-01-05', next_contact_date: '2026-03-15' });
    let v = await view(id);
    expect(v.last_contact_date).toBe('2026-02-10');
    expect(v.next_contact_date).toBe('2026-03-15');
    await importCustomer({ identifier: id, name: 'X', last_contact_date: '2026-02-20' });
    v = await view(id);
    expect(v.last_contact_date).toBe('2026-02-20');
  });

  it('keeps extra attributes and returns them for presentment', async () => {
    const id = uid('C');
    await importCustomer({ identifier: id, name: 'X', sales_region: 'North', loyalty: 3 });
    expect((await view(id)).attributes_marshal).toEqual({ sales_region: 'North', loyalty: 3 });
  });

  it('ignores the read-only watermark a client sends back with what it read, never keeping it as an extra attribute', async () => {
    const id = uid('C');
    await importCustomer({ identifier: id, name: 'X', sales_region: 'North' });
    const read = await view(id);
    const again = await importCustomer({ identifier: id, name: 'Y', sales_region: 'South', watermark: read.watermark });
    expect(again.status).toBe(201);
    const after = await view(id);
    expect(after.name).toBe('Y');
    expect(after.attributes_marshal).toEqual({ sales_region: 'South' });
    expect(after.watermark).toBeGreaterThan(read.watermark as number);
  });

  it('defaults credit_limit_currency to the currency of most invoices, else the account currency', async () => {
    const id = uid('C');
    await importCustomer({ identifier: id, name: 'X', credit_limit_cents: 500000 });
    expect((await view(id)).credit_limit_currency).toBe('usd');
    for (const [n, currency] of [['a', 'cad'], ['b', 'cad'], ['c', 'usd']]) {
      await ctx.api.post('/api/imports/invoice', { number: `${id}-${n}`, customer_identifier: id, amount: 1000, currency });
    }
    const v = await view(id);
    expect(v.credit_limit_currency).toBe('cad');
    expect(v.credit_limit).toBe('$5,000.00');
    await importCustomer({ identifier: id, name: 'X', credit_limit_currency: 'USD' });
    expect((await view(id)).credit_limit_currency).toBe('usd');
    // Sent blank: back to the default.
    await importCustomer({ identifier: id, name: 'X', credit_limit_currency: '' });
    expect((await view(id)).credit_limit_currency).toBe('cad');
  });
});

describe('replace_contacts', () => {
  it('without it, adds and updates; with it, deletes absent supplier contacts and disables signed-up ones', async () => {
    const id = uid('C');
    await importCustomer({ identifier: id, name: 'X', contacts: [{ email: 'a@x.test', first_name: 'A' }, { email: 'b@x.test' }, { email: 'c@x.test' }] });
    await ctx.t.engine.receivables.markSignedUp(id, 'b@x.test');
    await ctx.t.engine.receivables.markSignedUp(id, 'user@x.test'); // created by a customer user on the portal
    // A plain re-import adds and updates, removes nothing, and never rewrites a signed-up person.
    await importCustomer({ identifier: id, name: 'X', contacts: [{ email: 'a@x.test', first_name: 'Ann' }, { email: 'b@x.test', first_name: 'Bobby' }, { email: 'd@x.test' }] });
    let v = await view(id);
    expect(v.contacts.map((c) => c.email).sort()).toEqual(['a@x.test', 'b@x.test', 'c@x.test', 'd@x.test', 'user@x.test']);
    expect(v.contacts.find((c) => c.email === 'a@x.test')?.first_name).toBe('Ann');
    expect(v.contacts.find((c) => c.email === 'b@x.test')?.first_name).toBeNull();

    await importCustomer({ identifier: id, name: 'X', replace_contacts: true, contacts: [{ email: 'a@x.test' }] });
    v = await view(id);
    const byEmail = Object.fromEntries(v.contacts.map((c) => [c.email, c]));
    expect(Object.keys(byEmail).sort()).toEqual(['a@x.test', 'b@x.test', 'user@x.test']);
    expect(byEmail['b@x.test']!.disabled).toBe(true);
    expect(byEmail['a@x.test']!.disabled).toBe(false);
    expect(byEmail['user@x.test']!.disabled).toBe(false);
  });

  it('accepts the contacts array under the reference schema\'s name line_item_attributes', async () => {
    const id = uid('C');
    const res = await importCustomer({ identifier: id, name: 'X', line_item_attributes: [{ email: 'jane@x.test', title: 'Buyer' }] });
    expect(res.body.message).toBe('1 customer with 1 contact');
    expect((await view(id)).contacts[0]?.email).toBe('jane@x.test');
  });
});

describe('hierarchy', () => {
  it('links a parent, reports parent and root, and refuses a cycle', async () => {
    const [top, mid, leaf] = [uid('P'), uid('M'), uid('L')];
    await importCustomer({ identifier: top, name: 'Top', email: 'top@x.test' });
    await importCustomer({ identifier: mid, name: 'Mid', parent_identifier: top });
    await importCustomer({ identifier: leaf, name: 'Leaf', parent_identifier: mid });
    const v = await view(leaf);
    expect([v.parent_identifier, v.parent_name, v.root_identifier]).toEqual([mid, 'Mid', top]);
    expect((await view(top)).root_identifier).toBe(top);
    const cycle = await importCustomer({ identifier: top, name: 'Top', parent_identifier: leaf });
    expect(cycle.status).toBe(412);
    expect(cycle.body.code).toBe('hierarchy_cycle');
    const self = await importCustomer({ identifier: mid, name: 'Mid', parent_identifier: mid });
    expect(self.body.code).toBe('hierarchy_cycle');
  });
});

describe('update identifier', () => {
  it('renames the customer and its invoices and payments; 412 when missing or taken', async () => {
    const [a, b, taken] = [uid('A'), uid('B'), uid('T')];
    await importCustomer({ identifier: a, name: 'A' });
    await importCustomer({ identifier: taken, name: 'T' });
    await importCustomer({ identifier: uid('K'), name: 'Kid', parent_identifier: a });
    await ctx.api.post('/api/imports/invoice', { number: `${a}-1`, customer_identifier: a, amount: 1000 });
    await ctx.api.post('/api/imports/payment', { identifier: `${a}-P`, invoice_number: `${a}-1`, amount_cents: 400 });
    const res = await ctx.api.post<{ identifier: string; message: string }>(`/api/imports/customers/${a}/update_identifier`, { new_identifier: b });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ identifier: b, message: 'customer identifier updated' });
    expect((await ctx.api.get(`/api/exports/customer/${a}`)).status).toBe(404);
    expect((await view(b)).balance).toBe('$6.00');
    expect((await ctx.api.get<{ customer_identifier: string }>(`/api/exports/invoice/${a}-1`)).body.customer_identifier).toBe(b);
    expect((await ctx.api.get<{ customer_identifier: string }>(`/api/exports/payment/${a}-P`)).body.customer_identifier).toBe(b);

    const missing = await ctx.api.post<ErrorReply>(`/api/imports/customers/NOPE${uid('x')}/update_identifier`, { new_identifier: uid('N') });
    expect(missing.status).toBe(412);
    expect(missing.body.code).toBe('customer_not_found');
    // The reference's 412 body: the importer's errors, as a string.
    expect((missing.body as ErrorReply & { importer?: string }).importer).toBe('{:customer=>["not found."]}');
    const clash = await ctx.api.post<ErrorReply>(`/api/imports/customers/${b}/update_identifier`, { new_identifier: taken });
    expect(clash.status).toBe(412);
    expect(clash.body.code).toBe('identifier_taken');
    expect((clash.body as ErrorReply & { importer?: string }).importer).toBe('{:identifier=>["is already taken."]}');
    const noBody = await ctx.api.post<ErrorReply>(`/api/imports/customers/${b}/update_identifier`, {});
    expect(noBody.status).toBe(412);
  });
});

describe('the single customer view', () => {
  it('answers null, as the list does, for dates and the last payment source it has none of; GET and the webhook body alike', async () => {
    const receiver = await startReceiver();
    try {
      const hook = await ctx.t.engine.webhooks.create({ url: receiver.url, events: ['customer.created'] });
      const id = uid('C');
      await importCustomer({ identifier: id, name: 'Nothing yet' });
      await ctx.t.engine.webhooks.drain();
      const single = await view(id);
      const listed = (await ctx.api.get<{ customers: Array<Record<string, unknown>> }>(`/api/exports/customers?list=true&watermark=${(single.watermark as number) - 1}&limit=1`)).body.customers[0]!;
      expect(listed.identifier).toBe(id);
      const unset = { invite_sent: null, signed_up: null, last_payment_date: null, last_payment_source: null };
      expect(single).toMatchObject(unset);
      expect({ invite_sent: listed.invite_sent, signed_up: listed.signed_up }).toEqual({ invite_sent: null, signed_up: null });
      const delivered = receiver.received.map((r) => JSON.parse(r.body.toString()) as Record<string, unknown>).find((b) => b.identifier === id);
      expect(delivered).toMatchObject(unset);
      await ctx.t.engine.webhooks.remove(hook.endpoint.id);

      // Once they happen: a date and the reference's source.
      await ctx.api.post('/api/invitations', { identifier: id, email: 'first@x.test' });
      await ctx.api.post('/api/imports/invoice', { number: uid('INV'), customer_identifier: id, amount: 1000 });
      await ctx.api.post('/api/imports/payment', { identifier: uid('P'), customer_identifier: id, amount_cents: 500, date: '2026-03-01' });
      expect(await view(id)).toMatchObject({ invite_sent: '2026-03-02', signed_up: null, last_payment_date: '2026-03-01', last_payment_source: 'erp' });
    } finally {
      await receiver.close();
    }
  });
});

describe('invitations', () => {
  it('issues (creating the contact), cancels, and answers 403/404 as the spec says', async () => {
    const id = uid('C');
    await importCustomer({ identifier: id, name: 'X' });
    expect((await ctx.api.post('/api/invitations', { identifier: id, email: 'new@x.test' })).status).toBe(200);
    let v = await view(id);
    expect(v.contacts.map((c) => c.email)).toEqual(['new@x.test']);
    expect(v.status).toBe('Invited');
    expect(v.invite_sent).toBe('2026-03-02');
    expect((await ctx.api.delete('/api/invitations', { identifier: id, email: 'new@x.test' })).status).toBe(200);
    v = await view(id);
    expect(v.contacts).toHaveLength(1);
    expect(v.status).toBe('Not Activated');
    expect((await ctx.api.delete<ErrorReply>('/api/invitations', { identifier: id, email: 'new@x.test' })).status).toBe(404);

    await ctx.t.engine.receivables.issueInvitation(id, 'peer@x.test', 'customer');
    const byCustomer = await ctx.api.delete<ErrorReply>('/api/invitations', { identifier: id, email: 'peer@x.test' });
    expect(byCustomer.status).toBe(403);
    expect(byCustomer.body.code).toBe('invited_by_customer_user');

    expect((await ctx.api.post<ErrorReply>('/api/invitations', { identifier: `NOPE${uid('x')}`, email: 'a@x.test' })).status).toBe(404);
    expect((await ctx.api.post<ErrorReply>('/api/invitations', { identifier: id, email: 'nope' })).status).toBe(400);
    expect((await ctx.api.post<ErrorReply>('/api/invitations', { identifier: id })).status).toBe(400);

    await ctx.api.post('/api/invitations', { identifier: id, email: 'again@x.test' });
    await importCustomer({ identifier: id, name: 'X', account_status: 'closed' });
    const closed = await ctx.api.delete<ErrorReply>('/api/invitations', { identifier: id, email: 'again@x.test' });
    expect(closed.status).toBe(403);
    expect(closed.body.code).toBe('customer_closed');
    expect((await ctx.api.post<ErrorReply>('/api/invitations', { identifier: id, email: 'more@x.test' })).status).toBe(403);
  });
});

describe('restricted grouping', () => {
  it('refuses grouping customers with different external_group_identifier only when the account restricts grouping', async () => {
    const r = ctx.t.engine.receivables;
    const [a, b, c] = [uid('G'), uid('G'), uid('G')];
    await importCustomer({ identifier: a, name: 'A', external_group_identifier: 'EAST' });
    await importCustomer({ identifier: b, name: 'B', external_group_identifier: 'WEST' });
    await importCustomer({ identifier: c, name: 'C', external_group_identifier: 'EAST' });
    await withCapabilities(ctx, { restricted_grouping: true }, async () => {
      await expect(r.groupCustomers([a, b])).rejects.toMatchObject({ code: 'grouping_restricted' });
      const group = await r.groupCustomers([a, c]);
      expect((await view(a)).group_id).toBe(group);
      const change = await importCustomer({ identifier: c, name: 'C', external_group_identifier: 'WEST' });
      expect(change.status).toBe(412);
      expect(fields(change.body)).toContain('external_group_identifier');
    });
    // Without the restriction the value is stored and ignored.
    const group = await r.groupCustomers([a, b]);
    expect((await view(b)).group_id).toBe(group);
  });
});
