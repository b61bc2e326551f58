import { beforeAll, describe, expect, it } from 'vitest';
import type { DomainEvent } from '../../src/engine/events';
import type { Lane, TerminalResponse } from '../../src/shared/schemas/lanes';
import { useHarness, type TestEngine, type ApiClient } from '../helpers/harness';

/**
 * Lane settings and the terminal command over real HTTP (every answer checked against our OpenAPI
 * document), on an engine without a lane driver: lanes are configurable, and offline.
 */
const h = useHarness({ api: true });
let t: TestEngine;
let api: ApiClient;
const events: DomainEvent[] = [];
beforeAll(() => {
  ({ t, api } = h);
  t.engine.core.bus.subscribe((e) => events.push(e));
});

type ErrorBody = { error: string; code: string; details?: Array<{ field?: string; message: string }> };

describe('lanes API', () => {
  it('adds a lane with defaults, lists it and reads it back', async () => {
    const created = await api.post<Lane>('/api/lanes', { laneid: '1', port_path: '/dev/ttyUSB0' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      laneid: '1',
      name: 'Lane 1',
      port_path: '/dev/ttyUSB0',
      baud_rate: 115200,
      data_bits: 8,
      parity: 'none',
      stop_bits: 1,
      currency: 'usd',
      enabled: true,
      tip: { enabled: false },
      signature: { capture: 'on_device', min_amount_cents: 0 },
      card_timeout_s: 90,
      status: 'offline',
      activity: 'idle',
      last_payment: null,
    });
    const list = await api.get<{ lanes: Lane[] }>('/api/lanes');
    expect(list.body.lanes.map((l) => l.laneid)).toEqual(['1']);
    expect((await api.get<Lane>('/api/lanes/1')).body.port_path).toBe('/dev/ttyUSB0');
    expect(events.find((e) => e.type === 'lane.created')).toMatchObject({ entity: 'lane', key: '1', data: { laneid: '1', status: 'offline' } });
  });

  it('takes every setting, and changes them with PATCH (one event each)', async () => {
    const body = {
      laneid: 'front-2',
      name: 'Front counter',
      port_path: 'COM3',
      baud_rate: 9600,
      data_bits: 7,
      parity: 'even',
      stop_bits: 2,
      currency: 'cad',
      enabled: false,
      tip: { enabled: true, percentages: [10, 15, 20] },
      signature: { capture: 'paper', min_amount_cents: 2500 },
      card_timeout_s: 60,
    };
    const created = await api.post<Lane>('/api/lanes', body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ...body, status: 'disabled' });
    const before = events.length;
    const patched = await api.patch<Lane>('/api/lanes/front-2', { enabled: true, name: 'Front', tip: { enabled: false, percentages: [] } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Front', enabled: true, status: 'offline', tip: { enabled: false, percentages: [] }, baud_rate: 9600 });
    expect(patched.body.updated_at >= created.body.updated_at).toBe(true);
    expect(events.slice(before).filter((e) => e.type === 'lane.updated')).toHaveLength(1);
  });

  it('refuses a taken laneid or port, naming the field; nothing changes', async () => {
    const dupe = await api.post<ErrorBody>('/api/lanes', { laneid: '1', port_path: '/dev/ttyUSB9' });
    expect(dupe.status).toBe(409);
    expect(dupe.body).toMatchObject({ code: 'lane_exists', details: [{ field: 'laneid' }] });
    const port = await api.post<ErrorBody>('/api/lanes', { laneid: '3', port_path: '/dev/ttyUSB0' });
    expect(port.status).toBe(409);
    expect(port.body).toMatchObject({ code: 'port_in_use', details: [{ field: 'port_path' }] });
    const move = await api.patch<ErrorBody>('/api/lanes/front-2', { port_path: '/dev/ttyUSB0' });
    expect(move.status).toBe(409);
    expect((await api.get<Lane>('/api/lanes/front-2')).body.port_path).toBe('COM3');
    expect((await api.get<ErrorBody>('/api/lanes/3')).status).toBe(404);
  });

  it('validates input before writing anything', async () => {
    const cases: Array<[unknown, string]> = [
      [{ port_path: '/dev/x' }, 'laneid'],
      [{ laneid: 'has space', port_path: '/dev/x' }, 'laneid'],
      [{ laneid: '4' }, 'port_path'],
      [{ laneid: '4', port_path: '/dev/x', baud_rate: 12345 }, 'baud_rate'],
      [{ laneid: '4', port_path: '/dev/x', parity: 'sometimes' }, 'parity'],
      [{ laneid: '4', port_path: '/dev/x', currency: 'jpy' }, 'currency'],
      [{ laneid: '4', port_path: '/dev/x', tip: { enabled: true, percentages: [0] } }, 'tip.percentages.0'],
      [{ laneid: '4', port_path: '/dev/x', card_timeout_s: 5 }, 'card_timeout_s'],
      [{ laneid: '4', port_path: '/dev/x', colour: 'red' }, 'body'],
    ];
    const watermark = t.engine.core.currentWatermark();
    for (const [body, field] of cases) {
      const res = await api.post<ErrorBody>('/api/lanes', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details?.some((d) => d.field === field), `${JSON.stringify(body)} names ${field}: ${JSON.stringify(res.body.details)}`).toBe(true);
    }
    expect((await api.patch<ErrorBody>('/api/lanes/1', {})).status).toBe(400);
    expect(t.engine.core.currentWatermark()).toBe(watermark);
  });

  it('removes a lane', async () => {
    await api.post('/api/lanes', { laneid: 'gone', port_path: '/dev/ttyGONE' });
    const removed = await api.delete<{ laneid: string; deleted: boolean }>('/api/lanes/gone');
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ laneid: 'gone', deleted: true });
    expect((await api.get('/api/lanes/gone')).status).toBe(404);
    expect((await api.delete('/api/lanes/gone')).status).toBe(404);
    expect(events.some((e) => e.type === 'lane.deleted' && e.key === 'gone')).toBe(true);
    // The port is free again.
    expect((await api.post('/api/lanes', { laneid: 'again', port_path: '/dev/ttyGONE' })).status).toBe(201);
  });

  it('adds a lane again under the id of one removed (its record written over the tombstone)', async () => {
    expect((await api.post('/api/lanes', { laneid: 'back', port_path: '/dev/ttyBACK1' })).status).toBe(201);
    expect((await api.delete('/api/lanes/back')).status).toBe(200);
    const again = await api.post<{ laneid: string; port_path: string }>('/api/lanes', { laneid: 'back', port_path: '/dev/ttyBACK2' });
    expect(again.status).toBe(201);
    expect((await api.get<{ laneid: string; port_path: string }>('/api/lanes/back')).body).toMatchObject({ laneid: 'back', port_path: '/dev/ttyBACK2' });
    // Removed and added once more: the same again.
    expect((await api.delete('/api/lanes/back')).status).toBe(200);
    expect((await api.post('/api/lanes', { laneid: 'back', port_path: '/dev/ttyBACK3' })).status).toBe(201);
  });
});

