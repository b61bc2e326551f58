import type { EngineCore, Tx } from '../core';
import type { Gateway, TxData } from '../gateway';
import { getTx } from '../gateway/transaction-store';
import { getRecord, putRecord } from '../records';
import type { OwedAgainOfPayment, PutBack, ReceivablesPort, RefundCause } from './autopay-port';
import { holdInvoices, holdInvoicesInTx } from './autopay-holds';

const SALES_SEEN = 'autopay_sales_seen';
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
 * What happens to an autopay sale after its invoicing payment was recorded, followed through the
 * outbox's transaction events since the last one seen:
 * - Refunded or voided through the gateway: the cardholder has the money back, so the invoices must
 *   be owed again or the shop never collects them. The payments recorded with the sale keep the
 *   sale's amount less what was refunded, taken off the last payment first. A refund or void made
 *   here has done so in its own unit of work already (takeRefundOffPaymentsInTx); this catches
 *   those that reached the store otherwise (a lane's, replicated).
 * - A bank payment settled: its payments, IN PROGRESS until then, are PAID. (One the bank returns
 *   later is reversed by the returns rule, autopay.ts.)
 * Worked out from the sale as it stands, so a tick repeated or resumed after a failure changes
 * nothing more.
 */
export async function followAutopaySales(core: EngineCore, gateway: Gateway, port: ReceivablesPort): Promise<void> {
  if (!port.keepOfPayment || !port.settlePayment) return;
  let after = (await getRecord<{ watermark: number }>(core, SALES_SEEN, 'last'))?.data.watermark ?? 0;
  for (let pages = 0; pages < PAGES_PER_TICK; pages++) {
    const page = await core.find<TxEvent & { [k: string]: unknown }>('events', {
      selector: { entity: 'transaction', watermark: { $gt: after } },
      sort: [{ entity: 'asc' }, { watermark: 'asc' }],
      limit: PAGE,
    });
    if (page.length === 0) return;
    const refunded = new Set<string>();
    const settled = new Set<string>();
    for (const e of page) {
      const s = e.data?.summary;
      if (s?.state !== 'completed') continue;
      if (e.type === 'transaction.updated' && s.action === 'sale') settled.add(e.key);
      if (e.type !== 'transaction.created' || (s.action !== 'refund' && s.action !== 'void')) continue;
      const parent = (await gateway.record(e.key))?.parent;
      if (parent) refunded.add(parent);
    }
    for (const token of settled) await paidOnceSettled(gateway, port, token);
    for (const token of refunded) await followRefund(core, gateway, port, token);
    after = page[page.length - 1]!.watermark;
    const seen = after;
    await core.mutate((tx) => putRecord(tx, SALES_SEEN, 'last', { watermark: seen }, { type: 'autopay.sales_seen', entity: 'autopay', key: 'last' }));
  }
}

/**
 * What each payment recorded with a sale keeps once `back` of the sale went back to the payer: the
 * last payment first. The one rule both the refund and its confirmation (owedAgainIf) go by.
 */
function keptOfPayments(sale: TxData, back: number): Array<{ identifier: string; keepCents: number }> {
  const kept: Array<{ identifier: string; keepCents: number }> = [];
  for (const p of [...sale.payments].reverse()) {
    const take = Math.min(back, p.amount_cents);
    back -= take;
    if (take > 0) kept.push({ identifier: p.identifier, keepCents: p.amount_cents - take });
  }
  return kept;
}

/**
 * The refunded part comes off the payments, and autopay leaves the invoices it put back owing alone
 * (autopay-holds.ts). `keep` changes one payment, `hold` records the holds, each in its unit of work.
 * `transaction` is the refund or void taken off, when it is known alone.
 */
async function keepWhatWasNotRefunded(
  sale: TxData | undefined,
  transaction: string | null,
  keep: (identifier: string, keepCents: number, reason: string, cause: RefundCause) => Promise<PutBack>,
  hold: (putBack: PutBack, cause: 'voided' | 'refunded') => Promise<void>,
): Promise<void> {
  if (!sale || sale.payments.length === 0) return;
  const back = sale.voided_by ? sale.amount_cents : sale.refunded_cents;
  const reason = sale.voided_by ? `Transaction ${sale.token} voided` : `Transaction ${sale.token} refunded (${back} of ${sale.amount_cents} in minor units)`;
  const cause: RefundCause = sale.voided_by
    ? { kind: 'void', sale_token: sale.token, transaction_token: sale.voided_by }
    : { kind: 'refund', sale_token: sale.token, transaction_token: transaction };
  for (const p of keptOfPayments(sale, back)) {
    await hold(await keep(p.identifier, p.keepCents, reason, cause), sale.voided_by ? 'voided' : 'refunded');
  }
}

function followRefund(core: EngineCore, gateway: Gateway, port: ReceivablesPort, token: string): Promise<void> {
  return gateway.record(token).then((sale) =>
    keepWhatWasNotRefunded(
      sale,
      null,
      (identifier, keepCents, reason, cause) => port.keepOfPayment!(identifier, keepCents, reason, cause),
      (putBack, cause) => holdInvoices(core, putBack.customer_identifier, putBack.invoices, cause, token),
    ),
  );
}

/**
 * A refund or void of a sale made here (the gateway's reversal observer), in its own unit of work:
 * the payments say so when it answers, and refunds racing each other are taken off one at a time,
 * each by its own amount, since units are serialised. Read in the unit, the sale counts this refund.
 * `made` is that refund or void; none when refunds made before the sale's payment was linked come off together.
 */
export async function takeRefundOffPaymentsInTx(core: EngineCore, port: ReceivablesPort | undefined, tx: Tx, parent: TxData, made?: TxData): Promise<void> {
  if (!port?.keepOfPaymentInTx || parent.payments.length === 0) return;
  await keepWhatWasNotRefunded(
    await getTx(tx, parent.token),
    made?.token ?? null,
    (identifier, keepCents, reason, cause) => port.keepOfPaymentInTx!(tx, identifier, keepCents, reason, cause),
    (putBack, cause) => holdInvoicesInTx(core, tx, putBack.customer_identifier, putBack.invoices, cause, parent.token),
  );
}

/**
 * The invoices a refund of `refundCents` more (or, null, a void) of the sale would put back owing,
 * and by how much, changing nothing: by keptOfPayments and the receivables' own takeOffPlan.
 */
export async function owedAgainIf(port: ReceivablesPort | undefined, sale: TxData, refundCents: number | null): Promise<OwedAgainOfPayment[]> {
  if (!port?.owedAgainIfKept || sale.payments.length === 0) return [];
  const back = refundCents === null ? sale.amount_cents : Math.min(sale.amount_cents, sale.refunded_cents + Math.max(0, refundCents));
  const out: OwedAgainOfPayment[] = [];
  for (const p of keptOfPayments(sale, back)) {
    const owed = await port.owedAgainIfKept(p.identifier, p.keepCents);
    if (owed && owed.invoices.length > 0) out.push(owed);
  }
  return out;
}

async function paidOnceSettled(gateway: Gateway, port: ReceivablesPort, token: string): Promise<void> {
  const sale = await gateway.record(token);
  if (!sale || sale.payments.length === 0 || sale.payment_method !== 'bank_account') return;
  if (sale.state !== 'completed' || sale.settlement.status !== 'settled') return;
  for (const p of sale.payments) await port.settlePayment!(p.identifier);
}
