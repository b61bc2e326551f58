import { describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { sendExportChunks } from '../../src/engine/receivables/fast-export';

/**
 * What sendExportChunks uses of a response. Like a socket, it reads a buffer it is given some time
 * after the write (here a millisecond), and says the write is done only then; after `goneAfter`
 * writes the client leaves.
 */
function response(goneAfter = Infinity) {
  const written: string[] = [];
  const res = {
    destroyed: false,
    ended: false,
    statusCode: 0,
    headers: {} as Record<string, string>,
    setHeader(name: string, value: string) {
      res.headers[name.toLowerCase()] = value;
      return res;
    },
    write(data: string | Buffer, done?: (err?: Error | null) => void) {
      const at = written.push('') - 1;
      if (written.length > goneAfter) res.destroyed = true;
      setTimeout(() => {
        written[at] = data.toString();
        done?.();
      }, 1);
      return true;
    },
    end(data: string) {
      // After the writes before it, as a socket keeps order.
      setTimeout(() => written.push(data), 5);
      res.ended = true;
    },
    destroy() {
      res.destroyed = true;
    },
  };
  return { res, body: () => written.join(''), writes: () => written.length };
}

/** Chunks of records whose stored JSON is `{"n":i}`, with every read and the closing counted. */
function chunks(count: number, size: number) {
  const seen = { reads: 0, closed: false };
  async function* gen() {
    try {
      for (let c = 0; c < count; c++) {
        seen.reads += 1;
        yield Array.from({ length: size }, (_, i) => {
          const n = c * size + i + 1;
          return { watermark: n, json: { head: `{"watermark":${n},`, rest: Buffer.from(`"n":${n}}`) } };
        });
      }
    } finally {
      seen.closed = true;
    }
  }
  return { seen, iterator: gen() };
}

describe('sendExportChunks', () => {
  it('sends every chunk as it is read, reusing buffers, into one valid page in both shapes', async () => {
    for (const list of [true, false]) {
      const { res, body: sent, writes } = response();
      const { seen, iterator } = chunks(6, 3);
      await sendExportChunks(res as unknown as ServerResponse, 'invoices', list, iterator);
      // Buffers go back to the pool while later chunks are built: the bytes sent must not change.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const body = JSON.parse(sent()) as { invoices: unknown };
      const records = list ? (body.invoices as Array<{ n: number }>) : Object.values(body.invoices as Record<string, { n: number }>);
      expect(records.map((r) => r.n)).toEqual(Array.from({ length: 18 }, (_, i) => i + 1));
      if (!list) expect(Object.keys(body.invoices as object)).toEqual(records.map((r) => String(r.n)));
      expect(writes()).toBe(1 + 6 + 1);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(seen.reads).toBe(6);
    }
  });

  it('stops reading, and closes what it reads from, once the client has gone', async () => {
    const { res } = response(2);
    const { seen, iterator } = chunks(6, 3);
    await sendExportChunks(res as unknown as ServerResponse, 'invoices', true, iterator);
    expect(seen.reads).toBeLessThan(6);
    expect(seen.closed).toBe(true);
    expect(res.ended).toBe(false);
  });
});
