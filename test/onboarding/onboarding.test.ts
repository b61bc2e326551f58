import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { basicAuth, openHarness, type Harness } from '../helpers/harness';

let h: Harness;
let partner: string;
beforeEach(async () => {
  h = await openHarness({ api: true });
  // As support makes it (the admin command): no credential of the account may.
  const made = await h.t.engine.account.credentials.create({ name: 'Partner', kind: 'partner' });
  partner = basicAuth(made.token, made.key);
});
afterEach(async () => {
  await h.close();
});

const address = { address1: '1314 NW GLISAN ST', city: 'Portland', state_province: 'or', post_code: '97209', country: 'us' };
const person = { first_name: 'Alice', last_name: 'Smith', title: 'CFO' };
const owner = {
  name: person,
  ownership_percentage: 60,
  individual_tax_id_number: { itin: '325-98-1975' },
  birth_date: '1972-01-15',
  home_address: address,
  home_phone: '503-685-4116',
  email: 'alice@example.com',
};

let n = 0;
function application(over: Record<string, unknown> = {}): Record<string, unknown> {
  n += 1;
  return {
    business_legal_name: 'Acme Corporation',
    business_dba_name: 'Acme Coffee',
    business_tax_id_number: { tin: '77-7654567' },
    business_physical_address: address,
    business_billing_address: address,
    ownership_type: 'LLC',
    business_type: 'Restaurant',
    naics_code: '722515',
    business_phone: '503-685-4116',
    business_email: 'owner@acme.example',
    business_website: 'https://acme.example',
    business_established_date: '2015-06-01',
    annual_card_volume: { from: 1000000, to: 1999999 },
    annual_direct_debit_volume: { from: 500000, to: 999999 },
    average_ticket_amount: { from: 100, to: 249 },
    high_ticket_amount: { from: 1000, to: 4999 },
    american_express_service_establishment: { over_se_minimum: false },
    business_owners: [owner],
    primary_contact: { name: person, phone: '503-685-4116', email: 'alice@example.com' },
    control_prong: 'Owner 1',
    deposit_account: { routing_number: '021100361', account_number: '9876543299' },
    reference_token: `1c47dece-489b-4521-89db-0a940ac5${String(n).padStart(4, '0')}`,
    sells_prohibited_products: false,
    agrees_terms_and_conditions: true,
    terms_and_conditions: { url: 'https://laneway.example/merchant-services/terms' },
    ...over,
  };
}

type FieldError = { field: string; error_message: string };
/** The reference's ApplicationErrorResponse, with our `code` beside it. */
type Details = { code: string; address_errors?: FieldError[]; tax_id_errors?: FieldError[]; field_errors?: FieldError[] };
/** Every field a 400 names, read from the reference's lists only (a client written to it sees these). */
const fieldsOf = (body: Details) => [...new Set([...(body.address_errors ?? []), ...(body.tax_id_errors ?? []), ...(body.field_errors ?? [])].map((d) => d.field))].sort();

async function create(over: Record<string, unknown> = {}) {
  const body = application(over);
  const res = await h.api.post<{ application_token: string }>('/api/onboarding/v1/applications', body, partner);
  expect(res.status).toBe(201);
  return { token: res.body.application_token, reference: body.reference_token as string };
}
const status = (token: string) => h.api.get<{ application_status: string; api_credentials?: { api_token: string; api_key: string | null }; status_reason?: string }>(`/api/onboarding/v1/applications/${token}`, partner);
const step = (reference: string, step_number: number, message = `Step ${step_number} completed`) =>
  h.api.post('/api/onboarding/v1/application_steps', { reference_token: reference, step_number, message }, partner);
async function review() {
  h.t.clock.set(new Date(h.t.clock.now() + 61_000).toISOString());
  await h.t.engine.tick();
}

