import { afterEach, describe, expect, it } from 'vitest';
import { card } from '../helpers/cards';
import { until } from '../serial/helpers';
import type { TestEngine } from '../helpers/harness';
import { openRegister, type RegisterRig } from '../helpers/register';

let rig: RegisterRig;
let again: TestEngine | undefined;
afterEach(async () => {
  await again?.close();
  again = undefined;
  await rig?.close();
});

/** A card tender whose customer never comes: the tender stays pending while the process runs. */
async function stuckCardTender(r: RegisterRig, scan: string) {
  const sale = await r.sale(scan);
  r.terminal.gate = new Promise(() => undefined);
  void r.tender(sale, { type: 'card' }).catch(() => undefined);
  const tender = await until(async () => (await r.register.sale(sale.id)).pending_tender, 'the pending tender');
  return { sale, tender };
}

describe('a stop in the middle of a card payment', () => {
  it('leaves a running tender alone, and after a restart fails it when the gateway has nothing under its reference', async () => {
    rig = await openRegister();
    const { sale, tender } = await stuckCardTender(rig, '3001');
    expect(await rig.register.recover()).toBe(0);
    expect((await rig.register.sale(sale.id)).pending_tender).toBe(tender);
    again = await rig.t.restart();
    expect(await again.engine.register.recover()).toBe(1);
    const after = await again.engine.register.sale(sale.id);
    expect(after).toMatchObject({ status: 'open', pending_tender: null, totals: { balance_cents: 1699, paid_cents: 0 } });
    expect(after.tenders[0]).toMatchObject({ status: 'failed', error: { code: 'interrupted' } });
    expect(after.tenders[0]!.error!.message).toMatch(/Nothing was charged/);
    expect(after.allowed.tenders).toContain('cash');
  });

  it('after a restart, takes the payment the gateway recorded under the tender\'s reference as approved', async () => {
    rig = await openRegister();
    const { sale, tender } = await stuckCardTender(rig, '3002');
    again = await rig.t.restart();
    const charged = await again.engine.gateway.transact('sale', { order: sale.id, amount_cents: 1250, credit_card: card(), transaction_reference: tender, unique_reference: tender }, null);
    expect(charged.approved).toBe(true);
    await again.engine.tick();
    const after = await again.engine.register.sale(sale.id);
    expect(after).toMatchObject({ status: 'paid', pending_tender: null });
    expect(after.tenders[0]).toMatchObject({ status: 'approved', transaction: charged.body.transaction, amount_cents: 1250 });
    expect((await again.engine.orders.view(sale.id))?.draft).toBe(false);
  });
});
