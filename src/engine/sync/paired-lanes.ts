import type { EngineCore } from '../core';
import { recordsOfKind } from '../records';

/**
 * Whether this install is a hub with a paired lane, asked after every customer edit (a hub stamps
 * them): a query each time made a file import of 300,000 invoices run 300,000 of them. A lane's
 * record is never removed (a revoked lane keeps it), so once seen the answer stays; until then it
 * is asked again only after a `sync_lane` event, and an answer read before such an event is not
 * kept.
 */
export function pairedLanes(core: EngineCore): { any(): Promise<boolean>; stop(): void } {
  let known: boolean | undefined;
  let generation = 0;
  const stop = core.bus.subscribe((e) => {
    if (e.entity === 'sync_lane' && !known) {
      known = undefined;
      generation++;
    }
  });
  return {
    async any() {
      if (known !== undefined) return known;
      const asked = generation;
      const found = (await recordsOfKind(core, 'sync_lane')).length > 0;
      if (asked === generation) known = found;
      return found;
    },
    stop,
  };
}