describe('onboarding: who may call it', () => {
  it('answers partner credentials only: 401 without credentials, 403 for the account key, and a partner key reaches nothing else', async () => {
    expect((await h.api.get('/api/onboarding/v1/terms', null)).status).toBe(401);
    const own = await h.api.get<{ code: string }>('/api/onboarding/v1/terms');
    expect(own.status).toBe(403);
    expect(own.body.code).toBe('partner_credentials_required');
    expect((await h.api.post('/api/onboarding/v1/applications', application())).status).toBe(403);
    expect((await h.api.get('/api/onboarding/v1/terms', partner)).status).toBe(200);
    const other = await h.api.get<{ code: string }>('/api/exports/customers', partner);
    expect(other.status).toBe(403);
    expect((await h.api.get('/api/whoami', partner)).status).toBe(403);
  });

  it('a JWT minted by the account key cannot claim the onboarding scope', async () => {
    const res = await h.api.get<{ code: string }>('/api/whoami?options[jwt_scope]=onboarding');
    expect(res.status).toBe(403);
  });
});

describe('onboarding: terms', () => {
  it('answers rates, prohibited products, terms and ranges by locale, and 400 for a malformed locale', async () => {
    const us = await h.api.get<{ rates: Array<{ currency_code: string }>; prohibited_products: { prohibited_product_list: string[] }; ranges: { annual_volumes: unknown[] } }>('/api/onboarding/v1/terms', partner);
    expect(us.status).toBe(200);
    expect(us.body.rates[0]!.currency_code).toBe('usd');
    expect(us.body.prohibited_products.prohibited_product_list).toContain('Firearms');
    expect(us.body.ranges.annual_volumes.length).toBeGreaterThan(0);
    const ca = await h.api.get<{ rates: Array<{ currency_code: string }> }>('/api/onboarding/v1/terms?locale=fr-ca', partner);
    expect(ca.body.rates[0]!.currency_code).toBe('cad');
    const other = await h.api.get<{ rates: Array<{ currency_code: string }> }>('/api/onboarding/v1/terms?locale=de-de', partner);
    expect(other.body.rates[0]!.currency_code).toBe('usd');
    for (const bad of ['EN-US', 'en_us', 'english', 'en-usa']) {
      const res = await h.api.get<Details>(`/api/onboarding/v1/terms?locale=${bad}`, partner);
      expect(res.status, bad).toBe(400);
      expect(fieldsOf(res.body)).toEqual(['locale']);
    }
  });
});

