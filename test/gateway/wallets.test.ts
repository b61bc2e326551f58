import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ACH, AMEX, MASTERCARD, VISA, card, op, startGateway, type GatewayError, type Harness } from '../helpers/gateway';
import { getRecord, putRecord, recordId } from '../../src/engine/records';
import { GIFT_CARD, GIFT_CARD_COPY, type GiftCardData } from '../../src/engine/wallets/gift-cards';

let h: Harness;
beforeEach(async () => {
  h = await startGateway();
});
afterEach(async () => {
  await h.close();
});

type WalletView = {
  token: string;
  credit_cards: Array<Record<string, unknown> & { token: string }>;
  bank_accounts: Array<Record<string, unknown> & { token: string }>;
  customers: Array<{ identifier: string; contacts: Array<{ email: string }> }>;
};
type WalletResult = { wallet_token: string; fund_token: string | null; wallets: WalletView[] };
type WalletError = { wallet_token: null; fund_token: null; wallets: { error: string }; error: string; code: string };

describe('wallets', () => {
  it('creates an empty wallet, and one with a card for a customer and contact', async () => {
    const empty = await h.api.post<WalletResult>('/api/gateway/v1/wallets', {});
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ fund_token: null, wallets: [{ credit_cards: [], bank_accounts: [] }] });
    expect(empty.body.wallets[0]!.token).toBe(empty.body.wallet_token);

    const res = await h.api.post<WalletResult>('/api/gateway/v1/wallets', {
      customer: { identifier: 'C1234', name: 'Starblux' },
      contact: { email: 'Frank@Smith.com', first_name: 'Frank', last_name: 'Smith' },
      credit_card: card(MASTERCARD, { expiry_month: 8, expiry_year: 2031 }),
    });
    expect(res.status).toBe(200);
    const cc = res.body.wallets[0]!.credit_cards[0]!;
    expect(cc).toMatchObject({ token: res.body.fund_token, card_number: 'Mastercard **4422', brand: 'master', expiry_month: 8, expiry_year: 2031, bin: '554103', last_4_digits: '4422', locked: false });
    expect(res.body.wallets[0]!.customers).toEqual([{ identifier: 'C1234', name: 'Starblux', contacts: [{ email: 'Frank@Smith.com' }] }]);
    expect(JSON.stringify(res.body)).not.toContain(MASTERCARD);

    const view = await h.api.get<{ wallets: WalletView[] }>(`/api/gateway/v1/wallets/${res.body.wallet_token}`);
    expect(view.body.wallets[0]!.credit_cards.map((c) => c.token)).toEqual([res.body.fund_token]);
    // A wallet's fund pays by token.
    const sale = await op(h.api, 'sale', { amount_cents: 500, fund_token: res.body.fund_token });
    expect(sale.body.success).toBe(true);
    const after = await h.api.get<{ wallets: WalletView[] }>(`/api/gateway/v1/wallets/${res.body.wallet_token}`);
    expect(after.body.wallets[0]!.credit_cards[0]).toMatchObject({ last_transaction: sale.body.transaction });
  });

  it('searches by email, customer, fund and vault token', async () => {
    expect((await h.api.post('/api/imports/customer', { identifier: 'C9', name: 'Nine Ltd' })).status).toBe(201);
    const res = await h.api.post<WalletResult>('/api/gateway/v1/wallets', { customer: 'C9', contact: { email: 'pay@shop.test' }, bank_account: ACH });
    const fund = res.body.wallets[0]!.bank_accounts[0]!;
    expect(fund).toMatchObject({ account_number: ' (0016)', routing_number: '122105278', account_type: 'checking' });
    const searches: Array<[string, string]> = [
      ['email', 'PAY@shop.test'],
      ['customer', 'C9'],
      ['fund', res.body.fund_token!],
      ['vault', fund.gateway_token as string],
    ];
    for (const [type, locator] of searches) {
      const found = await h.api.get<{ wallets: WalletView[] }>(`/api/gateway/v1/wallets/search?type=${type}&locator=${encodeURIComponent(locator)}`);
      expect(found.status, type).toBe(200);
      expect(found.body.wallets.map((w) => w.token), type).toEqual([res.body.wallet_token]);
    }
    const none = await h.api.get<{ wallets: WalletView[] }>('/api/gateway/v1/wallets/search?type=email&locator=nobody@x.test');
    expect(none.body.wallets).toEqual([]);
    const badType = await h.api.get('/api/gateway/v1/wallets/search?type=phone&locator=1');
    expect(badType.status).toBe(412);
  });

  it('adds, updates (lock, expiry) and removes payment methods', async () => {
    const w = await h.api.post<WalletResult>('/api/gateway/v1/wallets', { credit_card: card() });
    const added = await h.api.post<WalletResult>(`/api/gateway/v1/wallets/${w.body.wallet_token}/methods`, { credit_card: card(AMEX, { cvv: '6789' }) });
    expect(added.body.wallets[0]!.credit_cards).toHaveLength(2);
    // The same card again answers its existing fund.
    const same = await h.api.post<WalletResult>(`/api/gateway/v1/wallets/${w.body.wallet_token}/methods`, { credit_card: card(AMEX, { cvv: '6789' }) });
    expect(same.body.fund_token).toBe(added.body.fund_token);

    const locked = await h.api.patch<{ fund_token: string }>(`/api/gateway/v1/wallets/${w.body.wallet_token}/methods/${added.body.fund_token}`, { credit_card: { locked: true, nickname: 'Corporate', expiry_month: 9, expiry_year: 2032 } });
    expect(locked.status).toBe(200);
    const denied = await op<GatewayError>(h.api, 'sale', { amount_cents: 100, fund_token: added.body.fund_token });
    expect(denied.body.errors).toEqual(['fund_protected']);
    const view = await h.api.get<{ wallets: WalletView[] }>(`/api/gateway/v1/wallets/${w.body.wallet_token}`);
    expect(view.body.wallets[0]!.credit_cards.find((c) => c.token === added.body.fund_token)).toMatchObject({ locked: true, nickname: 'Corporate', expiry_month: 9, expiry_year: 2032 });
    const pastExpiry = await h.api.patch<{ code: string }>(`/api/gateway/v1/wallets/${w.body.wallet_token}/methods/${added.body.fund_token}`, { credit_card: { expiry_year: 2020 } });
    expect(pastExpiry.body.code).toBe('card_expired');

    const removed = await h.api.delete<{ fund_token: string }>(`/api/gateway/v1/wallets/${w.body.wallet_token}/methods/${w.body.fund_token}`, {});
    expect(removed.body).toEqual({ fund_token: w.body.fund_token });
    const gone = await op<GatewayError>(h.api, 'sale', { amount_cents: 100, fund_token: w.body.fund_token });
    expect(gone.body.errors).toEqual(['payment_method_inactive']);
    // The reference's 412 for a method: the code in `error` (a client switches on it), the sentence in `message`.
    const twice = await h.api.delete<{ error: string; code: string; message: string }>(`/api/gateway/v1/wallets/${w.body.wallet_token}/methods/${w.body.fund_token}`);
    expect(twice.status).toBe(412);
    expect(twice.body).toMatchObject({ error: 'payment_method_inactive', code: 'payment_method_inactive', message: expect.stringContaining('removed') });
    const unknown = await h.api.delete<{ error: string; code: string }>(`/api/gateway/v1/wallets/${w.body.wallet_token}/methods/CCNOPE`);
    expect(unknown.body).toMatchObject({ error: 'payment_method_not_found', code: 'payment_method_not_found' });
    const patch = await h.api.patch<{ error: string }>(`/api/gateway/v1/wallets/${w.body.wallet_token}/methods/CCNOPE`, { nickname: 'x' });
    expect([patch.status, patch.body.error]).toEqual([412, 'payment_method_not_found']);
  });

  it("refuses a method imported by a vault token another wallet's method holds, or under another card's label", async () => {
    const owner = await h.api.post<WalletResult>('/api/gateway/v1/wallets', { customer: { identifier: 'C-OWN', name: 'Owner' }, credit_card: card(VISA) });
    const vaultToken = owner.body.wallets[0]!.credit_cards[0]!.gateway_token as string;
    const imported = (last4: string, brand: string) => ({ credit_card: { gateway_token: vaultToken, brand, last_4_digits: last4, expiry_month: 12, expiry_year: 2031, name: 'Mallory' } });
    // Another customer's wallet: the token names the owner's card.
    const other = await h.api.post<WalletError>('/api/gateway/v1/wallets', { customer: { identifier: 'C-OTHER', name: 'Other' }, ...imported('9999', 'master') });
    expect([other.status, other.body.code]).toEqual([412, 'gateway_token_in_use']);
    // The owner's wallet, after removing the card: not under another card's brand and last four.
    const wallet = owner.body.wallet_token;
    expect((await h.api.delete(`/api/gateway/v1/wallets/${wallet}/methods/${owner.body.fund_token}`, {})).status).toBe(200);
    const relabelled = await h.api.post<WalletError>(`/api/gateway/v1/wallets/${wallet}/methods`, imported('9999', 'master'));
    expect([relabelled.status, relabelled.body.code]).toEqual([412, 'card_mismatch']);
    const again = await h.api.post<WalletResult>(`/api/gateway/v1/wallets/${wallet}/methods`, imported(VISA.slice(-4), 'visa'));
    expect(again.status).toBe(200);
    // A token no wallet holds imports as before.
    const fresh = await h.api.post<WalletResult>('/api/gateway/v1/wallets', { customer: { identifier: 'C-NEW', name: 'New' }, credit_card: { gateway_token: 'tok_elsewhere_1', brand: 'visa', last_4_digits: '1111', expiry_month: 12, expiry_year: 2031, name: 'New' } });
    expect(fresh.status).toBe(200);
  });

  it('keeps the nickname, lock and default sent with a new card or account, one default per wallet', async () => {
    const settingsOf = (m: Record<string, unknown>) => ({ nickname: m.nickname, is_default: m.is_default, locked: m.locked, is_single_use: m.is_single_use });
    const created = await h.api.post<WalletResult>('/api/gateway/v1/wallets', {
      customer: { identifier: 'ERP-C4', name: 'Corp Four' },
      credit_card: card(MASTERCARD, { nickname: 'Corp MC', is_default: true, locked: true }),
    });
    expect(created.status).toBe(200);
    const wallet = created.body.wallet_token;
    const mc = created.body.fund_token!;
    expect(settingsOf(created.body.wallets[0]!.credit_cards[0]!)).toEqual({ nickname: 'Corp MC', is_default: true, locked: true, is_single_use: false });
    // Locked from the start: visible, but it cannot pay.
    expect((await op<GatewayError>(h.api, 'sale', { amount_cents: 100, fund_token: mc })).body.errors).toEqual(['fund_protected']);

    // An account added as the default takes the default from the card.
    const bank = await h.api.post<WalletResult>(`/api/gateway/v1/wallets/${wallet}/methods`, { bank_account: { ...ACH, nickname: 'Operating', is_default: true, is_single_use: true } });
    expect(bank.status).toBe(200);
    const viewed = async () => (await h.api.get<{ wallets: WalletView[] }>(`/api/gateway/v1/wallets/${wallet}`)).body.wallets[0]!;
    let w = await viewed();
    expect(settingsOf(w.bank_accounts[0]!)).toEqual({ nickname: 'Operating', is_default: true, locked: false, is_single_use: true });
    expect(w.credit_cards[0]).toMatchObject({ token: mc, nickname: 'Corp MC', is_default: false, locked: true });
    expect(settingsOf(bank.body.wallets[0]!.credit_cards[0]!)).toMatchObject({ is_default: false });

    // A card added with no settings has the defaults and leaves the default where it is.
    const visa = await h.api.post<WalletResult>(`/api/gateway/v1/wallets/${wallet}/methods`, { credit_card: card(VISA) });
    w = await viewed();
    expect(settingsOf(w.credit_cards.find((c) => c.token === visa.body.fund_token)!)).toEqual({ nickname: null, is_default: false, locked: false, is_single_use: false });
    expect(w.bank_accounts[0]).toMatchObject({ is_default: true });

    // PATCH is the same rule: the card made default, the account no longer is.
    expect((await h.api.patch(`/api/gateway/v1/wallets/${wallet}/methods/${mc}`, { credit_card: { is_default: true, locked: false } })).status).toBe(200);
    w = await viewed();
    expect(w.credit_cards.filter((c) => c.is_default).map((c) => c.token)).toEqual([mc]);
    expect(w.bank_accounts[0]).toMatchObject({ is_default: false, nickname: 'Operating' });

    // The same card sent again with settings answers its fund with them.
    const again = await h.api.post<WalletResult>('/api/gateway/v1/wallets', { wallet, credit_card: card(VISA, { nickname: 'Spare', is_default: true }) });
    expect(again.body.fund_token).toBe(visa.body.fund_token);
    w = again.body.wallets[0]!;
    expect(w.credit_cards.map((c) => [c.token, c.nickname, c.is_default])).toEqual([
      [mc, 'Corp MC', false],
      [visa.body.fund_token, 'Spare', true],
    ]);
    expect(w.bank_accounts[0]).toMatchObject({ is_default: false });
  });

  it("answers a card's address with the names of the reference's wallet examples (docs/compatibility.md, item 10)", async () => {
    const res = await h.api.post<WalletResult>('/api/gateway/v1/wallets', { credit_card: card(VISA) });
    expect(res.body.wallets[0]!.credit_cards[0]!.address).toEqual({ address_1: '456 My Street', address_2: null, city: 'Ottawa', state: 'ON', province: 'ON', country: 'CAN', zip: 'K1C2N6', postal_code: 'K1C2N6' });
  });

  it('answers the reference\'s 412 wallet errors', async () => {
    const cases: Array<[unknown, string]> = [
      [{ credit_card: card(VISA, { name: undefined }) }, 'name_unspecified'],
      [{ credit_card: card(VISA, { address: undefined }) }, 'fund_address_unspecified'],
      [{ credit_card: card(VISA, { cvv: undefined }) }, "Validation failed: CVV can't be blank, CVV should be a number, CVV too short (minimum is 3 characters), CVV should be 3 digits"],
      [{ credit_card: card(VISA, { cvv: '12345' }) }, 'Validation failed: CVV too long (maximum is 4 characters), CVV should be 3 digits'],
      [{ credit_card: card('4111111111111111') }, 'card_unknown_to_sandbox'],
      [{ credit_card: card('4895281000000007') }, 'invalid_card_number'],
      [{ credit_card: card(VISA, { expiry_year: 2020 }) }, 'card_expired'],
      [{ bank_account: { ...ACH, routing_number: '122105279' } }, 'invalid_routing_number'],
      [{ bank_account: { ...ACH, account_number: '1234567' } }, 'account_unknown_to_sandbox'],
      [{ wallet: 'NOPE', credit_card: card() }, 'wallet_not_found'],
    ];
    for (const [body, code] of cases) {
      const res = await h.api.post<WalletError>('/api/gateway/v1/wallets', body);
      expect(res.status, code).toBe(412);
      expect(res.body, code).toMatchObject({ wallet_token: null, fund_token: null, wallets: { error: code }, code });
      expect(res.body.error).not.toContain('4111111111111111');
    }
    expect((await h.api.get<WalletError>('/api/gateway/v1/wallets/NOPE')).body.wallets.error).toBe('wallet_not_found');
  });

  it('exports wallets by watermark, and those updated in the past 7 days', async () => {
    for (const identifier of ['A', 'B']) expect((await h.api.post('/api/imports/customer', { identifier, name: `Customer ${identifier}` })).status).toBe(201);
    const a = await h.api.post<WalletResult>('/api/gateway/v1/wallets', { customer: 'A' });
    h.t.clock.advanceDays(10);
    const b = await h.api.post<WalletResult>('/api/gateway/v1/wallets', { customer: 'B' });
    const all = await h.api.get<{ wallets: Record<string, WalletView & { watermark: number }> }>('/api/exports/wallets');
    expect(Object.values(all.body.wallets).map((w) => w.token)).toEqual([a.body.wallet_token, b.body.wallet_token]);
    const recent = await h.api.get<{ wallets: Array<WalletView & { watermark: number }> }>('/api/exports/wallets/recent?list=true');
    expect(recent.body.wallets.map((w) => w.token)).toEqual([b.body.wallet_token]);
    // Adding a method to the old wallet makes it recent again.
    await h.api.post(`/api/gateway/v1/wallets/${a.body.wallet_token}/methods`, { credit_card: card() });
    const again = await h.api.get<{ wallets: Array<WalletView & { watermark: number }> }>(`/api/exports/wallets/recent?list=true&watermark=${recent.body.wallets[0]!.watermark}`);
    expect(again.body.wallets.map((w) => w.token)).toEqual([a.body.wallet_token]);
  });
});

