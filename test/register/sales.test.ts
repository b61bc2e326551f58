import { afterEach, describe, expect, it } from 'vitest';
import { isEngineError } from '../../src/engine/errors';
import type { DomainEvent } from '../../src/engine/events';
import { code, openRegister, VISA_DECLINE, type RegisterRig } from '../helpers/register';
import { deviceFailure } from '../helpers/terminal';

let rig: RegisterRig;
afterEach(async () => {
  await rig?.close();
});

describe('ringing up a sale', () => {
  it('prices each line before tax, taxes each line in cents rounded half up, and keeps a draft order in the reference shape', async () => {
    rig = await openRegister();
    // 1003 Latte $4.95 @5%, 4001 Reusable cup $18.00 @13%, 2001 Croissant $3.25 @0%; the cup's barcode.
    let sale = await rig.sale('1003', '0629110040012', '2001');
    sale = await rig.register.addLine(sale.id, { shift: rig.shift, scan: '3*2001' });
    // The croissant scanned again joins the last line (a plain line of the same product).
    const croissant = sale.lines.find((l) => l.product_code === '2001')!;
    expect(croissant.quantity).toBe(4);
    // Half a croissant is no quantity: said as such, not "no product 1,5*2001", and nothing is added.
    for (const scan of ['1,5*2001', '0.5x2001']) {
      const refused = await rig.register.addLine(sale.id, { shift: rig.shift, scan }).catch((e: unknown) => e);
      expect(isEngineError(refused) && [refused.code, refused.message], scan).toEqual(['invalid_quantity', 'A quantity is a whole number from 1 to 999: type 2*2001 for two']);
    }
    expect(sale.lines).toHaveLength(3);
    // Latte: 495 × 5% = 24.75 → 25 (half up); cup: 1800 × 13% = 234; croissants: 0.
    expect(sale.lines.map((l) => [l.net_cents, l.tax_cents])).toEqual([
      [495, 25],
      [1800, 234],
      [1300, 0],
    ]);
    expect(sale.totals).toMatchObject({ subtotal_cents: 3595, discount_cents: 0, tax_cents: 259, total_cents: 3854, balance_cents: 3854, paid_cents: 0 });
    expect(sale.taxes).toEqual([
      { mark: 'A', tax_rate: 0, taxable_cents: 1300, tax_cents: 0 },
      { mark: 'B', tax_rate: 5, taxable_cents: 495, tax_cents: 25 },
      { mark: 'C', tax_rate: 13, taxable_cents: 1800, tax_cents: 234 },
    ]);

    const order = await rig.t.engine.orders.view(sale.order);
    expect(order).toMatchObject({ identifier: sale.id, number: sale.number, draft: true, amount_cents: 3854, currency: 'usd' });
    expect((order!.order_items as unknown[])[1]).toMatchObject({ number: '2', description: 'Reusable cup, 12 oz', quantity: 1, unit_cost_cents: 1800, amount_cents: 1800, tax_amount_cents: 234, discount_amount_cents: 0, product_code: '4001', category: 'Household' });
  });

  it('applies quantity, discounts and price overrides (a reason is required), and voided lines count for nothing', async () => {
    rig = await openRegister();
    let sale = await rig.sale('4002', '5002');
    const [press, pen] = sale.lines;
    // 10% off the press: 4499 → 449.9 → 450 off.
    sale = await rig.register.changeLine(sale.id, press!.line, { shift: rig.shift, discount: { percent: 10, reason: 'Open box' } });
    expect(sale.lines[0]).toMatchObject({ gross_cents: 4499, discount_cents: 450, net_cents: 4049, tax_cents: 526 });
    expect(await code(rig.register.changeLine(sale.id, pen!.line, { shift: rig.shift, price_override: { unit_price_cents: 199, reason: ' ' } }))).toBe('reason_required');
    sale = await rig.register.changeLine(sale.id, pen!.line, { shift: rig.shift, quantity: 3, price_override: { unit_price_cents: 199, reason: 'Price match' } });
    expect(sale.lines[1]).toMatchObject({ quantity: 3, unit_price_cents: 199, list_price_cents: 299, gross_cents: 597, tax_cents: 78, price_override: { reason: 'Price match', list_price_cents: 299 } });
    expect(await code(rig.register.changeLine(sale.id, pen!.line, { shift: rig.shift, discount: { amount_cents: 600 } }))).toBe('discount_exceeds_line');
    sale = await rig.register.voidLine(sale.id, press!.line, rig.shift);
    expect(sale.lines[0]!.voided).toBe(true);
    expect(sale.totals.total_cents).toBe(597 + 78);
    const order = await rig.t.engine.orders.view(sale.order);
    expect(order!.order_items).toHaveLength(1);
    expect((order!.order_items as unknown[])[0]).toMatchObject({ product_code: '5002', attributes: { price_override_reason: 'Price match' } });
  });

  it('sells an open-price item at the default tax rate and refuses unknown codes with the next step', async () => {
    rig = await openRegister();
    let sale = await rig.sale();
    sale = await rig.register.addLine(sale.id, { shift: rig.shift, open: { description: 'Handmade mug', unit_price_cents: 2400 } });
    expect(sale.lines[0]).toMatchObject({ open_price: true, tax_rate: 13, tax_cents: 312, total_cents: 2712 });
    const err = await rig.register.addLine(sale.id, { shift: rig.shift, scan: '999999' }).catch((e: unknown) => e);
    expect(isEngineError(err) && err.code).toBe('product_not_found');
    expect((err as Error).message).toMatch(/search with F2/);
  });
});