describe('onboarding: application rules', () => {
  it('creates an application (201, a GUID token), finds it by reference token, and answers Received', async () => {
    const { token, reference } = await create();
    expect(token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect((await status(token)).body).toEqual({ application_status: 'Received' });
    const found = await h.api.get<{ application_token: string }>(`/api/onboarding/v1/applications/search/${reference}`, partner);
    expect(found.body).toEqual({ application_token: token });
  });

  it("takes an address written as the reference's example writes it (\"state_province\": \"OR\", \"country\": \"US\")", async () => {
    const upper = { ...address, state_province: 'OR', country: 'US' };
    const res = await h.api.post<{ application_token: string }>('/api/onboarding/v1/applications', application({ business_physical_address: upper, business_billing_address: upper }), partner);
    expect(res.status).toBe(201);
  });

  it('takes ranges sent as digit strings and an optional field sent as null, as generated clients send them', async () => {
    const res = await h.api.post<{ application_token: string }>('/api/onboarding/v1/applications', application({ annual_card_volume: { from: '1000000', to: '1999999' }, stock_ticker_symbol: null, locale: null }), partner);
    expect(res.status).toBe(201);
    // A Public Corporation still needs its ticker: null is not one.
    const pub = await h.api.post<Details>('/api/onboarding/v1/applications', application({ ownership_type: 'Public Corporation', stock_ticker_symbol: null }), partner);
    expect(pub.status).toBe(400);
    expect(fieldsOf(pub.body)).toEqual(['stock_ticker_symbol']);
  });

  it('answers 404 for an unknown application or reference token', async () => {
    const unknown = await h.api.get<{ error: string }>('/api/onboarding/v1/applications/1c47dece-489b-4521-89db-000000000000', partner);
    expect(unknown.status).toBe(404);
    // The id is said back whole: its digit groups are no card number.
    expect(unknown.body.error).toContain('1c47dece-489b-4521-89db-000000000000');
    expect((await h.api.get('/api/onboarding/v1/applications/search/nobody', partner)).status).toBe(404);
  });

  it('answers 409 for a reference_token already used', async () => {
    const { reference } = await create();
    const again = await h.api.post<Details>('/api/onboarding/v1/applications', application({ reference_token: reference }), partner);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('application_exists');
  });

  it('names every invalid field in one 400', async () => {
    const res = await h.api.post<Details>(
      '/api/onboarding/v1/applications',
      application({
        naics_code: '72251',
        business_phone: '1-503-685-4116',
        business_email: 'not an email',
        business_website: 'acme dot example',
        ownership_type: 'Limited Liability Company',
        business_type: 'Bakery',
        control_prong: 'Owner 5',
        reference_token: 'x'.repeat(37),
        business_legal_name: undefined,
      }),
      partner,
    );
    expect(res.status).toBe(400);
    expect(fieldsOf(res.body)).toEqual(
      ['business_email', 'business_legal_name', 'business_phone', 'business_type', 'business_website', 'control_prong', 'naics_code', 'ownership_type', 'reference_token'].sort(),
    );
  });

  it('requires every required field', async () => {
    const res = await h.api.post<Details>('/api/onboarding/v1/applications', {}, partner);
    expect(res.status).toBe(400);
    expect(fieldsOf(res.body)).toEqual(
      [
        'business_legal_name', 'business_dba_name', 'Business', 'Business Physical Address', 'Business Billing Address', 'ownership_type',
        'business_type', 'naics_code', 'business_phone', 'business_email', 'business_website', 'business_established_date', 'annual_card_volume',
        'annual_direct_debit_volume', 'average_ticket_amount', 'high_ticket_amount', 'american_express_service_establishment', 'primary_contact',
        'control_prong', 'deposit_account', 'reference_token', 'sells_prohibited_products', 'agrees_terms_and_conditions', 'terms_and_conditions',
      ].sort(),
    );
  });

  it('answers the reference\'s ApplicationErrorResponse: address and tax id errors under their holder, the rest by field, with our code', async () => {
    const res = await h.api.post<Details & { error: string }>(
      '/api/onboarding/v1/applications',
      application({
        business_billing_address: { ...address, city: '' },
        business_tax_id_number: { tin: '12-34' },
        business_owners: [{ ...owner, individual_tax_id_number: { itin: '12' } }, { ...owner, ownership_percentage: 30, home_address: { ...address, post_code: undefined } }],
        primary_contact: { name: person, phone: '503-685-4116', email: 'nope' },
      }),
      partner,
    );
    expect(res.status).toBe(400);
    expect(res.body.address_errors!.map((e) => e.field).sort()).toEqual(['Business Billing Address', 'Owner 2']);
    expect(res.body.address_errors!.find((e) => e.field === 'Owner 2')!.error_message).toContain('post_code');
    expect(res.body.tax_id_errors!.map((e) => e.field).sort()).toEqual(['Business', 'Owner 1']);
    expect(res.body.field_errors).toEqual([{ field: 'primary_contact.email', error_message: expect.stringContaining('email') }]);
    expect(res.body).toMatchObject({ code: 'validation_failed', error: expect.any(String) });
    // A body that is not JSON is the body's error, in the same shape.
    const raw = await h.api.request<Details>('POST', '/api/onboarding/v1/applications', { raw: '{', auth: partner });
    expect(raw.status).toBe(400);
    expect(fieldsOf(raw.body)).toEqual(['body']);
    // Other failures keep our common shape.
    const missing = await h.api.get<Details>('/api/onboarding/v1/applications/search/nobody', partner);
    expect(missing.status).toBe(404);
    expect(missing.body.field_errors).toBeUndefined();
  });

  it('applies the conditional rules: ticker for a Public Corporation (10 at most), the non-owner prong, 4 owners at most, enough owners for the prong', async () => {
    const post = (over: Record<string, unknown>) => h.api.post<Details>('/api/onboarding/v1/applications', application(over), partner);
    expect(fieldsOf((await post({ ownership_type: 'Public Corporation' })).body)).toEqual(['stock_ticker_symbol']);
    expect(fieldsOf((await post({ ownership_type: 'Public Corporation', stock_ticker_symbol: 'ABCDEFGHIJK' })).body)).toEqual(['stock_ticker_symbol']);
    expect((await post({ ownership_type: 'Public Corporation', stock_ticker_symbol: 'ACME' })).status).toBe(201);
    expect(fieldsOf((await post({ control_prong: 'Non-Owner' })).body)).toEqual(['non_business_owner_control_prong']);
    const nonOwner = { name: person, individual_tax_id_number: { itin: '325981975' }, birth_date: '1980-02-02', home_address: address, home_phone: '503-685-4117', email: 'bob@example.com' };
    expect((await post({ control_prong: 'Non-Owner', non_business_owner_control_prong: nonOwner })).status).toBe(201);
    expect(fieldsOf((await post({ business_owners: [owner, owner, owner, owner, owner] })).body)).toEqual(['business_owners']);
    expect(fieldsOf((await post({ control_prong: 'Owner 2' })).body)).toEqual(['business_owners']);
    expect((await post({ control_prong: 'Owner 2', business_owners: [owner, { ...owner, ownership_percentage: 40 }] })).status).toBe(201);
  });

  it('link_to_existing must name an application submitted earlier', async () => {
    const bad = await h.api.post<Details>('/api/onboarding/v1/applications', application({ link_to_existing: 'no-such-reference' }), partner);
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad.body)).toEqual(['link_to_existing']);
    const first = await create();
    expect((await h.api.post('/api/onboarding/v1/applications', application({ link_to_existing: first.reference }), partner)).status).toBe(201);
  });

  it('keeps no tax id or deposit account number in clear', async () => {
    await create({ deposit_account: { routing_number: '021100361', account_number: '55512345678' }, business_tax_id_number: { tin: '12-3456789' } });
    const stored = JSON.stringify(await h.t.engine.core.find('records', { selector: { kind: 'application' } }));
    expect(stored).toContain('5678');
    expect(stored).not.toContain('55512345678');
    expect(stored).not.toContain('3456789');
    expect(stored).not.toContain('325-98-1975');
  });
});

