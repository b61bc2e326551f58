import { afterEach, describe, expect, it } from 'vitest';
import { createReadAhead, type ReadAhead } from '../../src/engine/receivables/fast-export';
import type { Page } from '../../src/engine/receivables/exports';

/**
 * A feed in memory: records by watermark, read in chunks of two like the export's chunked reads,
 * with every read and chunk counted. A write gives a record the next watermark.
 */
function feed(count: number) {
  const records = new Map<string, number>();
  let watermark = 0;
  let commits = 0;
  for (let i = 1; i <= count; i++) records.set(`R${i}`, ++watermark);
  const counts = { reads: 0, chunks: 0, closed: 0 };
  /** Pages (by where they start) whose next read fails. */
  const failing = new Set<number>();
  async function* chunks(page: Page, fail: boolean): AsyncGenerator<Array<{ id: string; w: number }>> {
    if (fail) throw new Error('disk went away');
    let after = page.after;
    let left = page.limit;
    try {
      while (left > 0) {
        const chunk = [...records].map(([id, w]) => ({ id, w })).filter((r) => r.w > after).sort((a, b) => a.w - b.w).slice(0, Math.min(2, left));
        counts.chunks += 1;
        if (chunk.length === 0) return;
        yield chunk;
        left -= chunk.length;
        after = chunk[chunk.length - 1]!.w;
      }
    } finally {
      counts.closed += 1;
    }
  }
  const read = (page: Page) => {
    counts.reads += 1;
    const fail = failing.delete(page.after);
    return chunks(page, fail);
  };
  return {
    counts,
    failing,
    read,
    write(id: string) {
      records.set(id, ++watermark);
      commits += 1;
    },
    writeMark: () => `${watermark}:${commits}`,
  };
}

/** Each record counts 100 bytes. */
const measure = { watermarkOf: (r: { id: string; w: number }) => r.w, bytesOf: () => 100 };

const turns = async (n = 20) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

let ahead: ReadAhead | undefined;
afterEach(async () => {
  await ahead?.close();
  ahead = undefined;
});

async function page(ra: ReadAhead, f: ReturnType<typeof feed>, after: number, limit: number, key = 'k') {
  const out: Array<{ id: string; w: number }> = [];
  for await (const chunk of ra.pages(key, { after, limit }, f.read, measure)) out.push(...chunk);
  return out;
}

