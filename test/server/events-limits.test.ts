import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useHarness, basicAuth, type ApiClient, type TestEngine } from '../helpers/harness';
import { putRecord } from '../../src/engine/records';
import { createApp } from '../../src/server/app';
import { eventStreamsOf, STREAMS_PER_CREDENTIAL } from '../../src/server/event-streams';

/**
 * GET /api/events under load from one credential: a bounded number of streams per credential or
 * user, replays sent page by page as the client takes them, and a replay that would start too far
 * back replaced by `stream.resync`.
 */
const h = useHarness({ api: true });
/** Streams one credential or user holds open by default. */
const LIMIT = 8;
let t: TestEngine;
let api: ApiClient;
beforeAll(() => {
  ({ t, api } = h);
});

interface Frame {
  id?: number;
  event?: string;
  data?: { watermark: number; type: string; entity: string; key: string; data?: Record<string, unknown> };
}

function parseFrames(text: string): Frame[] {
  return text
    .split('\n\n')
    .filter((f) => f.includes('data: '))
    .map((f) => {
      const id = /^id: (\d+)$/m.exec(f)?.[1];
      const event = /^event: (.*)$/m.exec(f)?.[1];
      const data = /^data: (.*)$/m.exec(f)?.[1];
      return { ...(id ? { id: Number(id) } : {}), ...(event ? { event } : {}), ...(data ? { data: JSON.parse(data) as Frame['data'] } : {}) };
    });
}

/** Reads a stream until `enough` says so (then cancels it) or until it ends. */
async function readUntil(res: Response, enough: (frames: Frame[]) => boolean): Promise<{ frames: Frame[]; ended: boolean }> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  for (;;) {
    const cut = text.lastIndexOf('\n\n');
    const frames = parseFrames(cut >= 0 ? text.slice(0, cut + 2) : '');
    if (enough(frames)) {
      await reader.cancel();
      return { frames, ended: false };
    }
    const next = await reader.read();
    if (next.done) return { frames: parseFrames(text), ended: true };
    text += next.value;
  }
}

const open = (auth: string, headers: Record<string, string> = {}, url = api.url) => fetch(`${url}/api/events`, { headers: { Authorization: auth, ...headers } });

/** Writes `count` note records (their events), `size` characters of key each, in units of 500. */
async function notes(engine: TestEngine['engine'], prefix: string, count: number, size = 20): Promise<number> {
  let last = 0;
  for (let from = 0; from < count; from += 500) {
    last = await engine.core.mutate(async (tx) => {
      let w = 0;
      for (let i = from; i < Math.min(count, from + 500); i++) {
        const key = `${prefix}-${i}-`.padEnd(size, 'x');
        w = (await putRecord(tx, 'note', key, { key }, { type: 'note.updated', entity: 'note', key })).watermark;
      }
      return w;
    });
  }
  return last;
}

const cashierJwt = async () => {
  const made = await api.post<{ link: string }>('/api/users', { email: 'limits-cashier@x.test', role: 'cashier' });
  return (await api.post<{ jwt: string }>('/api/session/link', { link: made.body.link, password: 'Cashier-Password-123!' }, null)).body.jwt;
};

describe('GET /api/events: streams per credential', () => {
  it(`keeps at most ${LIMIT} streams open per credential: a new one closes the oldest, which is told why; another user's stream stays`, async () => {
    const cashier = await open(`Bearer ${await cashierJwt()}`);
    expect(cashier.status).toBe(200);
    const extra = 4;
    const streams: Response[] = [];
    for (let i = 0; i < LIMIT + extra; i++) {
      const res = await open(basicAuth());
      expect(res.status).toBe(200);
      streams.push(res);
    }
    // A change the register's streams carry, so the cashier's stream shows it too.
    const marker = await api.post<{ code: string }>('/api/pos/products', { code: 'LIMIT1', description: 'After the limit', price_cents: 100, tax_rate: 0, category: 'Shop' });
    expect(marker.status).toBe(201);
    const sawMarker = (frames: Frame[]) => frames.some((f) => f.data?.entity === 'pos_product' && f.data.key === 'LIMIT1');
    const got = await Promise.all([cashier, ...streams].map((res) => readUntil(res, sawMarker)));
    const [cashierGot, ...basicGot] = got;

    expect(sawMarker(cashierGot!.frames), "the cashier's own stream").toBe(true);
    const closed = basicGot.slice(0, extra);
    const kept = basicGot.slice(extra);
    for (const c of closed) {
      expect(c.ended).toBe(true);
      expect(sawMarker(c.frames)).toBe(false);
      const notice = c.frames.find((f) => f.event === 'stream.closed');
      expect(notice?.data).toMatchObject({ type: 'stream.closed', entity: 'stream', key: 'too_many_streams', data: { limit: LIMIT } });
      // No id: the client's Last-Event-ID stays that of the last change it got.
      expect(notice?.id).toBeUndefined();
    }
    for (const k of kept) expect(sawMarker(k.frames)).toBe(true);
    expect(STREAMS_PER_CREDENTIAL).toBe(LIMIT);
  });

  it('lets a screen whose stream was closed resume with Last-Event-ID, missing nothing', async () => {
    const first = await open(basicAuth());
    const before = await notes(t.engine, 'resume-before', 3);
    // Newer streams of the same credentials close it; changes go on meanwhile.
    const newer = await Promise.all(Array.from({ length: LIMIT }, () => open(basicAuth())));
    const during = await notes(t.engine, 'resume-during', 3);
    const seen = await readUntil(first, () => false);
    expect(seen.ended).toBe(true);
    expect(seen.frames.filter((f) => f.data?.key.startsWith('resume-before'))).toHaveLength(3);
    expect(seen.frames.at(-1)?.event).toBe('stream.closed');
    const lastId = Math.max(...seen.frames.flatMap((f) => (f.id ? [f.id] : [])));
    expect(lastId).toBe(before);
    const again = await open(basicAuth(), { 'Last-Event-ID': String(lastId) });
    const resumed = await readUntil(again, (frames) => frames.some((f) => f.id === during));
    expect(resumed.frames.filter((f) => f.data?.entity === 'note').map((f) => f.data!.key.replace(/-x+$/, ''))).toEqual(['resume-during-0', 'resume-during-1', 'resume-during-2']);
    await Promise.all(newer.map((r) => r.body?.cancel()));
  });
});