describe('taking payment', () => {
  it('takes cash with change, opens the drawer only for cash, and publishes the order once paid', async () => {
    rig = await openRegister();
    const events: DomainEvent[] = [];
    rig.t.engine.core.bus.subscribe((e) => events.push(e));
    const sale = await rig.sale('1002', '2003'); // 425 + 21 tax + 350 = 796
    expect(sale.allowed.cash_suggestions).toEqual([796, 800, 1000, 2000, 5000]);
    const cheque = await rig.tender(sale, { type: 'cheque', amount_cents: 300, reference: '1042' });
    expect(cheque.tender).toMatchObject({ type: 'cheque', label: 'Cheque 1042', amount_cents: 300, drawer_opened: false });
    expect(events.filter((e) => e.type === 'drawer.opened')).toHaveLength(0);
    expect(cheque.sale.allowed.edit_lines).toBe(false);

    const cash = await rig.tender(sale, { type: 'cash', tendered_cents: 1000 });
    expect(cash.tender).toMatchObject({ type: 'cash', amount_cents: 496, tendered_cents: 1000, change_cents: 504, drawer_opened: true });
    expect(cash.message).toBe('Change due: $5.04.');
    expect(cash.sale).toMatchObject({ status: 'paid', totals: { balance_cents: 0, paid_cents: 796, change_cents: 504 } });
    const drawer = events.filter((e) => e.type === 'drawer.opened');
    expect(drawer).toHaveLength(1);
    expect(drawer[0]!.data).toMatchObject({ laneid: '1', reason: 'cash_sale', sale: sale.id });

    const order = await rig.t.engine.orders.view(sale.order);
    expect(order).toMatchObject({ draft: false, amount_cents: 796 });
    expect((await rig.register.register('1')).open_sale).toBeNull();
    // Lines are locked once payment started; a paid sale takes no more tenders.
    expect(await code(rig.register.addLine(sale.id, { shift: rig.shift, scan: '1001' }))).toBe('sale_closed');
    expect(await code(rig.tender(sale, { type: 'cash', tendered_cents: 100 }))).toBe('sale_closed');
  });

  it('charges the card on the lane with the EMV details, and records a decline without charging, ready for another tender', async () => {
    rig = await openRegister();
    const sale = await rig.sale('1003'); // 495 + 25 = 520
    rig.terminal.pan = VISA_DECLINE;
    const declined = await rig.tender(sale, { type: 'card' });
    expect(declined.tender).toMatchObject({ status: 'declined', error: { code: 'declined' } });
    expect(declined.message).toBe('The card was declined. Try another card or another tender.');
    expect(declined.sale).toMatchObject({ status: 'open', pending_tender: null, totals: { balance_cents: 520 } });
    expect(declined.sale.allowed.tenders).toContain('cash');
    expect(rig.terminal.reads[0]).toMatchObject({ laneId: '1', kind: 'sale', amountCents: 520 });

    rig.terminal.pan = '4895281000000006';
    const approved = await rig.tender(sale, { type: 'card' });
    expect(approved.tender).toMatchObject({
      status: 'approved',
      label: 'Visa •••• 0006',
      card: { brand: 'Visa', last4: '0006', entry_mode: 'chip', aid: 'A0000000031010', application_label: 'VISA CREDIT', tvr: '0000008000', tsi: 'E800', cardholder_verification: 'pin' },
    });
    expect(approved.tender.card!.authorization_code).toMatch(/\S/);
    expect(approved.sale.status).toBe('paid');
    const tx = await rig.t.engine.gateway.view(approved.tender.transaction!);
    expect(tx).toMatchObject({ action: 'sale', payment_method: 'pos_terminal', amount_in_cents: 520, transaction_reference: approved.tender.id, orders: [{ identifier: sale.id }] });
  });

  it('says so when the terminal is offline, charges nothing, and takes another tender', async () => {
    rig = await openRegister();
    const sale = await rig.sale('3001');
    rig.terminal.readError = deviceFailure('offline', 'port closed');
    const out = await rig.tender(sale, { type: 'card' });
    expect(out.tender).toMatchObject({ status: 'failed', error: { code: 'lane_offline' } });
    expect(out.message).toBe('The terminal on lane 1 is offline. Nothing was charged. Check its cable and power, then try again, or take another tender.');
    const cash = await rig.tender(sale, { type: 'cash', tendered_cents: 2000 });
    expect(cash.sale.status).toBe('paid');
  });

  it('splits a sale across a gift card (up to its balance), a card and cash', async () => {
    rig = await openRegister();
    await rig.t.engine.giftCards.load({ card_number: '6277000011112222', pin: '4321', activated: true, load_amount_cents: 1500 });
    const sale = await rig.sale('4002', '1001'); // 4499 + 585 + 245 + 12 = 5341
    expect(sale.totals.total_cents).toBe(5341);
    expect(await code(rig.tender(sale, { type: 'gift_card', gift_card: { card_number: '6277000011112222', pin: '0000' } }))).toBe('incorrect_pin');
    const gift = await rig.tender(sale, { type: 'gift_card', gift_card: { card_number: '6277000011112222', pin: '4321' } });
    expect(gift.tender).toMatchObject({ status: 'approved', amount_cents: 1500, label: 'Gift card •••• 2222' });
    expect(gift.sale.totals.balance_cents).toBe(3841);
    expect(await code(rig.tender(sale, { type: 'card', amount_cents: 5000 }))).toBe('amount_over_balance');
    const card = await rig.tender(sale, { type: 'card', amount_cents: 3000 });
    expect(card.sale.totals.balance_cents).toBe(841);
    const cash = await rig.tender(sale, { type: 'cash', tendered_cents: 1000 });
    expect(cash.sale).toMatchObject({ status: 'paid', totals: { paid_cents: 5341, change_cents: 159 } });
    expect(cash.sale.tenders.map((t) => [t.type, t.status, t.amount_cents])).toEqual([
      ['gift_card', 'approved', 1500],
      ['card', 'approved', 3000],
      ['cash', 'approved', 841],
    ]);
    expect((await rig.t.engine.giftCards.read({ card_number: '6277000011112222', pin: '4321' })).balance).toBe(0);
  });

  it('says what is left on a gift card once a tender is approved, as the debit left it, in the screen\'s locale', async () => {
    rig = await openRegister();
    await rig.t.engine.giftCards.load({ card_number: '6277000011113333', activated: true, load_amount_cents: 5000 });
    const sale = await rig.sale('4002', '1001'); // 5341
    const ten = await rig.tender(sale, { type: 'gift_card', gift_card: { card_number: '6277000011113333' }, amount_cents: 1000 });
    expect(ten.tender).toMatchObject({ status: 'approved', amount_cents: 1000 });
    expect(ten.gift_card_balance_cents).toBe(4000);
    expect(ten.message).toBe('Gift card •••• 3333: approved. Left on the card: $40.00.');
    // Written as the cashier's screen writes money (Accept-Language).
    const more = await rig.register.tender(sale.id, { shift: rig.shift, type: 'gift_card', gift_card: { card_number: '6277000011113333' }, amount_cents: 1250 }, null, 'fr-CA');
    expect(more.gift_card_balance_cents).toBe(2750);
    expect(more.message.replace(/\s/g, ' ')).toBe('Gift card •••• 3333: approved. Left on the card: 27,50 $ US.');
    expect((await rig.t.engine.giftCards.read({ card_number: '6277000011113333' })).balance).toBe(2750);
    // Not a gift card: no balance in the answer.
    const cash = await rig.tender(sale, { type: 'cash', tendered_cents: 5000 });
    expect(cash.gift_card_balance_cents).toBeUndefined();
  });
});

describe('a scan typed in Arabic-Indic digits (ar-EG)', () => {
  it('reads "٣*٢٠٠١" as three of 2001 and a plain "\u200f١٠٠٣" as 1003; "١٫٥*٢٠٠١" is no quantity', async () => {
    rig = await openRegister();
    let sale = await rig.sale('\u200f١٠٠٣');
    sale = await rig.register.addLine(sale.id, { shift: rig.shift, scan: '٣*٢٠٠١' });
    expect(sale.lines.map((l) => [l.product_code, l.quantity])).toEqual([
      ['1003', 1],
      ['2001', 3],
    ]);
    const refused = await rig.register.addLine(sale.id, { shift: rig.shift, scan: '١٫٥*٢٠٠١' }).catch((e: unknown) => e);
    expect(isEngineError(refused) && [refused.code, refused.message]).toEqual(['invalid_quantity', 'A quantity is a whole number from 1 to 999: type 2*2001 for two']);
  });
});
