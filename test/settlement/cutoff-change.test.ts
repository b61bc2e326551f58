import { afterEach, describe, expect, it } from 'vitest';
import { ACH, card, op, startGateway, type GatewayError, type Harness, type TxBody } from '../helpers/gateway';
import type { BatchView } from '../../src/engine/settlement-reporting/views';

/**
 * A change of the processing cut-off or the time zone counts from the next processing day: the
 * day open when it changed keeps its cut-off, and a batch once closed never takes another
 * transaction. Over real HTTP, with the sandbox clock moving time.
 */
let h: Harness;
afterEach(async () => {
  await h.close();
});

const advanceTo = (to: string) => h.api.post('/api/sandbox/v1/clock/advance', { to });
const cardBatches = async () =>
  (await h.api.get<{ batches: BatchView[] }>('/api/gateway/v1/settlement/batches?list=true&include_transactions=false')).body.batches.filter((b) => b.payment_method_group === 'card');
const dayOf = (res: { body: TxBody }) => res.body.transactions[0]!.processing_date;

describe('a change of cut-off or time zone', () => {
  it('after the cut-off: a closed batch takes nothing more; sales, captures, refunds and ACH go to the open day, which keeps its cut-off', async () => {
    h = await startGateway({ timezone: 'Pacific/Pago_Pago' });
    // 04:00 in Pago Pago (UTC-11): the 2026-03-02 batch closes at 23:00 local, 2026-03-03T10:00Z.
    const first = await op(h.api, 'sale', { amount_cents: 3500, credit_card: card() });
    const auth = await op(h.api, 'auth', { amount_cents: 1000, fund_token: first.body.credit_card });
    await advanceTo('2026-03-03T10:00:30Z');
    const [closed] = await cardBatches();
    expect(closed).toMatchObject({ processing_date: '2026-03-02', closed_at: '2026-03-03T10:00:00.000Z', sales_cents: 3500 });

    const patched = await h.api.patch<{ processing_cutoff: string; open_processing_day: { date: string; closes_at: string } }>('/api/account', { processing_cutoff: '23:30' });
    expect(patched.status).toBe(200);
    // The account says when the open day closes: at the cut-off it opened with, not the new one.
    expect(patched.body).toMatchObject({ processing_cutoff: '23:30', open_processing_day: { date: '2026-03-03', closes_at: '2026-03-04T10:00:00.000Z' } });
    // The kept day is the account's record: a restart keeps it.
    await h.restart();
    expect((await h.api.get('/api/account')).body).toMatchObject({ open_processing_day: { date: '2026-03-03', closes_at: '2026-03-04T10:00:00.000Z' } });
    const sale = await op(h.api, 'sale', { amount_cents: 2200, fund_token: first.body.credit_card });
    const capture = await op(h.api, 'capture', { transaction: auth.body.transaction, amount_cents: 1000 });
    const refund = await op(h.api, 'refund', { transaction: first.body.transaction, amount_cents: 500 });
    const ach = await op(h.api, 'sale', { amount_cents: 4000, bank_account: ACH });
    expect([sale, capture, refund, ach].map(dayOf)).toEqual(['2026-03-03', '2026-03-03', '2026-03-03', '2026-03-03']);
    // The first sale was transmitted with its batch: refund it, never void it.
    const voided = await op<GatewayError>(h.api, 'void', { transaction: first.body.transaction, amount_cents: 3500 });
    expect([voided.status, voided.body.errors]).toEqual([500, ['void_window_closed']]);

    // The open day closes at its 23:00, not at the new 23:30.
    await advanceTo('2026-03-04T10:00:30Z');
    const [same, next] = await cardBatches();
    expect(same).toEqual(closed);
    expect(next).toMatchObject({ processing_date: '2026-03-03', closed_at: '2026-03-04T10:00:00.000Z', sales_cents: 3200, refunds_cents: 500 });

    // 23:00:30 local: before the new cut-off, yet the day just closed is not named again.
    const later = await op(h.api, 'sale', { amount_cents: 700, fund_token: first.body.credit_card });
    expect(dayOf(later)).toBe('2026-03-04');
    expect((await h.api.get('/api/account')).body).toMatchObject({ open_processing_day: { date: '2026-03-04', closes_at: '2026-03-05T10:30:00.000Z' } });
    await advanceTo('2026-03-05T10:15:00Z');
    expect(await cardBatches()).toHaveLength(2);
    await advanceTo('2026-03-05T10:30:30Z');
    expect((await cardBatches())[2]).toMatchObject({ processing_date: '2026-03-04', closed_at: '2026-03-05T10:30:00.000Z', sales_cents: 700 });
    expect((await cardBatches()).slice(0, 2)).toEqual([closed, next]);
  });

  it('a time zone to the west after the cut-off: the day its batch closed is not reopened', async () => {
    h = await startGateway({ timezone: 'America/Toronto' });
    // 10:00 in Toronto (UTC-5): the 2026-03-02 batch closes at 23:00 local, 2026-03-03T04:00Z.
    const first = await op(h.api, 'sale', { amount_cents: 8890, credit_card: card() });
    await advanceTo('2026-03-03T04:00:30Z');
    const [closed] = await cardBatches();
    expect(closed).toMatchObject({ processing_date: '2026-03-02', closed_at: '2026-03-03T04:00:00.000Z', sales_cents: 8890 });

    // 17:00 on 2026-03-02 in Pago Pago: the old code's day, whose batch Toronto's cut-off closed.
    expect((await h.api.patch('/api/account', { timezone: 'Pacific/Pago_Pago' })).status).toBe(200);
    const sale = await op(h.api, 'sale', { amount_cents: 5151, fund_token: first.body.credit_card });
    expect(dayOf(sale)).toBe('2026-03-03');

    await advanceTo('2026-03-04T04:00:30Z');
    const [same, next] = await cardBatches();
    expect(same).toEqual(closed);
    expect(next).toMatchObject({ processing_date: '2026-03-03', closed_at: '2026-03-04T04:00:00.000Z', sales_cents: 5151 });
    // From now on Pago Pago's day: 2026-03-04, closing at its 23:00 (2026-03-05T10:00Z).
    const later = await op(h.api, 'sale', { amount_cents: 100, fund_token: first.body.credit_card });
    expect(dayOf(later)).toBe('2026-03-04');
    await advanceTo('2026-03-05T10:00:30Z');
    expect((await cardBatches())[2]).toMatchObject({ processing_date: '2026-03-04', closed_at: '2026-03-05T10:00:00.000Z', sales_cents: 100 });
  });

  it('before the cut-off: the day is cut once, at the cut-off it had, with everything it took', async () => {
    h = await startGateway();
    // 15:00 UTC; the day's cut-off is 23:00. An earlier cut-off now would leave this sale for 23:00
    // and close a batch for the later ones at 16:00: the day cut twice, its batch changed once closed.
    const early = await op(h.api, 'sale', { amount_cents: 1000, credit_card: card() });
    expect((await h.api.patch('/api/account', { processing_cutoff: '16:00' })).status).toBe(200);
    const late = await op(h.api, 'sale', { amount_cents: 2000, fund_token: early.body.credit_card });
    expect(dayOf(late)).toBe('2026-03-02');

    await advanceTo('2026-03-02T16:30:00Z');
    expect(await cardBatches()).toEqual([]);
    // Still voidable: its batch has not been transmitted.
    const voidable = await op(h.api, 'sale', { amount_cents: 300, fund_token: early.body.credit_card });
    expect((await op(h.api, 'void', { transaction: voidable.body.transaction, amount_cents: 300 })).status).toBe(200);

    await advanceTo('2026-03-02T23:00:30Z');
    expect(await cardBatches()).toMatchObject([{ processing_date: '2026-03-02', closed_at: '2026-03-02T23:00:00.000Z', sales_cents: 3000, transaction_count: 2 }]);
    // The next day is the first with the new cut-off.
    const next = await op(h.api, 'sale', { amount_cents: 400, fund_token: early.body.credit_card });
    expect(dayOf(next)).toBe('2026-03-03');
    await advanceTo('2026-03-03T16:00:30Z');
    expect((await cardBatches())[1]).toMatchObject({ processing_date: '2026-03-03', closed_at: '2026-03-03T16:00:00.000Z', sales_cents: 400 });
  });
});
