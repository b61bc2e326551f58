import type { RelayoutNotice } from '../store/sqlite/types';

/**
 * Lines for the person starting the app while a data folder is upgraded: what is rewritten and
 * how many rows, then every tenth of the way, then how long it took. Storage tells every batch
 * (RelayoutNotice); a line a tenth is enough to show it moves without flooding a terminal.
 */
export function upgradeProgress(print: (line: string) => void, now: () => number = Date.now): (notice: RelayoutNotice) => void {
  let started = 0;
  let shown = 0;
  return (notice) => {
    const rows = notice.rows.toLocaleString('en-US');
    if (notice.done === 0) {
      started = now();
      shown = 0;
      print(`Upgrading the stored ${notice.collection} (${rows} rows) to this version's layout (${notice.change}); this happens once.`);
      return;
    }
    const tenth = Math.floor((notice.done * 10) / Math.max(1, notice.rows));
    if (notice.done < notice.rows && tenth <= shown) return;
    shown = tenth;
    const done = notice.done.toLocaleString('en-US');
    const took = notice.done === notice.rows ? `, done in ${((now() - started) / 1000).toFixed(1)} s` : '';
    print(`  ${notice.collection}: ${tenth * 10}% (${done} of ${rows} rows)${took}`);
  };
}