describe('gift cards', () => {
  const GC = { card_number: '4775419990420272', expiry_month: '12', expiry_year: '2049', pin: '1234' };

  it('activates, loads, reads, pays, and declines an inactive card or a short balance', async () => {
    const unknown = await h.api.post<{ balance: number; activated: boolean }>('/api/gateway/v1/gift_card/read', GC);
    expect(unknown.body).toEqual({ balance: 0, activated: false });

    const loaded = await h.api.post<{ success: boolean; token: string; balance: number; activated: boolean }>('/api/gateway/v1/gift_card', { ...GC, load_amount_cents: 77850 });
    expect(loaded.body).toMatchObject({ success: true, balance: 77850, activated: false });
    const inactive = await op(h.api, 'sale', { amount_cents: 1000, gift_card: GC });
    expect(inactive.body).toMatchObject({ success: false, response_code: 205 });

    await h.api.post('/api/gateway/v1/gift_card', { ...GC, activated: 'true' });
    const read = await h.api.post<{ id: number; token: string; balance: number; activated: boolean; created_at: string; expires_at: string }>('/api/gateway/v1/gift_card/read', GC);
    expect(read.body).toMatchObject({ id: 1, balance: 77850, activated: true, created_at: '3/2/2026 3:00:00 PM', expires_at: '12/1/2049 12:00:00 AM' });

    const sale = await op(h.api, 'sale', { amount_cents: 50000, gift_card: GC });
    expect(sale.body).toMatchObject({ success: true, gift_card: read.body.token });
    expect(sale.body.transactions[0]).toMatchObject({ payment_method: 'gift_card', settlement: { status: 'none' } });
    const short = await op(h.api, 'sale', { amount_cents: 30000, gift_card: read.body.token });
    expect(short.body).toMatchObject({ success: false, response_code: 201 });
    const wrongPin = await op(h.api, 'sale', { amount_cents: 100, gift_card: { ...GC, pin: '0000' } });
    expect(wrongPin.body).toMatchObject({ success: false, response_code: 207 });
    expect((await op<GatewayError>(h.api, 'auth', { amount_cents: 100, gift_card: GC })).body.errors).toEqual(['unsupported_payment_method']);

    const refund = await op(h.api, 'refund', { amount_cents: 10000, transaction: sale.body.transaction });
    expect(refund.body.success).toBe(true);
    const byToken = await op(h.api, 'sale', { amount_cents: 1000, gift_card: read.body.token });
    await op(h.api, 'void', { transaction: byToken.body.transaction });
    const final = await h.api.post<{ balance: number }>('/api/gateway/v1/gift_card/read', GC);
    expect(final.body.balance).toBe(77850 - 50000 + 10000);

    await h.api.post('/api/gateway/v1/gift_card', { ...GC, activated: 'false' });
    expect((await h.api.post<{ activated: boolean }>('/api/gateway/v1/gift_card/read', GC)).body.activated).toBe(false);
    const badPin = await h.api.post<GatewayError>('/api/gateway/v1/gift_card/read', { ...GC, pin: '9999' });
    expect(badPin.status).toBe(500);
    expect(badPin.body.errors).toEqual(['incorrect_pin']);
  });
});

