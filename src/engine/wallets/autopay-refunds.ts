import type { EngineCore } from '../core';
import type { Gateway } from '../gateway';
import { getRecord, putRecord } from '../records';
import type { ReceivablesPort } from './autopay-port';

const REFUNDS_SEEN = 'autopay_refunds_seen';
/** Outbox pages read per tick: a data folder from before this rule catches up over several ticks. */
const PAGES_PER_TICK = 20;
const PAGE = 500;

interface TxEvent {
  id: string;
  watermark: number;
  type: string;
  key: string;
  data?: { summary?: { action?: string; state?: string } };
}

/**
 * A payment autopay recorded no longer pays its invoices in full once its transaction is refunded
 * or voided through the gateway: the cardholder has the money back, so the invoices must be owed
 * again or the shop never collects them. Each completed refund or void since the last one seen
 * (the outbox's transaction events) sets what the payments recorded with its sale keep: the sale's
 * amount less what was refunded, taken off the last payment first. Worked out from the sale as it
 * stands, so a tick repeated or resumed after a failure changes nothing more.
 */
export async function takeBackRefundedPayments(core: EngineCore, gateway: Gateway, port: ReceivablesPort): Promise<void> {
  if (!port.keepOfPayment) return;
  let after = (await getRecord<{ watermark: number }>(core, REFUNDS_SEEN, 'last'))?.data.watermark ?? 0;
  for (let pages = 0; pages < PAGES_PER_TICK; pages++) {
    const page = await core.find<TxEvent & { [k: string]: unknown }>('events', {
      selector: { entity: 'transaction', watermark: { $gt: after } },
      sort: [{ entity: 'asc' }, { watermark: 'asc' }],
      limit: PAGE,
    });
    if (page.length === 0) return;
    const sales = new Set<string>();
    for (const e of page) {
      const s = e.data?.summary;
      if (e.type !== 'transaction.created' || s?.state !== 'completed' || (s.action !== 'refund' && s.action !== 'void')) continue;
      const parent = (await gateway.record(e.key))?.parent;
      if (parent) sales.add(parent);
    }
    for (const token of sales) await settleSale(gateway, port, token);
    after = page[page.length - 1]!.watermark;
    const seen = after;
    await core.mutate((tx) => putRecord(tx, REFUNDS_SEEN, 'last', { watermark: seen }, { type: 'autopay.refunds_seen', entity: 'autopay', key: 'last' }));
  }
}

async function settleSale(gateway: Gateway, port: ReceivablesPort, token: string): Promise<void> {
  const sale = await gateway.record(token);
  if (!sale || sale.payments.length === 0) return;
  let back = sale.voided_by ? sale.amount_cents : sale.refunded_cents;
  const reason = sale.voided_by ? `Transaction ${token} voided` : `Transaction ${token} refunded (${back} of ${sale.amount_cents} in minor units)`;
  for (const p of [...sale.payments].reverse()) {
    const take = Math.min(back, p.amount_cents);
    back -= take;
    if (take > 0) await port.keepOfPayment!(p.identifier, p.amount_cents - take, reason);
  }
}