describe('GET /api/events: replays', () => {
  let server: Server;
  let url: string;
  let app: ReturnType<typeof createApp>;
  const MAX_REPLAY = 2_500;
  beforeAll(async () => {
    // An app of its own, to look at its streams from here: same routes, a replay limit this file's events fit.
    app = createApp({ engine: t.engine, rateLimit: 1_000_000, eventStreams: { maxReplay: MAX_REPLAY } });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  /** A client that asks for the stream from watermark 0 and then reads nothing. */
  const stalled = (auth: string) =>
    new Promise<Socket>((resolve, reject) => {
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1', () => {
        socket.write(`GET /api/events?watermark=0 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${auth}\r\n\r\n`);
        socket.once('data', () => {
          socket.pause();
          resolve(socket);
        });
      });
      socket.once('error', reject);
    });

  it('sends a replay from 0 page by page as each client takes it: /api/status answers while 20 replays run, none is queued whole', async () => {
    // About 9 MB of events: more than a socket's buffers hold, so a client that does not read stops its replay.
    const newest = await notes(t.engine, 'replay', 2_200, 4_000);
    expect(newest).toBeLessThan(MAX_REPLAY);
    const credentials = await Promise.all([1, 2, 3].map((i) => t.engine.account.credentials.create({ name: `replay-${i}` })));
    const auths = Array.from({ length: 20 }, (_, i) => basicAuth(credentials[i % 3]!.token, credentials[i % 3]!.key));
    const sockets = await Promise.all(auths.map(stalled));
    try {
      const status = await fetch(`${url}/api/status`, { headers: { Authorization: basicAuth() } });
      expect(status.status).toBe(200);
      const open = eventStreamsOf(app).list();
      expect(open).toHaveLength(20);
      for (const s of open) {
        expect(s.replaying).toBe(true);
        // What the socket's buffer holds waits for the client, not the 9 MB of the whole replay.
        expect(s.queued).toBeLessThan(64 * 1024);
      }
      // The server still answers another stream's client, and a change is written.
      expect((await api.post('/api/pos/products', { code: 'REPLAY1', description: 'During replays', price_cents: 100, tax_rate: 0, category: 'Shop' })).status).toBe(201);
    } finally {
      for (const s of sockets) s.destroy();
    }
    await expect.poll(() => eventStreamsOf(app).list().length).toBe(0);
  });

  it('replays every event once and in order to a client that reads, then goes on live', async () => {
    const from = t.engine.core.committedWatermark();
    const last = await notes(t.engine, 'order', 1_200);
    const res = await fetch(`${url}/api/events`, { headers: { Authorization: basicAuth(), 'Last-Event-ID': String(from) } });
    const reading = readUntil(res, (frames) => frames.some((f) => f.data?.key.startsWith('order-live')));
    await notes(t.engine, 'order-live', 1);
    const { frames } = await reading;
    const ids = frames.map((f) => f.id!);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(frames.filter((f) => f.data?.key.startsWith('order-') && !f.data.key.startsWith('order-live'))).toHaveLength(1_200);
    expect(ids).toContain(last);
  });

  it('tells a client further behind than the replay limit to read the state again (stream.resync), then streams live', async () => {
    const newest = t.engine.core.committedWatermark();
    expect(newest).toBeGreaterThan(MAX_REPLAY);
    for (const [from, key] of [[0, 'too_far_behind'], [newest + 1_000, 'unknown_watermark']] as const) {
      const res = await fetch(`${url}/api/events?watermark=${from}`, { headers: { Authorization: basicAuth() } });
      const reading = readUntil(res, (frames) => frames.some((f) => f.data?.key.startsWith(`resync-${key}`)));
      await notes(t.engine, `resync-${key}`, 1);
      const { frames } = await reading;
      expect(frames[0]).toMatchObject({ event: 'stream.resync', data: { type: 'stream.resync', entity: 'stream', key, data: { after: from, max_replay: MAX_REPLAY } } });
      // Its id is the watermark it follows from: a reconnect resumes there.
      expect(frames[0]!.id).toBeGreaterThanOrEqual(newest);
      // Then what happens from there on, nothing from before it.
      expect(frames.slice(1).every((f) => f.id! > newest)).toBe(true);
      expect(frames.at(-1)!.data!.key).toMatch(new RegExp(`^resync-${key}`));
    }
  });

  it('resyncs a client whose Last-Event-ID is no watermark at all, rather than quietly starting from now', async () => {
    for (const [i, sent] of ['abc', '-5', '1.5', '400abc'].entries()) {
      const res = await fetch(`${url}/api/events`, { headers: { Authorization: basicAuth(), 'Last-Event-ID': sent } });
      const reading = readUntil(res, (frames) => frames.some((f) => f.data?.key.startsWith(`garbled-${i}-`)));
      await notes(t.engine, `garbled-${i}`, 1);
      const { frames } = await reading;
      expect(frames[0], sent).toMatchObject({ event: 'stream.resync', data: { key: 'unknown_watermark', data: { after: null } } });
    }
  });
});