describe('export read-ahead', () => {
  it('after a full page the next one is read ahead, and its request is answered from it without reading', async () => {
    const f = feed(10);
    ahead = createReadAhead({ writeMark: f.writeMark });
    expect((await page(ahead, f, 0, 4)).map((r) => r.id)).toEqual(['R1', 'R2', 'R3', 'R4']);
    await turns();
    expect(f.counts.reads).toBe(2);
    const chunksBefore = f.counts.chunks;
    expect((await page(ahead, f, 4, 4)).map((r) => r.id)).toEqual(['R5', 'R6', 'R7', 'R8']);
    // Answered from what was read ahead: no read of its own (the one after it is the next read ahead).
    expect(f.counts.reads).toBe(3);
    await turns();
    expect(f.counts.chunks).toBeGreaterThan(chunksBefore);
    // The last page is short: nothing is read ahead after it.
    expect((await page(ahead, f, 8, 4)).map((r) => r.id)).toEqual(['R9', 'R10']);
    await turns();
    expect(f.counts.reads).toBe(3);
  });

  it('a write after the read ahead drops it: the page is read again and has the write', async () => {
    const f = feed(10);
    ahead = createReadAhead({ writeMark: f.writeMark });
    await page(ahead, f, 0, 4);
    await turns();
    // R6 was read ahead at watermark 6; updated, it moves to the end of the feed.
    f.write('R6');
    const next = await page(ahead, f, 4, 4);
    expect(next.map((r) => r.id)).toEqual(['R5', 'R7', 'R8', 'R9']);
    expect(f.counts.reads).toBe(4);
  });

  it('is used only for the same key, page start and limit', async () => {
    const f = feed(20);
    ahead = createReadAhead({ writeMark: f.writeMark });
    await page(ahead, f, 0, 4);
    await turns();
    const reads = f.counts.reads;
    expect((await page(ahead, f, 4, 3)).map((r) => r.id)).toEqual(['R5', 'R6', 'R7']);
    expect((await page(ahead, f, 4, 4, 'other')).map((r) => r.id)).toEqual(['R5', 'R6', 'R7', 'R8']);
    expect((await page(ahead, f, 5, 4)).map((r) => r.id)).toEqual(['R6', 'R7', 'R8', 'R9']);
    expect(f.counts.reads).toBe(reads + 3 + 3);
  });

  it('asked for before the read ahead is done, the page comes whole: read ahead chunks, then the rest read on', async () => {
    const f = feed(30);
    ahead = createReadAhead({ writeMark: f.writeMark });
    await page(ahead, f, 0, 10);
    await turns(2); // one or two of the next page's five chunks
    const next = await page(ahead, f, 10, 10);
    expect(next.map((r) => r.w)).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    expect(f.counts.reads).toBe(3);
  });

  it('reads ahead at most maxBytes of a page; the rest is read when the page is asked for', async () => {
    const f = feed(30);
    ahead = createReadAhead({ writeMark: f.writeMark, maxBytes: 300 });
    await page(ahead, f, 0, 10);
    await turns();
    // Chunks are read until 300 bytes or more are held: two chunks of two records (100 bytes each).
    expect(f.counts.chunks).toBe(5 + 2);
    const next = await page(ahead, f, 10, 10);
    expect(next.map((r) => r.w)).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    expect(f.counts.reads).toBe(3);

    // Again two chunks of the page after it are read ahead, and its read waits. A client that
    // leaves while they are sent: the read it took over is closed.
    await turns();
    const closed = f.counts.closed;
    for await (const chunk of ahead.pages('k', { after: 20, limit: 10 }, f.read, measure)) {
      expect(chunk.map((r) => r.w)).toEqual([21, 22]);
      break;
    }
    expect(f.counts.closed).toBe(closed + 1);
  });

  it('a read ahead nobody asks for is dropped after its time; a failed one is read again when asked for', async () => {
    const f = feed(10);
    ahead = createReadAhead({ writeMark: f.writeMark, ttlMs: 20 });
    await page(ahead, f, 0, 4);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect((await page(ahead, f, 4, 4)).map((r) => r.id)).toEqual(['R5', 'R6', 'R7', 'R8']);
    expect(f.counts.reads).toBe(4);

    f.failing.add(4);
    await page(ahead, f, 0, 4);
    await turns();
    expect(f.counts.reads).toBe(6);
    expect(f.failing.size).toBe(0);
    expect((await page(ahead, f, 4, 4)).map((r) => r.id)).toEqual(['R5', 'R6', 'R7', 'R8']);
    expect(f.counts.reads).toBe(8);
  });

  it('reads nothing ahead when off, once closed, or for a client that left mid-page', async () => {
    const f = feed(10);
    const off = createReadAhead({ writeMark: f.writeMark, enabled: false });
    await page(off, f, 0, 4);
    await turns();
    expect(f.counts.reads).toBe(1);

    ahead = createReadAhead({ writeMark: f.writeMark });
    for await (const chunk of ahead.pages('k', { after: 0, limit: 4 }, f.read, measure)) {
      expect(chunk).toHaveLength(2);
      break;
    }
    await turns();
    expect(f.counts.reads).toBe(2);

    await page(ahead, f, 0, 4);
    await ahead.close();
    const chunks = f.counts.chunks;
    await turns();
    expect(f.counts.chunks).toBe(chunks);
    // Closed: the page is read when asked for (the fifth read), and none after it.
    expect((await page(ahead, f, 4, 4)).map((r) => r.id)).toEqual(['R5', 'R6', 'R7', 'R8']);
    await turns();
    expect(f.counts.reads).toBe(5);
  });
});
