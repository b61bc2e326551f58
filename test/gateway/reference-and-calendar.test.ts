import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcessingCalendar, zonedInstant } from '../../src/engine/gateway/processing-day';
import { brandOf } from '../../src/engine/gateway/reference-data';
import { AMEX, DISCOVER, MASTERCARD, VISA, card, op, startGateway, type Harness } from '../helpers/gateway';

describe('processing days', () => {
  const cal = new ProcessingCalendar();

  it('puts a transaction before the local cut-off in that day, after it in the next', () => {
    const tz = 'America/Toronto';
    // 22:59 local (EST, UTC-5) on Jan 15 → Jan 15; 23:00 → Jan 16.
    expect(cal.dayOf(Date.parse('2026-01-16T03:59:00Z'), { timezone: tz, processing_cutoff: '23:00' })).toEqual({ date: '2026-01-15', cutoffAt: Date.parse('2026-01-16T04:00:00Z') });
    expect(cal.dayOf(Date.parse('2026-01-16T04:00:00Z'), { timezone: tz, processing_cutoff: '23:00' })).toEqual({ date: '2026-01-16', cutoffAt: Date.parse('2026-01-17T04:00:00Z') });
    expect(cal.dayOf(Date.parse('2026-01-15T12:00:00Z'), { timezone: 'UTC', processing_cutoff: '17:30' }).cutoffAt).toBe(Date.parse('2026-01-15T17:30:00Z'));
  });

  it('keeps the day open at a change of setting, then starts the new one the day after it, across the date line either way', () => {
    // Pago Pago (UTC-11) kept 2026-01-15, cut at its 23:00 (2026-01-16T10:00Z); Kiritimati (UTC+14) then.
    const east = { timezone: 'Pacific/Kiritimati', processing_cutoff: '23:00', processing_day_kept: { date: '2026-01-15', cutoff_at: Date.parse('2026-01-16T10:00:00Z') } };
    expect(cal.dayOf(Date.parse('2026-01-16T09:59:00Z'), east)).toEqual({ date: '2026-01-15', cutoffAt: Date.parse('2026-01-16T10:00:00Z') });
    // Kiritimati's 2026-01-16 was cut (09:00Z) before the kept day was: that date has no batch.
    expect(cal.dayOf(Date.parse('2026-01-16T10:00:00Z'), east)).toEqual({ date: '2026-01-17', cutoffAt: Date.parse('2026-01-17T09:00:00Z') });
    // The other way, Kiritimati's 2026-01-15 (cut 09:00Z) kept: Pago Pago's clock still shows the 14th.
    const west = { timezone: 'Pacific/Pago_Pago', processing_cutoff: '23:00', processing_day_kept: { date: '2026-01-15', cutoff_at: Date.parse('2026-01-15T09:00:00Z') } };
    expect(cal.dayOf(Date.parse('2026-01-15T09:00:00Z'), west)).toEqual({ date: '2026-01-16', cutoffAt: Date.parse('2026-01-17T10:00:00Z') });
    expect(cal.cutoffAfter('2026-01-14', 1, west)).toBe(Date.parse('2026-01-15T09:00:00Z'));
  });

  it('follows daylight saving time', () => {
    // Toronto springs forward on 2026-03-08: 23:00 is UTC-4 from then on.
    expect(zonedInstant('2026-03-07', '23:00', 'America/Toronto')).toBe(Date.parse('2026-03-08T04:00:00Z'));
    expect(zonedInstant('2026-03-08', '23:00', 'America/Toronto')).toBe(Date.parse('2026-03-09T03:00:00Z'));
    expect(zonedInstant('2026-11-01', '01:30', 'America/Toronto')).toBe(Date.parse('2026-11-01T05:30:00Z'));
  });
});

describe('BIN table and brands', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startGateway();
  });
  afterAll(async () => {
    await h.close();
  });

  it('detects the brand of the test cards and of the major networks', () => {
    expect([VISA, MASTERCARD, DISCOVER, AMEX].map(brandOf)).toEqual(['visa', 'master', 'discover', 'american_express']);
    expect(brandOf('2221000000000009')).toBe('master');
    expect(brandOf('3530111333300000')).toBe('jcb');
    expect(brandOf('6221260000000000')).toBe('discover');
    expect(brandOf('9999990000000000')).toBe('unknown');
  });

  it('serves the BIN list and lookups of 6 to 8 digits', async () => {
    const list = await h.api.get<Array<{ bin: string; brand: string }>>('/api/reference_data/v1/bin');
    expect(list.status).toBe(200);
    expect(list.body.map((b) => b.bin)).toEqual(expect.arrayContaining(['489528', '426428', '554103', '601100', '341111']));
    const one = await h.api.get<{ bin: string; brand: string; country: string }>('/api/reference_data/v1/bin/489528');
    expect(one.body).toMatchObject({ bin: '489528', brand: 'VISA', country: 'USA' });
    const eight = await h.api.get<{ bin: string; country: string }>('/api/reference_data/v1/bin/45174000');
    expect(eight.body).toMatchObject({ bin: '45174000', country: 'CAN' });
    const rangeOnly = await h.api.get<{ bin: string; brand: string; bank: string | null }>('/api/reference_data/v1/bin/5100001');
    expect(rangeOnly.body).toMatchObject({ bin: '5100001', brand: 'MASTERCARD', bank: null });
    expect((await h.api.get('/api/reference_data/v1/bin/999999')).status).toBe(404);
    for (const bad of ['12345', '123456789', 'abcdef']) expect((await h.api.get(`/api/reference_data/v1/bin/${bad}`)).status, bad).toBe(400);
    expect((await h.api.get('/api/reference_data/v1/bin', null)).status).toBe(401);
  });

  it('brands a card by the table in transactions', async () => {
    const res = await op(h.api, 'verify', { credit_card: card(DISCOVER) });
    expect(res.body.transactions[0]!.credit_card_brand).toBe('discover');
  });
});