describe('gift cards stored before cards were shop-wide', () => {
  it('get their shop name and the lanes\' copy at the first payment by number', async () => {
    const GC = { card_number: '6035710000000019', expiry_month: '12', expiry_year: '2049' };
    const loaded = await h.api.post<{ token: string }>('/api/gateway/v1/gift_card', { ...GC, load_amount_cents: 5000, activated: 'true' });
    const { core } = h.t.engine;
    // As a data folder of an earlier version holds it: no shop name, no copy.
    const stored = (await getRecord<GiftCardData>(core, GIFT_CARD, loaded.body.token))!;
    const shopRef = stored.data.shop_ref!;
    expect(shopRef).toBeTruthy();
    await core.mutate(async (tx) => {
      const { shop_ref: _gone, ...old } = stored.data;
      await putRecord(tx, GIFT_CARD, loaded.body.token, old, { type: 'gift_card.updated', entity: 'gift_card', key: loaded.body.token });
      await tx.remove('records', recordId(GIFT_CARD_COPY, shopRef), { type: 'gift_card_copy.removed', entity: GIFT_CARD_COPY, key: shopRef });
    });
    expect(await getRecord(core, GIFT_CARD_COPY, shopRef)).toBeUndefined();
    const sale = await op(h.api, 'sale', { amount_cents: 1200, gift_card: GC });
    expect(sale.body).toMatchObject({ success: true });
    expect((await getRecord<GiftCardData>(core, GIFT_CARD, loaded.body.token))!.data.shop_ref).toBe(shopRef);
    expect((await getRecord<{ balance_cents: number; token: string }>(core, GIFT_CARD_COPY, shopRef))!.data).toMatchObject({ balance_cents: 3800, token: loaded.body.token });
  });
});
