import { describe, expect, it } from 'vitest';
import { upgradeProgress } from '../../src/cli/upgrade-progress';
import type { RelayoutNotice } from '../../src/store/sqlite/types';

describe('upgrade progress lines', () => {
  it('say what is upgraded, then every tenth of the way, then how long it took', () => {
    const lines: string[] = [];
    let clock = 1_000;
    const tell = upgradeProgress((line) => lines.push(line), () => clock);
    const notice = (done: number): RelayoutNotice => ({ collection: 'invoices', rows: 1_000_000, change: 'projections', done });
    tell(notice(0));
    for (let done = 20_000; done < 1_000_000; done += 20_000) {
      clock += 760;
      tell(notice(done));
    }
    clock += 500;
    tell(notice(1_000_000));
    expect(lines[0]).toBe("Upgrading the stored invoices (1,000,000 rows) to this version's layout (projections); this happens once.");
    expect(lines.slice(1)).toEqual([
      '  invoices: 10% (100,000 of 1,000,000 rows)',
      '  invoices: 20% (200,000 of 1,000,000 rows)',
      '  invoices: 30% (300,000 of 1,000,000 rows)',
      '  invoices: 40% (400,000 of 1,000,000 rows)',
      '  invoices: 50% (500,000 of 1,000,000 rows)',
      '  invoices: 60% (600,000 of 1,000,000 rows)',
      '  invoices: 70% (700,000 of 1,000,000 rows)',
      '  invoices: 80% (800,000 of 1,000,000 rows)',
      '  invoices: 90% (900,000 of 1,000,000 rows)',
      '  invoices: 100% (1,000,000 of 1,000,000 rows), done in 37.7 s',
    ]);
  });

  it('starts over for the next change, and says when a small table is done', () => {
    const lines: string[] = [];
    const tell = upgradeProgress((line) => lines.push(line), () => 0);
    tell({ collection: 'payments', rows: 3, change: 'text columns', done: 0 });
    tell({ collection: 'payments', rows: 3, change: 'text columns', done: 3 });
    tell({ collection: 'payments', rows: 3, change: 'projections', done: 0 });
    tell({ collection: 'payments', rows: 3, change: 'projections', done: 3 });
    expect(lines).toEqual([
      "Upgrading the stored payments (3 rows) to this version's layout (text columns); this happens once.",
      '  payments: 100% (3 of 3 rows), done in 0.0 s',
      "Upgrading the stored payments (3 rows) to this version's layout (projections); this happens once.",
      '  payments: 100% (3 of 3 rows), done in 0.0 s',
    ]);
  });
});
