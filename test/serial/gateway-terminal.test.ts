import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { laneWithDevice, openLaneRig, until, type LaneRig } from './helpers';
import { startApi, type ApiClient } from '../helpers/harness';
import type { OrderTransactionView } from '../../src/shared/schemas/gateway';

/**
 * The whole card-present path over a real serial pair: the gateway API takes a sale/auth/capture/
 * refund/credit with `terminal`, the lane's simulated device reads the card, the sandbox processor
 * decides, the device shows the outcome. Real SQLite, real HTTP on loopback, real socat pairs.
 */
let rig: LaneRig;
let api: ApiClient;
beforeAll(async () => {
  rig = await openLaneRig();
  api = await startApi(rig.engine);
});
afterAll(async () => {
  await api?.close();
  await rig?.close();
});

type Tx = OrderTransactionView;
interface Reply {
  success: boolean;
  transaction: string;
  response_code?: number;
  transactions: Tx[];
  errors?: string[];
}

const pay = (action: string, body: Record<string, unknown>) => api.post<Reply>(`/api/gateway/v1/orders/${action}`, body);

describe('card-present payments through the gateway API', () => {
  it('sale approved: pos_terminal transaction with the EMV details a receipt needs; no card number at rest', async () => {
    await laneWithDevice(rig, 'G1');
    const res = await pay('sale', { order: { number: 'POS-1' }, amount_cents: 4200, terminal: { laneid: 'G1', enable_manual_entry: false } });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const t = res.body.transactions[0]!;
    expect(t).toMatchObject({
      action: 'sale',
      state: 'completed',
      payment_method: 'pos_terminal',
      credit_card_brand: 'visa',
      credit_card_bin: '489528',
      terminal: { laneid: 'G1', entry_mode: 'chip', aid: 'A0000000031010', application_label: 'VISA CREDIT', tvr: '0000000000', tsi: 'E800', cardholder_verification: 'pin', reversal: null },
    });
    expect(t.credit_card_masked_number).toMatch(/0006$/);
    expect(t.terminal!.authorization_code).toMatch(/^[A-Z0-9]{6}$/);
    const view = await api.get<Tx>(`/api/exports/transaction/${t.token}`);
    expect(view.status).toBe(200);

    await rig.engine.core.mutate(async () => undefined);
    for (const file of readdirSync(rig.dir).filter((f) => f.startsWith('laneway.sqlite'))) {
      expect(readFileSync(join(rig.dir, file)).includes(Buffer.from('4895281000000006')), file).toBe(false);
    }
    rig.engine.logger.flush();
    expect(readFileSync(join(rig.dir, 'logs', 'laneway.log'), 'utf8')).not.toContain('4895281000000006');
  });

  it('decline: the declining test card and an amount ending in .01 both decline, with a response code', async () => {
    const { device } = await laneWithDevice(rig, 'G2', { card: '4264280001234500' });
    const declined = await pay('sale', { amount_cents: 2500, terminal: { laneid: 'G2' } });
    expect(declined.status).toBe(200);
    expect(declined.body.success).toBe(false);
    expect(typeof declined.body.response_code).toBe('number');
    expect(declined.body.transactions[0]).toMatchObject({ state: 'declined', payment_method: 'pos_terminal' });
    await until(() => device.screens.some((s) => s[0] === 'DECLINED'), 'the device to show DECLINED');

    device.setCard('4895281000000006');
    const cents = await pay('sale', { amount_cents: 1001, terminal: { laneid: 'G2' } });
    expect(cents.body.success).toBe(false);
    expect(cents.body.transactions[0]!.state).toBe('declined');
  });

  it('cancel while the device waits for the card: the sale fails as cancelled and nothing is recorded', async () => {
    await laneWithDevice(rig, 'G3', { scenario: 'timeout' });
    const before = (await api.get<{ transactions: Record<string, unknown> }>('/api/exports/transaction/none')).status;
    expect(before).toBe(404);
    const pending = pay('sale', { amount_cents: 1500, transaction_reference: 'G3-CANCEL', terminal: { laneid: 'G3' } });
    await until(async () => ((await rig.engine.lanes.get('G3')).activity === 'waiting_for_card' ? true : undefined), 'the card prompt');
    const cancel = await api.post<{ success: boolean }>('/api/gateway/v1/terminal', { laneid: 'G3', command: 'Cancel' });
    expect(cancel.body.success).toBe(true);
    const res = await pending;
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ success: false, errors: ['cancelled'] });
    expect((await api.get(`/api/exports/transaction/G3-CANCEL`)).status).toBe(404);
  });

  it('signature: the signature the customer drew on the device is stored on the transaction', async () => {
    await laneWithDevice(rig, 'G4', { scenario: 'signature' });
    const res = await pay('sale', { amount_cents: 8800, terminal: { laneid: 'G4' } });
    expect(res.body.success).toBe(true);
    const t = res.body.transactions[0]!;
    expect(t.terminal!.cardholder_verification).toBe('signature');
    expect(t.terminal!.signature?.media_type).toBe('image/svg+xml');
    expect(Buffer.from(t.terminal!.signature!.data, 'base64').toString('utf8')).toContain('<svg');
  });

  it('unplugged after the approval, before the device confirmed: the payment is reversed, nothing is charged', async () => {
    const { pair } = await laneWithDevice(rig, 'G5');
    const unsubscribe = rig.engine.core.bus.subscribe((e) => {
      // The approval is recorded before the device shows it: pull the cable right then.
      if (e.type === 'transaction.created' && (e.data as { amount_cents?: number } | undefined)?.amount_cents === 3100) void pair.unplug();
    });
    const res = await pay('sale', { amount_cents: 3100, transaction_reference: 'G5-UNPLUG', terminal: { laneid: 'G5' } });
    unsubscribe();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: false, response_code: 260 });
    const t = res.body.transactions[0]!;
    expect(t).toMatchObject({ state: 'cancelled', terminal: { reversal: 'device_unconfirmed' } });
    // Nothing goes to the day's batch.
    rig.clock.set('2026-03-02T23:59:00Z');
    await rig.engine.tick();
    const batches = await rig.engine.gateway.settlement.batchesSince(0, 50);
    for (const b of batches) expect(JSON.stringify(await rig.engine.gateway.settlement.batchTransactions((b as { id?: string; token?: string }).id ?? String((b as { token?: string }).token)))).not.toContain(t.token);
    rig.clock.set('2026-03-02T15:00:00Z');
    await pair.plug();
  });

  it('two sales racing for one lane: one runs, the other is told the device is in use', async () => {
    await laneWithDevice(rig, 'G6');
    const [a, b] = await Promise.all([pay('sale', { amount_cents: 1200, terminal: { laneid: 'G6' } }), pay('sale', { amount_cents: 1300, terminal: { laneid: 'G6' } })]);
    const outcomes = [a, b].map((r) => (r.status === 200 ? 'paid' : r.body.errors?.[0]));
    expect(outcomes.sort()).toEqual(['device_busy', 'paid']);
  });

  it('auth on the lane with a tip, capture and refund confirmed with the same card, credit to a card', async () => {
    await laneWithDevice(rig, 'G7', { tipPercent: 10 }, { tip: { enabled: true, percentages: [10, 15, 20] } });
    const sale = await pay('sale', { amount_cents: 5000, terminal: { laneid: 'G7' } });
    expect(sale.body.success).toBe(true);
    expect(sale.body.transactions[0]).toMatchObject({ terminal: { tip_cents: 500 } });
    expect((await api.get<{ amount_in_cents: number }>(`/api/exports/transaction/${sale.body.transaction}`)).body.amount_in_cents).toBe(5500);

    const auth = await pay('auth', { amount_cents: 2000, terminal: { laneid: 'G7' } });
    expect(auth.body.success).toBe(true);
    const capture = await pay('capture', { transaction: auth.body.transaction, amount_cents: 2000, terminal: { laneid: 'G7' } });
    expect(capture.body.success).toBe(true);
    expect(capture.body.transactions[0]).toMatchObject({ action: 'capture', terminal: { laneid: 'G7' } });

    const refund = await pay('refund', { transaction: sale.body.transaction, amount_cents: 1500, terminal: { laneid: 'G7' } });
    expect(refund.body.success).toBe(true);
    expect(refund.body.transactions[0]).toMatchObject({ action: 'refund', terminal: { laneid: 'G7', entry_mode: 'chip' } });
    const tooMuch = await pay('refund', { transaction: sale.body.transaction, amount_cents: 5000, terminal: { laneid: 'G7' } });
    expect(tooMuch.body.success).not.toBe(true);

    const credit = await pay('credit', { amount_cents: 700, terminal: { laneid: 'G7' } });
    expect(credit.body.success).toBe(true);
    expect(credit.body.transactions[0]).toMatchObject({ action: 'credit', payment_method: 'pos_terminal' });
  });

  it('a refund on the lane refuses a card other than the one paid with', async () => {
    const { device } = await laneWithDevice(rig, 'G8');
    const sale = await pay('sale', { amount_cents: 2600, terminal: { laneid: 'G8' } });
    expect(sale.body.success).toBe(true);
    device.setCard('5541032000004422');
    const refund = await pay('refund', { transaction: sale.body.transaction, terminal: { laneid: 'G8' } });
    expect(refund.status).toBe(500);
    expect(refund.body.errors).toEqual(['card_mismatch']);
  });
});