describe('onboarding: steps and review', () => {
  it('validates steps: reference token of 36 at most, message of 255 at most, a step number', async () => {
    const res = await h.api.post<Details>('/api/onboarding/v1/application_steps', { reference_token: 'r'.repeat(37), step_number: 'one', message: 'm'.repeat(256) }, partner);
    expect(res.status).toBe(400);
    expect(fieldsOf(res.body)).toEqual(['message', 'reference_token', 'step_number']);
    expect((await h.api.post<Details>('/api/onboarding/v1/application_steps', {}, partner)).status).toBe(400);
    expect((await step('not-created-yet', 1)).status).toBe(201);
    const early = await step('not-created-yet', 99);
    expect(early.status).toBe(400);
  });

  it('Received → Processing (step 99) → Approved, whose credentials call whoami at once and nothing else', async () => {
    const { token, reference } = await create();
    expect((await step(reference, 1)).status).toBe(201);
    expect((await status(token)).body.application_status).toBe('Received');
    expect((await step(reference, 99, 'Application submitted')).status).toBe(201);
    expect((await status(token)).body.application_status).toBe('Processing');
    await h.t.engine.tick();
    expect((await status(token)).body.application_status).toBe('Processing');
    await review();
    const approved = await status(token);
    expect(approved.body.application_status).toBe('Approved');
    const creds = approved.body.api_credentials!;
    expect(creds.api_key).toEqual(expect.any(String));
    // The key is delivered once; only its hash is kept afterwards.
    expect((await status(token)).body.api_credentials).toEqual({ api_token: creds.api_token, api_key: null });
    expect(JSON.stringify(await h.t.engine.core.find('records', { selector: { kind: 'application' } }))).not.toContain(creds.api_key!);

    const auth = basicAuth(creds.api_token, creds.api_key!);
    const who = await h.api.get<{ whoami: Record<string, { name: string; token: string; divisions: unknown[] }> }>('/api/whoami', auth);
    expect(who.status).toBe(200);
    const entry = who.body.whoami[creds.api_token]!;
    expect(entry.name).toBe('Acme Coffee');
    expect(entry.token).not.toBe(h.t.engine.account.profile().token);
    // The install's own data is not the merchant's.
    const refused = await h.api.get<{ code: string }>('/api/exports/customers', auth);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('account_not_hosted');
    expect((await h.api.get('/api/onboarding/v1/terms', auth)).status).toBe(403);

    // The account owner sees the credential by kind, and can disable it.
    const listed = await h.api.get<{ credentials: Array<{ token: string; kind?: string }> }>('/api/account/credentials');
    expect(listed.body.credentials.find((c) => c.token === creds.api_token)?.kind).toBe('merchant');
    expect(listed.body.credentials.filter((c) => c.kind === 'partner')).toHaveLength(1);
    await h.api.post(`/api/account/credentials/${creds.api_token}/disable`);
    expect((await h.api.get('/api/whoami', auth)).status).toBe(401);
  });

  it("a partner sees only its own applications: another partner's status, search and steps are refused, and the merchant key stays its own", async () => {
    const { token, reference } = await create();
    const made = await h.t.engine.account.credentials.create({ name: 'Other partner', kind: 'partner' });
    const other = basicAuth(made.token, made.key);
    expect((await h.api.get<{ code: string }>(`/api/onboarding/v1/applications/${token}`, other)).status).toBe(404);
    expect((await h.api.get(`/api/onboarding/v1/applications/search/${reference}`, other)).status).toBe(404);
    const foreignStep = await h.api.post<{ code: string }>('/api/onboarding/v1/application_steps', { reference_token: reference, step_number: 99, message: 'Submitted by someone else' }, other);
    expect(foreignStep.status).toBe(400);
    expect((await status(token)).body.application_status).toBe('Received');
    expect((await h.api.post('/api/onboarding/v1/applications', application({ link_to_existing: reference }), other)).status).toBe(400);
    expect((await step(reference, 99)).status).toBe(201);
    await review();
    expect((await h.api.get(`/api/onboarding/v1/applications/${token}`, other)).status).toBe(404);
    expect((await status(token)).body.api_credentials?.api_key).toEqual(expect.any(String));
  });

  it('the merchant credentials survive a restart', async () => {
    const { token, reference } = await create();
    await step(reference, 99);
    await review();
    const creds = (await status(token)).body.api_credentials!;
    await h.restart();
    expect((await h.api.get('/api/whoami', basicAuth(creds.api_token, creds.api_key!))).status).toBe(200);
  });

  it('a repeated step 99 changes nothing; declines (Closed, with our status_reason) by the sandbox test values; 88-8888888 goes On Hold', async () => {
    const declined = await create({ business_tax_id_number: { tin: '99-9999999' } });
    const prohibited = await create({ sells_prohibited_products: true });
    const manual = await create({ business_tax_id_number: { tin: '888888888' } });
    for (const a of [declined, prohibited, manual]) expect((await step(a.reference, 99)).status).toBe(201);
    await review();
    expect((await step(declined.reference, 99)).status).toBe(201);
    const d = (await status(declined.token)).body;
    expect(d).toMatchObject({ application_status: 'Closed', status_reason: expect.stringContaining('tax ID') });
    expect(d.api_credentials).toBeUndefined();
    expect((await status(prohibited.token)).body).toMatchObject({ application_status: 'Closed', status_reason: expect.stringContaining('prohibited') });
    expect((await status(manual.token)).body).toMatchObject({ application_status: 'On Hold', status_reason: expect.stringContaining('manual review') });
    await review();
    expect((await status(manual.token)).body.application_status).toBe('On Hold');
  });

  it('412 when onboarding is turned off for the account', async () => {
    await h.api.patch('/api/account', { capabilities: { onboarding: false } });
    const res = await h.api.post<Details>('/api/onboarding/v1/applications', application(), partner);
    expect(res.status).toBe(412);
    expect(res.body.code).toBe('capability_disabled');
  });
});
