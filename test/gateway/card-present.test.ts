import { afterEach, describe, expect, it } from 'vitest';
import { fail } from '../../src/engine/errors';
import { settlementTokens } from '../../src/engine/gateway/settlement-tokens';
import { VISA, VISA_DECLINE, op, startGateway, type GatewayError, type Harness } from '../helpers/gateway';
import { FakeTerminal } from '../helpers/terminal';

let h: Harness;
afterEach(async () => {
  await h.close();
});

type TerminalTx = {
  token: string;
  state: string;
  action: string;
  payment_method: string;
  credit_card_masked_number: string;
  credit_card_brand: string;
  response_code: number;
  settlement: { status: string };
  authorization: { status: string; remaining_cents: number } | null;
  terminal: { laneid: string; entry_mode: string; aid: string; application_label: string; tvr: string; tsi: string; cardholder_verification: string; authorization_code: string; signature: { media_type: string; data: string } | null; reversal: string | null };
};

describe('card-present payments on a lane', () => {
  it('reads the card on the lane, authorizes, shows the outcome and records the receipt details', async () => {
    const lane = new FakeTerminal();
    h = await startGateway({ cardPresent: lane });
    const res = await op(h.api, 'sale', { order: { identifier: 'POS-1' }, amount_cents: 4200, contact: { email: 'tim@coffee.com' }, terminal: { laneid: '1', enable_manual_entry: false } });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(lane.reads).toEqual([expect.objectContaining({ laneId: '1', kind: 'sale', amountCents: 4200, currency: 'usd', enableManualEntry: false })]);
    expect(lane.completions[0]!.outcome).toMatchObject({ approved: true, message: 'APPROVED' });
    const t = res.body.transactions[0] as unknown as TerminalTx;
    expect(t).toMatchObject({
      action: 'sale',
      state: 'completed',
      payment_method: 'pos_terminal',
      credit_card_masked_number: 'XXXXXXXXXXXX0006',
      credit_card_brand: 'visa',
      settlement: { status: 'pending' },
      terminal: { laneid: '1', entry_mode: 'chip', aid: 'A0000000031010', application_label: 'VISA CREDIT', tvr: '0000008000', tsi: 'E800', cardholder_verification: 'pin', signature: null, reversal: null },
    });
    expect(t.terminal.authorization_code).toMatch(/^[A-Z0-9]{6}$/);
    expect(lane.completions[0]!.outcome.authorizationCode).toBe(t.terminal.authorization_code);
    expect(JSON.stringify(res.body)).not.toContain(VISA);
    // A card-present sale is voided and refunded like any other.
    expect((await op(h.api, 'refund', { transaction: t.token, amount_cents: 200 })).body.success).toBe(true);
  });

  it('keeps the signature the device collected; a capture on the lane confirms with the same card, one without a terminal reads none', async () => {
    const lane = new FakeTerminal();
    lane.cvm = 'signature';
    lane.signature = { mediaType: 'image/svg+xml', data: Buffer.from('<svg/>').toString('base64') };
    h = await startGateway({ cardPresent: lane });
    const auth = await op(h.api, 'auth', { amount_cents: 5000, terminal: { laneid: '2', enable_manual_entry: true } });
    const t = auth.body.transactions[0] as unknown as TerminalTx;
    expect(t).toMatchObject({ action: 'authorize', authorization: { status: 'open', remaining_cents: 5000 }, terminal: { signature: { media_type: 'image/svg+xml' } } });
    expect(lane.reads[0]).toMatchObject({ kind: 'auth', enableManualEntry: true });
    const capture = await op(h.api, 'capture', { transaction: t.token, amount_cents: 4500, terminal: { laneid: '2' } });
    expect(capture.body.success).toBe(true);
    expect(lane.reads).toHaveLength(2);
    expect(lane.reads[1]).toMatchObject({ kind: 'capture', amountCents: 4500 });
    const rest = await op(h.api, 'capture', { transaction: t.token, amount_cents: 500 });
    expect(rest.body.success).toBe(true);
    expect(lane.reads).toHaveLength(2);
  });

  it('reverses an approval the device could not confirm: nothing is charged', async () => {
    const lane = new FakeTerminal();
    lane.completeError = fail.unavailable('device_error', 'unplugged');
    h = await startGateway({ cardPresent: lane });
    const res = await op(h.api, 'sale', { amount_cents: 4200, unique_reference: 'LANE1-0001', terminal: { laneid: '1' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: false, response_code: 260 });
    const t = res.body.transactions[0] as unknown as TerminalTx;
    expect(t).toMatchObject({ state: 'cancelled', settlement: { status: 'voided' }, terminal: { reversal: 'device_unconfirmed' } });
    h.t.clock.set('2026-03-02T23:30:00Z');
    await h.t.engine.tick();
    expect(await h.t.engine.gateway.settlement.batchesSince(0, 10)).toEqual([]);
    // The same request may be tried again (once the device is back): it is a new payment.
    lane.completeError = undefined;
    h.t.clock.set('2026-03-02T15:05:00Z');
    const retry = await op(h.api, 'sale', { amount_cents: 4200, unique_reference: 'LANE1-0001', terminal: { laneid: '1' } });
    expect(retry.body.success).toBe(true);
    expect(retry.body.transaction).not.toBe(res.body.transaction);
  });

  it('declines the always-decline card on the lane and tells the device', async () => {
    const lane = new FakeTerminal();
    lane.pan = VISA_DECLINE;
    h = await startGateway({ cardPresent: lane });
    const res = await op(h.api, 'sale', { amount_cents: 1000, terminal: { laneid: '1' } });
    expect(res.body).toMatchObject({ success: false, response_code: 999 });
    expect(lane.completions[0]!.outcome).toMatchObject({ approved: false, message: 'DECLINED' });
  });

  it('one request is one device payment: concurrent retries wait for it and are answered by it', async () => {
    const lane = new FakeTerminal();
    let release!: () => void;
    lane.gate = new Promise((r) => (release = r));
    h = await startGateway({ cardPresent: lane });
    const body = { amount_cents: 1500, order: { identifier: 'POS-7' }, unique_reference: 'R-1', terminal: { laneid: '3' } };
    const first = op(h.api, 'sale', body);
    await new Promise((r) => setTimeout(r, 50));
    const second = op(h.api, 'sale', body);
    await new Promise((r) => setTimeout(r, 50));
    release();
    const [a, b] = await Promise.all([first, second]);
    expect(lane.reads).toHaveLength(1);
    expect(b.body.transaction).toBe(a.body.transaction);
    const third = await op(h.api, 'sale', body);
    expect(third.body.transaction).toBe(a.body.transaction);
    expect(lane.reads).toHaveLength(1);
  });

  it('releases the device when the payment cannot be recorded after the card was read', async () => {
    const lane = new FakeTerminal();
    let release!: () => void;
    lane.gate = new Promise((r) => (release = r));
    h = await startGateway({ cardPresent: lane });
    await h.api.post('/api/imports/order', { identifier: 'POS-9' });
    const pending = op<GatewayError>(h.api, 'sale', { amount_cents: 1000, order: 'POS-9', terminal: { laneid: '1' } });
    await new Promise((r) => setTimeout(r, 50));
    // Meanwhile the order is routed to another processor: the terminal payment no longer fits it.
    const giftProcessor = settlementTokens(h.t.engine.account.profile()).gift;
    await h.api.patch('/api/imports/order', { identifier: 'POS-9', settlement_token: giftProcessor });
    release();
    const res = await pending;
    expect(res.status).toBe(500);
    expect(res.body.errors).toEqual(['settlement_token_mismatch']);
    expect(lane.completions).toEqual([expect.objectContaining({ outcome: expect.objectContaining({ approved: false }) })]);
  });

  it('passes device errors through as gateway errors, and refuses without a driver', async () => {
    const lane = new FakeTerminal();
    lane.readError = fail.unavailable('card_removed', 'The card was removed before the read finished');
    h = await startGateway({ cardPresent: lane });
    const res = await op<GatewayError>(h.api, 'sale', { amount_cents: 1000, terminal: { laneid: '1' } });
    expect(res.status).toBe(500);
    expect(res.body.errors).toEqual(['card_removed']);
    expect(lane.completions).toHaveLength(0);
    h.t.engine.gateway.setCardPresent(undefined);
    const none = await op<GatewayError>(h.api, 'sale', { amount_cents: 1000, terminal: { laneid: '1' } });
    expect(none.body.errors).toEqual(['terminal_unavailable']);
    const both = await op<GatewayError>(h.api, 'sale', { amount_cents: 1000, fund_token: 'CC1', terminal: { laneid: '1' } });
    expect(both.body.errors).toEqual(['terminal_unavailable']);
  });
});

describe('one money rule for a prior transaction, with or without a lane', () => {
  it('answers the same code on the card-present path as on the card-not-present path, and asks the lane for no card it would refuse', async () => {
    const lane = new FakeTerminal();
    h = await startGateway({ cardPresent: lane });
    const sale = await op(h.api, 'sale', { amount_cents: 3000, terminal: { laneid: '1' } });
    const saleToken = sale.body.transaction;
    expect((await op(h.api, 'refund', { transaction: saleToken })).body.success).toBe(true);
    const auth = await op(h.api, 'auth', { amount_cents: 2000, terminal: { laneid: '1' } });
    const authToken = auth.body.transaction;
    expect((await op(h.api, 'capture', { transaction: authToken })).body.success).toBe(true);
    const reads = lane.reads.length;

    // Fully refunded: nothing left to refund, whether a lane confirms the refund or not.
    const refundNoLane = await op<GatewayError>(h.api, 'refund', { transaction: saleToken });
    const refundOnLane = await op<GatewayError>(h.api, 'refund', { transaction: saleToken, terminal: { laneid: '1' } });
    expect(refundNoLane.status).toBe(500);
    expect(refundNoLane.body.errors).toEqual(['nothing_to_refund']);
    expect(refundOnLane.status).toBe(500);
    expect(refundOnLane.body.errors).toEqual(refundNoLane.body.errors);

    // Fully captured: nothing left to capture, on either path.
    const captureNoLane = await op<GatewayError>(h.api, 'capture', { transaction: authToken });
    const captureOnLane = await op<GatewayError>(h.api, 'capture', { transaction: authToken, terminal: { laneid: '1' } });
    expect(captureNoLane.body.errors).toEqual(['nothing_to_capture']);
    expect(captureOnLane.body.errors).toEqual(captureNoLane.body.errors);

    // A refund over what is left, and one of a voided sale, are refused before the customer is asked for a card.
    const other = await op(h.api, 'sale', { amount_cents: 1500, terminal: { laneid: '1' } });
    const readsBefore = lane.reads.length;
    const overNoLane = await op<GatewayError>(h.api, 'refund', { transaction: other.body.transaction, amount_cents: 1600 });
    const overOnLane = await op<GatewayError>(h.api, 'refund', { transaction: other.body.transaction, amount_cents: 1600, terminal: { laneid: '1' } });
    expect(overNoLane.body.errors).toEqual(['amount_exceeds_refundable']);
    expect(overOnLane.body.errors).toEqual(overNoLane.body.errors);
    expect((await op(h.api, 'void', { transaction: other.body.transaction })).body.success).toBe(true);
    const voidedOnLane = await op<GatewayError>(h.api, 'refund', { transaction: other.body.transaction, terminal: { laneid: '1' } });
    expect(voidedOnLane.body.errors).toEqual(['transaction_voided']);
    // A refund or capture in another currency than the original's: refused on both paths, no card asked for.
    const third = await op(h.api, 'sale', { amount_cents: 1500, terminal: { laneid: '1' } });
    const heldAuth = await op(h.api, 'auth', { amount_cents: 1500, terminal: { laneid: '1' } });
    const readsBeforeFx = lane.reads.length;
    for (const [action, token] of [['refund', third.body.transaction], ['capture', heldAuth.body.transaction]] as const) {
      const noLane = await op<GatewayError>(h.api, action, { transaction: token, amount_cents: 500, currency: 'JPY' });
      const onLane = await op<GatewayError>(h.api, action, { transaction: token, amount_cents: 500, currency: 'JPY', terminal: { laneid: '1' } });
      expect([noLane.status, noLane.body.errors], action).toEqual([500, ['currency_mismatch']]);
      expect([onLane.status, onLane.body.errors], action).toEqual([500, ['currency_mismatch']]);
    }
    expect(lane.reads.length).toBe(readsBeforeFx);
    expect(lane.reads.length).toBe(readsBefore + 2);
    expect(reads).toBe(2);
  });
});