describe('POST /api/gateway/v1/terminal', () => {
  it('answers {success: false} with lane_offline when the lane\'s device is not connected', async () => {
    for (const command of ['DeviceStatus', 'DeviceSetup', 'RequestSignature', 'Cancel']) {
      const res = await api.post<TerminalResponse>('/api/gateway/v1/terminal', { laneid: '1', command });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: false, laneid: '1', command, status: 'offline', errors: ['lane_offline'] });
    }
  });

  it('answers an unknown lane as the gateway answers an unknown order: 500 {success: false, errors}', async () => {
    const res = await api.post<{ success: boolean; errors: string[] }>('/api/gateway/v1/terminal', { laneid: '99', command: 'DeviceStatus' });
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ success: false, errors: ['lane_not_found'] });
  });

  it('refuses an unknown command and a missing lane id, as the gateway answers an operation error', async () => {
    for (const body of [{ laneid: '1', command: 'Reboot' }, { command: 'Cancel' }]) {
      const res = await api.post('/api/gateway/v1/terminal', body);
      expect([res.status, res.body]).toEqual([500, { success: false, errors: ['validation_failed'], response_code: 999 }]);
    }
  });

  it('needs the card-present capability', async () => {
    await t.engine.account.update({ capabilities: { card_present_emv: false } });
    const res = await api.post<ErrorBody>('/api/gateway/v1/terminal', { laneid: '1', command: 'DeviceStatus' });
    expect(res.status).toBe(412);
    expect(res.body.code).toBe('capability_disabled');
    await t.engine.account.update({ capabilities: { card_present_emv: true } });
  });
});
