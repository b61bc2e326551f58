import { describe, expect, it } from 'vitest';
import { useHarness } from '../helpers/harness';
import { MASTERCARD, VISA } from '../helpers/cards';
import { filesHolding } from '../helpers/data-folder';
import { settled, upload } from '../imports/upload';

/**
 * Card numbers that arrive where nobody expects them (a JSON number in a note, a path, a CSV
 * file's name or free-text cells) rest nowhere in clear and never come back in an answer.
 */
const h = useHarness({ api: true });
const DISCOVER = '6011000990911111';
const AMEX = '341111597242000';

const raw = async (method: string, path: string, body?: string) => {
  const res = await fetch(`${h.api.url}${path}`, {
    method,
    headers: { Authorization: `Basic ${Buffer.from('TESTTOKEN0001:test-key-0123456789abcdef').toString('base64')}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body } : {}),
  });
  return { status: res.status, text: await res.text() };
};

describe('card numbers where free text goes', () => {
  it('masks a card number sent as a JSON number in a text field, as it masks one sent as text', async () => {
    const made = await raw('POST', '/api/imports/customer', `{"identifier":"C-NUM","name":${DISCOVER},"notes":${DISCOVER}}`);
    expect(made.status).toBe(201);
    const seen = await h.api.get<{ name: string; notes: string }>('/api/exports/customer/C-NUM');
    expect([seen.body.name, seen.body.notes]).toEqual(['601100******1111', '601100******1111']);
    const line = await raw('POST', '/api/imports/invoice', `{"number":"I-NUM","customer_identifier":"C-NUM","amount":100,"line_items":[{"description":${DISCOVER},"amount":100}]}`);
    expect(line.status).toBe(201);
    // A number field sent a card number is refused (a gateway operation error), and the refusal does not repeat it.
    const amount = await raw('POST', '/api/gateway/v1/orders/sale', `{"amount_cents":${DISCOVER},"credit_card":{"card_number":"${VISA}","cvv":"123","expiry_month":"12","expiry_year":2030,"name":"x"}}`);
    expect(amount.status).toBe(500);
    expect(amount.text).not.toContain(DISCOVER);
    await new Promise((r) => setTimeout(r, 200));
    expect(filesHolding(h.t.dir, DISCOVER)).toEqual([]);
  });

  it('masks a card number sent as a JSON number in a free-form attribute, and leaves a time in milliseconds a number', async () => {
    const made = await raw('POST', '/api/imports/customer', `{"identifier":"C-ATTR","name":"Attr","card_on_file":${VISA},"last_seen_ms":1772463600000}`);
    expect(made.status).toBe(201);
    const seen = await h.api.get<{ attributes_marshal: Record<string, unknown> }>('/api/exports/customer/C-ATTR');
    // 1772463600000 passes the Luhn check too: a 13-digit number is a time far more often than a card.
    expect(seen.body.attributes_marshal).toMatchObject({ card_on_file: '489528******0006', last_seen_ms: 1772463600000 });
  });

  it("masks a card number used as a free-form attribute's name, in a JSON body and as a CSV column", async () => {
    const made = await raw('POST', '/api/imports/customer', `{"identifier":"C-KEY","name":"Key","${AMEX}":"on file","nested":{"${DISCOVER}":1}}`);
    expect(made.status).toBe(201);
    const seen = await raw('GET', '/api/exports/customer/C-KEY');
    expect(seen.text).not.toContain(AMEX);
    expect(seen.text).not.toContain(DISCOVER);
    expect(JSON.parse(seen.text).attributes_marshal).toMatchObject({ '341111*****2000': 'on file', nested: { '601100******1111': 1 } });

    const csv = `identifier,name,${MASTERCARD}\nC-KEY2,Bob,x\n`;
    const batch = await settled(h.api, (await upload(h.api.url, csv, { force: true, filename: 'customers.csv' })).body.id);
    expect(batch.result_message).toBe('1 customer');
    const seen2 = await raw('GET', '/api/exports/customer/C-KEY2');
    expect(seen2.text).not.toContain(MASTERCARD);
    expect(JSON.parse(seen2.text).attributes_marshal).toMatchObject({ '554103******4422': 'x' });
    await new Promise((r) => setTimeout(r, 200));
    for (const pan of [AMEX, DISCOVER, MASTERCARD]) expect(filesHolding(h.t.dir, pan), pan).toEqual([]);
  });

  it('never repeats a card number sent in a path or a field in an error', async () => {
    for (const path of [`/api/exports/customer/${AMEX}`, `/api/exports/invoice/${AMEX}`, `/api/gateway/v1/orders/${AMEX}`, `/api/exports/payment/${AMEX}`]) {
      const res = await raw('GET', path);
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.text, path).not.toContain(AMEX);
    }
    const ecommerce = await raw('GET', `/api/v2/sessions/${AMEX}`);
    expect(ecommerce.text).not.toContain(AMEX);
  });

  it("masks card numbers in a CSV file's name, media type and free-text cells; a card number as a customer is refused", async () => {
    const header = 'customer_identifier,name,first_name,last_name,number,expiry,postal_code,create_debit_agreement,auto_debit_reference';
    const csv = `${header}\nC-CSV1,John ${MASTERCARD},John,Doe,${VISA},1230,H0H 0H0,N,ref ${MASTERCARD}\n${MASTERCARD},John Doe,John,Doe,${VISA},1230,H0H 0H0,N,\n`;
    const up = await upload(h.api.url, csv, { force: true, filename: `cards-${MASTERCARD}.csv`, type: `text/${MASTERCARD}` });
    expect(up.status).toBe(201);
    expect(up.body.file_name).toBe('cards-554103******4422.csv');
    // The part's media type is the client's text too, kept and answered with the batch.
    expect(up.body.file_content_type).toBe('text/554103******4422');
    const batch = await settled(h.api, up.body.id);
    expect(batch.result_message).toBe('1 credit card');
    const errors = await h.api.get<{ message: Array<{ line_number: number; field: string }> }>(`/api/imports/${batch.id}/errors`);
    expect(errors.body.message.map((e) => e.line_number)).toEqual([3]);
    const echo = await h.api.get<string>(`/api/imports/${batch.id}/echo`);
    expect(echo.body).toContain('John 554103******4422');
    expect(echo.body).not.toContain(MASTERCARD);

    const customers = `identifier,name,notes\nC-CSV2,Bob,card ${MASTERCARD} on file\n`;
    const b2 = await settled(h.api, (await upload(h.api.url, customers, { force: true, filename: 'customers.csv' })).body.id);
    expect(b2.result_message).toBe('1 customer');
    expect((await h.api.get<{ notes: string }>('/api/exports/customer/C-CSV2')).body.notes).toBe('card 554103******4422 on file');
    await new Promise((r) => setTimeout(r, 200));
    expect(filesHolding(h.t.dir, MASTERCARD)).toEqual([]);
  });
});

describe('card numbers sent as ids or tokens', () => {
  it("masks an imported card's gateway_token that is, whole, a card number; a real token stays", async () => {
    const w = await h.api.post<{ fund_token: string; wallets: Array<{ credit_cards: Array<{ gateway_token: string }> }> }>('/api/gateway/v1/wallets', {
      customer: { identifier: 'C-GT', name: 'Gail' },
      credit_card: { gateway_token: '6011 1111 1111 1117', brand: 'discover', last_4_digits: '1117', expiry_month: 12, expiry_year: 2031, name: 'Gail' },
    });
    expect(w.status, JSON.stringify(w.body)).toBe(200);
    expect(JSON.stringify(w.body)).not.toMatch(/6011\s?1111\s?1111\s?1117/);
    // An opaque token from another vault, digits inside it included, is kept as sent.
    const kept = await h.api.post<{ wallets: Array<{ credit_cards: Array<{ gateway_token: string }> }> }>('/api/gateway/v1/wallets', {
      customer: { identifier: 'C-GT2', name: 'Gus' },
      credit_card: { gateway_token: 'tok_6011111111111117x', brand: 'discover', last_4_digits: '1117', expiry_month: 12, expiry_year: 2031, name: 'Gus' },
    });
    expect(kept.status).toBe(200);
    expect(JSON.stringify(kept.body)).toContain('tok_6011111111111117x');
    await new Promise((r) => setTimeout(r, 200));
    expect(filesHolding(h.t.dir, '6011 1111 1111 1117')).toEqual([]);
  });
});

describe('card data in free-form attributes, whatever their names', () => {
  // Luhn-valid numbers a probe stored in clear under names the edge leaves alone (they carry a card on purpose elsewhere).
  const PANS = ['4111110000000013', '4111110000000021', '4111110000000039', '4111110000000062'];

  it('masks a card number under card_number, token, key or account_number and blanks a CVV or PIN, in customers, orders and a CSV file', async () => {
    const customer = await raw('POST', '/api/imports/customer', JSON.stringify({ identifier: 'C-FF1', name: 'Gina', card_number: VISA, cvv: '9731', custom: { token: PANS[0], pin: '4321', key: PANS[2], account_number: PANS[3] } }));
    expect(customer.status).toBe(201);
    expect(customer.text).not.toContain(VISA);
    const seen = await h.api.get<{ attributes_marshal: Record<string, unknown> }>('/api/exports/customer/C-FF1');
    expect(seen.body.attributes_marshal).toEqual({ card_number: '489528******0006', cvv: '****', custom: { token: '411111******0013', pin: '****', key: '411111******0039', account_number: '411111******0062' } });

    const order = await raw('POST', '/api/imports/order', JSON.stringify({ identifier: 'O-FF1', customer_identifier: 'C-FF1', amount_cents: 1000, card_number: MASTERCARD, cvv: 9732, attributes: { card_number: DISCOVER }, order_items: [{ description: 'Mug', amount_cents: 1000, CVV2: '123', track2: `;${AMEX}=2512?` }] }));
    expect(order.status).toBe(201);
    for (const pan of [MASTERCARD, DISCOVER, AMEX, '9732']) expect(order.text, pan).not.toContain(pan);
    const exported = await raw('GET', '/api/exports/order/O-FF1');
    for (const pan of [MASTERCARD, DISCOVER, AMEX, '9732']) expect(exported.text, pan).not.toContain(pan);
    expect(JSON.parse(exported.text)).toMatchObject({ card_number: '554103******4422', cvv: '****', attributes: { card_number: '601100******1111' } });

    const csv = `identifier,name,card_number,cvv\nC-FF2,Hal,${PANS[1]},8642\n`;
    const batch = await settled(h.api, (await upload(h.api.url, csv, { force: true, filename: 'customers.csv' })).body.id);
    expect(batch.result_message).toBe('1 customer');
    expect((await h.api.get<{ attributes_marshal: Record<string, unknown> }>('/api/exports/customer/C-FF2')).body.attributes_marshal).toEqual({ card_number: '411111******0021', cvv: '****' });
    await new Promise((r) => setTimeout(r, 200));
    for (const secret of [VISA, MASTERCARD, DISCOVER, AMEX, ...PANS, '"9731"', '"8642"', ':9732']) expect(filesHolding(h.t.dir, secret), secret).toEqual([]);
  });

  it('blanks a CVV or PIN under the longer names a form gives them, and leaves counts and other numbers alone', async () => {
    const body = { identifier: 'C-FF3', name: 'Ida', card_cvv: '9182', cvv_code: '9183', card: { cvv: '9185', verification: '9187', verification_status: 'done' }, pin_code: '9188', card_pin: '9189', pinNumber: 91901, cardSecurityCode: '9191', pin_failures: 2, shipping_zone: '9192', verification_code: '9193' };
    expect((await raw('POST', '/api/imports/customer', JSON.stringify(body))).status).toBe(201);
    const seen = await h.api.get<{ attributes_marshal: Record<string, unknown> }>('/api/exports/customer/C-FF3');
    expect(seen.body.attributes_marshal).toEqual({
      card_cvv: '****', cvv_code: '****', card: { cvv: '****', verification: '****', verification_status: 'done' }, pin_code: '****', card_pin: '****', pinNumber: '*****', cardSecurityCode: '****', pin_failures: 2, shipping_zone: '9192', verification_code: '****',
    });
    await new Promise((r) => setTimeout(r, 200));
    for (const secret of ['"9182"', '"9183"', '"9185"', '"9187"', '"9188"', '"9189"', ':91901', '"9191"', '"9193"']) expect(filesHolding(h.t.dir, secret), secret).toEqual([]);
  });

  it('masks a card number grouped by colons, commas, asterisks, invisible spaces or other signs, or written in Arabic-Indic digits; a date and time stays', async () => {
    const signs = ['+', '|', '~', '=', ';', '#', '\u00b7'].map((sign, i) => ['4111', '1100', '0000', ['0120', '0138', '0146', '0153', '0161', '0179', '0187'][i]].join(sign));
    const notes = ['4111,1100,0000,0070', '4111*1100*0000*0112', '4111\u200b1100\u200b0000\u200b0096', '\u0664\u0661\u0661\u0661\u0661\u0661\u0660\u0660\u0660\u0660\u0660\u0660\u0660\u0661\u0660\u0664', ...signs, 'paid 2026-11-27 14:05:33'];
    const made = await raw('POST', '/api/imports/customer', JSON.stringify({ identifier: 'C-SEP', name: 'Sep', notes: notes.join(' | ') }));
    expect(made.status).toBe(201);
    const seen = await h.api.get<{ notes: string }>('/api/exports/customer/C-SEP');
    const masked = ['0070', '0112', '0096', '0104', '0120', '0138', '0146', '0153', '0161', '0179', '0187'].map((last) => `411111******${last}`);
    expect(seen.body.notes).toBe([...masked, 'paid 2026-11-27 14:05:33'].join(' | '));
    // Colon-joined card groups too; a date and time in two-digit groups (these digits pass Luhn) stays.
    const colons = await raw('POST', '/api/imports/customer', JSON.stringify({ identifier: 'C-COLON', name: 'Colon', notes: 'card 4111:1100:0000:0203 / amex 3411:115972:42000 / at 1999:12:31:23:59:52' }));
    expect(colons.status).toBe(201);
    expect((await h.api.get<{ notes: string }>('/api/exports/customer/C-COLON')).body.notes).toBe('card 411111******0203 / amex 341111*****2000 / at 1999:12:31:23:59:52');
  });
});

describe('text that is not Unicode', () => {
  it('refuses a lone surrogate escape or a NUL anywhere in a body, and writes nothing; an emoji is fine', async () => {
    for (const body of ['{"identifier":"C-U1","name":"a\\ud800b"}', '{"identifier":"C-U1","name":"x","notes":"\\udfff"}', '{"identifier":"C-U1","name":"a\\u0000b"}', '{"identifier":"C-U1","name":"x","contacts":[{"email":"a@b.test","\\ud800":1}]}']) {
      const res = await raw('POST', '/api/imports/customer', body);
      expect(res.status, body).toBe(412);
      expect(JSON.parse(res.text).code).toBe('invalid_text');
    }
    expect((await raw('GET', '/api/exports/customer/C-U1')).status).toBe(404);
    expect((await raw('PATCH', '/api/account', '{"name":"Shop \\ud800"}')).status).toBe(400);
    expect((await raw('POST', '/api/imports/customer', '{"identifier":"C-U2","name":"Café \\ud83d\\ude00"}')).status).toBe(201);
    expect(JSON.parse((await raw('GET', '/api/exports/customer/C-U2')).text).name).toBe('Café 😀');
  });
});
