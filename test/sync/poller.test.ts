import { describe, expect, it } from 'vitest';
import { drainExport, pageRecords, type PageRequest } from '../../src/sync/poller';

/** A fake server over an in-memory change log, answering the export convention. */
function server(log: Array<{ watermark: number; id: string }>) {
  const calls: PageRequest[] = [];
  return {
    calls,
    fetch: async (req: PageRequest) => {
      calls.push(req);
      const page = log.filter((r) => r.watermark > req.watermark).slice(0, req.limit);
      if (req.list) return page;
      return Object.fromEntries(page.map((r) => [String(r.watermark), r]));
    },
  };
}

describe('drainExport', () => {
  it('reads every record once in both shapes and returns the resume watermark', async () => {
    const log = Array.from({ length: 23 }, (_, i) => ({ watermark: (i + 1) * 3, id: `r${i}` }));
    for (const list of [true, false]) {
      const s = server(log);
      const seen: string[] = [];
      const it = drainExport(s.fetch, { limit: 5, list });
      let step = await it.next();
      while (!step.done) {
        seen.push(...step.value.map((r) => String(r.id)));
        step = await it.next();
      }
      expect(seen).toEqual(log.map((r) => r.id));
      expect(step.value).toBe(69);
      expect(s.calls.map((c) => c.watermark)).toEqual([0, 15, 30, 45, 60]);
    }
  });

  it('refuses a server that answers a watermark not after the one asked for', async () => {
    const broken = async () => [{ watermark: 0, id: 'x' }];
    await expect(drainExport(broken, { limit: 1 }).next()).rejects.toThrow(/loop/);
  });

  it('orders an object page by its watermark keys', () => {
    expect(pageRecords({ '10': { id: 'b' }, '9': { id: 'a' } }).map((r) => r.watermark)).toEqual([9, 10]);
  });
});
