import { describe, expect, it } from 'vitest';
import { useHarness } from '../helpers/harness';
import { uid } from '../helpers/receivables';
import { inUnitOfWork } from '../../src/engine/receivables/unit-of-work';

const ctx = useHarness();

/**
 * A file import's units look a customer up by the id an earlier unit met (ReceivablesUnit's
 * knownCustomerIds). The customer may have been renamed between two units: the hint must then
 * never stand for the identifier it no longer has.
 */
describe('the customer-id hint of an import run', () => {
  it('finds the customer by its hinted id, and never a customer renamed since or another id', async () => {
    const { core, account, receivables } = ctx.t.engine;
    const [a, c, renamed] = [uid('A'), uid('C'), uid('B')];
    await receivables.importCustomer({ identifier: a, name: 'Ann' });
    await receivables.importCustomer({ identifier: c, name: 'Cy' });
    const known = new Map<string, string>();
    await inUnitOfWork(core, account, async (unit) => {
      await unit.customerByIdentifier(a);
      await unit.customerByIdentifier(c);
      for (const [identifier, id] of unit.customerIdsSeen()) known.set(identifier, id);
    });
    expect([...known.keys()].sort()).toEqual([a, c].sort());

    const hinted = await inUnitOfWork(core, account, async (unit) => {
      unit.knownCustomerIds = known;
      return (await unit.customerByIdentifier(a))?.data.name;
    });
    expect(hinted).toBe('Ann');

    await receivables.updateIdentifier(a, renamed);
    const stale = new Map([...known, [`${c}-gone`, known.get(a)!]]);
    const after = await inUnitOfWork(core, account, async (unit) => {
      unit.knownCustomerIds = stale;
      return {
        old: (await unit.customerByIdentifier(a))?.id,
        wrongId: (await unit.customerByIdentifier(`${c}-gone`))?.id,
        now: (await unit.customerByIdentifier(renamed))?.data.name,
        other: (await unit.customerByIdentifier(c))?.data.name,
      };
    });
    expect(after).toEqual({ old: undefined, wrongId: undefined, now: 'Ann', other: 'Cy' });
  });
});
