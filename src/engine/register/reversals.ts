import type { EngineCore, Tx } from '../core';
import { fail, isEngineError, notFound } from '../errors';
import { getRecord, putRecord } from '../records';
import type { RefundInput, Reversal, Sale, SettleInput, VoidInput } from '../../shared/schemas/register';
import { KIND, OUTSIDE_REGISTER, reversalDocument, type AllocationData, type DocumentData, type JournalEntry, type PersonRef, type ReversalData, type ReversalLineData, type SaleData, type ShiftData, type TenderData } from './model';
import { taxesByRate } from './taxes';
import { returnedPart } from './money';
import { formatMoney, type MoneyFormat } from '../../shared/money';
import { refundFailureMessage } from './messages';
import { liveLines, person, refundableOf, requireSale, saleView, saveSale, totalsOf } from './sales';
import type { TenderDeps } from './tenders';
import { reversalView } from './views';
import { voidRefusal, type TxData } from '../gateway';

/**
 * Voids and refunds: money goes back to the tenders the sale was paid with.
 *
 * - A refund returns lines (all or some units); its amount is the returned units' share of each
 *   line's net and tax (cumulative rounding: a line returned in parts gives back exactly its total).
 * - A void reverses a whole sale: an open sale's payments so far, or a paid sale with no refunds
 *   yet, whose card and gift card payments must still be voidable (same processing day, before
 *   the cut-off or the day's Z); otherwise it must be refunded.
 * - The amount is spread over the sale's tenders in reverse order of payment (the last tender
 *   first), each up to what it paid minus what went back to it already.
 * - Card and gift card parts go through the gateway: a void when the whole tender goes back while
 *   its transaction is still voidable, else a refund of the part. Cash parts come from the drawer
 *   (it opens); cheque and other parts are recorded for the shop to settle.
 * - A gateway part that fails leaves the reversal `incomplete` with the amount still owed; it is
 *   settled by retrying, or in cash.
 */
export interface ReversalOutcome {
  sale: Sale;
  reversal: Reversal | null;
  message: string;
}


interface Prepared {
  sale: SaleData;
  reversal: ReversalData;
  shift: ShiftData;
}

/**
 * A gift card tender a lane took apart from the hub's copy: approved here with no transaction, the
 * hub debiting the card when the spend reached it. Money goes back to that card on the hub.
 */
const takenApart = (tender: TenderData | undefined): boolean => tender?.type === 'gift_card' && !tender.transaction;

/** Whether the tender's payment can still be voided: the gateway's one rule (its processing day's cut-off). */
async function voidable(deps: TenderDeps, tender: TenderData, now: number): Promise<boolean> {
  if (!tender.transaction) return false;
  // A lane's gift card paid on the hub: the hub's record and rule say.
  if (tender.request?.via === 'hub') return (await deps.hubGift?.voidable(tender.transaction).catch(() => false)) ?? false;
  const t = await deps.gateway.record(tender.transaction);
  return !!t && voidRefusal(t, now) === null;
}

/**
 * What of a card or gift card tender's payment went back outside the register: refunded or voided
 * in the back office or through the API, on the same gateway transaction. The register's own
 * refunds are in the tender; the gateway's record has every one. Without this, the register
 * offered the whole sale again (and cash when the card refused it) after the back office had
 * already refunded part of it.
 */
async function refundedOutside(deps: TenderDeps, t: TenderData): Promise<number> {
  if (!watchedOutside(t)) return 0;
  const record = await deps.gateway.record(t.transaction);
  if (!record) return 0;
  const gatewayLeft = record.state === 'cancelled' ? 0 : Math.max(0, record.amount_cents - record.refunded_cents);
  // The gateway's payment carries the tip on top of the tender's amount: what is gone from that
  // whole is what went back outside (a refund there comes off the sale's part before the tip).
  return Math.max(0, t.amount_cents + (t.tip_cents ?? 0) - t.refunded_cents - gatewayLeft);
}

/**
 * How a refund or void made outside the register splits between the sale and the card tip: the
 * sale's part goes back first, down to the tip, which stays until money beyond the sale's part
 * goes back (a void of the whole, or a refund of more than the sale's part left).
 */
function outsideSplit(tipCents: number, gatewayLeftBefore: number, amount: number): { sale: number; tip: number } {
  const saleLeft = Math.max(0, gatewayLeftBefore - tipCents);
  const sale = Math.min(amount, saleLeft);
  return { sale, tip: amount - sale };
}

/**
 * A refund or void of one of the register's card or gift card payments made outside the register
 * (the back office's Refund, an ERP through the API), journalled in the gateway's unit of work so
 * the X and Z reports count it:
 * - on the lane of the original sale (the lane whose card net and batch it comes off), in that
 *   lane's period open when the refund is made: "the day" is the refund's own time, not the sale's;
 *   a sale closed by an earlier Z gives its refund to today's Z;
 * - as money back on the tender (its card brand: the batch carries the refund) and as a refund (or
 *   void) of sales, by OUTSIDE_REGISTER, named so on the report; no items came back, so no tax:
 *   when the register later returns the items, their tax goes back then (journalSaleReversal).
 * The register's own refunds and voids carry their allocation's reference and are journalled when
 * they finish (finishInTx); they are skipped here. The tenders refundedOutside watches are the ones
 * watched here, so the preview and the reports agree on what went back outside.
 */
export async function journalOutsideInTx(deps: TenderDeps, tx: Tx, made: TxData, parent: TxData): Promise<void> {
  if (!made.order) return;
  const sale = (await getRecord<SaleData>(tx, KIND.sale, made.order.identifier))?.data;
  const tender = sale?.tenders.find((t) => t.transaction === parent.token && (t.status === 'approved' || t.status === 'reversed'));
  if (!sale || !tender || !watchedOutside(tender)) return;
  const own = made.transaction_reference && sale.reversals.some((r) => r.allocations.some((a) => a.tender === tender.id && a.reference === made.transaction_reference));
  if (own) return;
  const kind: 'refund' | 'void' = made.action === 'void' ? 'void' : 'refund';
  // A void gives back the whole card payment, its tip too (a tip is not a sale); a refund beyond
  // the sale's part left does too.
  const { sale: amount, tip } = outsideSplit(tender.tip_cents ?? 0, Math.max(0, parent.amount_cents - parent.refunded_cents), made.amount_cents);
  const base = { sale: sale.id, kind, cashier: OUTSIDE_REGISTER, outside: true as const, at: tx.at };
  // Keyed by the refund: a hub's refund of a lane's sale is journalled on the hub and again on the
  // lane when it comes down (docs/sync.md); the lane's entries, pushed up, replace the hub's.
  await deps.registers.journalInTx(tx, sale.laneid, { ...base, type: 'sale_reversal', total_cents: amount, tax_cents: 0, taxes: [] }, `outside-${made.token}-sale`);
  await deps.registers.journalInTx(tx, sale.laneid, {
    ...base,
    type: 'reversal',
    reversal: made.token,
    tender: tender.id,
    tender_type: tender.type,
    label: tender.type === 'card' ? (tender.card?.brand ?? 'Card') : 'Gift card',
    amount_cents: amount,
    tip_cents: tip,
    transaction: made.token,
  }, `outside-${made.token}-tender`);
}

/**
 * A refund or void outside the register (the back office, the gateway API) of a card or gift card
 * payment of a sale still open at the register is refused, nothing moved: the open sale would go on
 * counting the payment as paid, and the next tender would close it short of its total. While the
 * sale is open its payments go back at the register (void the sale there); once it is paid, a
 * refund outside is journalled (journalOutsideInTx). A gateway reversal check: it runs in the
 * refund's or void's own unit of work, before anything is written. The register's own void of an
 * open sale marks the sale voided before its gateway steps, so they are not refused here.
 */
export async function refuseOutsideWhileOpenInTx(tx: Tx, parent: TxData, action: 'refund' | 'void'): Promise<void> {
  if (!parent.order) return;
  const sale = (await getRecord<SaleData>(tx, KIND.sale, parent.order.identifier))?.data;
  if (!sale || sale.status !== 'open') return;
  // Matched by the transaction once recorded, or by the tender's reference while it is still pending.
  const tender = sale.tenders.find((t) => (t.transaction === parent.token || (!!parent.transaction_reference && t.id === parent.transaction_reference)) && (t.status === 'approved' || t.status === 'pending'));
  if (!tender) return;
  throw fail.gateway(
    'register_sale_open',
    `Transaction ${parent.token} pays sale ${sale.number}, still open at lane ${sale.laneid}'s register: it cannot be ${action === 'void' ? 'voided' : 'refunded'} here while the sale is open. Void the sale at the register (its payments go back there), or finish it there and then refund it. Nothing was given back.`,
  );
}

/**
 * The refunds and voids done at this lane in a period that still owe the customer money (a gateway
 * step failed: `incomplete`). A Z is refused over them, as over one still running: its figures would
 * count the money as given back, and the cash that settles it later would land on the next Z with
 * nothing behind it. Each is started on the lane's journal in the period it was made (its sale's
 * reversal, or the open sale's void), so the period's entries name them all.
 */
export async function owedReversalsInTx(tx: Tx, laneid: string, entries: JournalEntry[]): Promise<Array<{ sale: SaleData; reversal: ReversalData }>> {
  const sales = new Set(entries.filter((e) => e.type === 'sale_reversal' || e.type === 'open_void').map((e) => e.sale));
  const owed: Array<{ sale: SaleData; reversal: ReversalData }> = [];
  for (const id of sales) {
    const sale = (await getRecord<SaleData>(tx, KIND.sale, id))?.data;
    for (const reversal of sale?.reversals ?? []) if (sale && reversal.laneid === laneid && reversal.status === 'incomplete') owed.push({ sale, reversal });
  }
  return owed;
}

/**
 * The lane whose register gave back a card payment by this gateway refund or void (`made`), or
 * undefined when no register did (the back office, the API). The gateway's record carries the
 * original payment's terminal, so its lane; a refund at another lane's register is that lane's.
 */
export async function registerLaneOfReversal(reader: Tx | EngineCore, made: TxData): Promise<string | undefined> {
  if ((made.action !== 'refund' && made.action !== 'void') || !made.order || !made.transaction_reference) return undefined;
  const sale = (await getRecord<SaleData>(reader, KIND.sale, made.order.identifier))?.data;
  return sale?.reversals.find((r) => r.allocations.some((a) => a.transaction === made.token || a.reference === made.transaction_reference))?.laneid;
}

/** The tenders whose payment can go back outside the register: on this install's gateway. */
const watchedOutside = (t: TenderData): t is TenderData & { transaction: string } => !!t.transaction && t.request?.via !== 'hub' && (t.type === 'card' || t.type === 'gift_card');

/**
 * Spreads `amount` over the sale's paid tenders, last tender first. What the tenders no longer hold
 * because it went back outside the register is `short`: allowed only for a refund that returns
 * everything left on the sale (`last`), where that money is the part of these goods already given
 * back; otherwise the cashier is told how much can go back here.
 */
async function allocate(deps: TenderDeps, sale: SaleData, reversalId: string, amount: number, options: { strictVoid: boolean; openVoid: boolean; now: number; words: MoneyFormat; last: boolean }): Promise<{ allocations: AllocationData[]; short: number }> {
  const { strictVoid, now, words } = options;
  const out: AllocationData[] = [];
  let left = amount;
  let outside = 0;
  for (const t of [...sale.tenders].reverse()) {
    if (left <= 0) break;
    if (t.status !== 'approved') continue;
    const elsewhere = await refundedOutside(deps, t);
    outside += elsewhere;
    if (strictVoid && elsewhere > 0) {
      throw fail.precondition('refunded_outside_register', `${formatMoney(elsewhere, sale.currency, words)} of ${t.label} was already refunded outside the register (in the back office or through the API), so this sale cannot be voided. Refund what is left instead.`);
    }
    const remaining = t.amount_cents - t.refunded_cents - elsewhere;
    const take = Math.min(left, remaining);
    if (take <= 0) continue;
    let method: AllocationData['method'];
    if (t.type === 'cash') method = 'cash';
    else if (t.type === 'cheque' || t.type === 'other') method = 'external';
    else {
      const whole = take === t.amount_cents && t.refunded_cents === 0;
      const canVoid = whole && (await voidable(deps, t, now));
      // A tender taken apart has no transaction to void: the whole of it goes back to its card as a refund.
      if (strictVoid && !canVoid && !takenApart(t)) {
        throw fail.precondition('void_window_closed', `${t.label} was already sent in the day's card batch, so this sale cannot be voided. Refund it instead.`);
      }
      method = canVoid ? 'void' : 'refund';
    }
    out.push({
      tender: t.id,
      tender_type: t.type,
      label: t.label,
      amount_cents: take,
      method,
      status: 'pending',
      transaction: null,
      error: null,
      reference: method === 'void' || method === 'refund' ? `${reversalId}-${t.id}`.slice(0, 100) : null,
      tip_cents: tipBack(options.openVoid, method, t.tip_cents),
    });
    left -= take;
  }
  if (left > 0 && outside > 0) {
    // Only when all that is missing went back outside (a gap of another kind is still refused).
    if (options.last && left <= outside) return { allocations: out, short: left };
    throw fail.precondition(
      'refunded_outside_register',
      `${formatMoney(outside, sale.currency, words)} of this sale's card payments was already refunded outside the register (in the back office or through the API): at most ${formatMoney(amount - left, sale.currency, words)} can go back here. Refund fewer items, or everything left on the sale (what went back outside is then taken off).`,
    );
  }
  if (left > 0) throw fail.internal('refund_unallocated', 'The refund could not be matched to the sale\'s payments');
  return { allocations: out, short: 0 };
}

function refundLines(sale: SaleData, input: RefundInput): ReversalLineData[] {
  const wanted = new Map<number, number>();
  if (input.all) {
    for (const l of liveLines(sale)) if (l.quantity > l.returned_quantity) wanted.set(l.line, l.quantity - l.returned_quantity);
  } else {
    if (!input.lines?.length) throw fail.invalid('lines_required', 'Choose the lines to refund, or all', [{ field: 'lines', message: 'required unless all is true' }]);
    for (const r of input.lines) wanted.set(r.line, (wanted.get(r.line) ?? 0) + r.quantity);
  }
  const out: ReversalLineData[] = [];
  for (const [n, q] of wanted) {
    const l = sale.lines.find((x) => x.line === n);
    if (!l || l.voided) throw fail.invalid('line_not_refundable', `Line ${n} is not on sale ${sale.number}`, [{ field: 'lines', message: `line ${n}` }]);
    const left = l.quantity - l.returned_quantity;
    if (q > left) throw fail.precondition('quantity_exceeds_sold', `Line ${n} (${l.description}): ${q} to refund, but only ${left} of ${l.quantity} not refunded yet`);
    const net = returnedPart(l.net_cents, l.quantity, l.returned_quantity, q);
    const tax = returnedPart(l.tax_cents, l.quantity, l.returned_quantity, q);
    out.push({ line: n, description: l.description, quantity: q, net_cents: net, tax_cents: tax, total_cents: net + tax });
  }
  if (out.length === 0) throw fail.precondition('nothing_to_refund', `Everything on sale ${sale.number} was refunded already`);
  return out.sort((a, b) => a.line - b.line);
}

function withReturned(sale: SaleData, lines: ReversalLineData[]): SaleData {
  return {
    ...sale,
    lines: sale.lines.map((l) => {
      const r = lines.find((x) => x.line === l.line);
      return r ? { ...l, returned_quantity: l.returned_quantity + r.quantity, returned_net_cents: l.returned_net_cents + r.net_cents, returned_tax_cents: l.returned_tax_cents + r.tax_cents } : l;
    }),
  };
}

function requireNoPending(sale: SaleData): void {
  if (sale.pending_tender) throw fail.conflict('tender_in_progress', 'A payment is in progress on this sale: wait for it to finish, or cancel it on the terminal');
  if (sale.pending_reversal) throw fail.conflict('reversal_in_progress', 'A refund or void is already in progress on this sale');
}

function newReversal(deps: TenderDeps, tx: Tx, sale: SaleData, shift: ShiftData, kind: ReversalData['kind'], lines: ReversalLineData[], amount: number, reason: string | undefined, approvedBy: PersonRef | null = null): ReversalData {
  return {
    id: deps.core.ids.token(),
    number: sale.reversals.length + 1,
    document: '',
    kind,
    status: 'pending',
    reason: reason?.trim() || null,
    lines,
    amount_cents: amount,
    refunded_cents: 0,
    outstanding_cents: 0,
    allocations: [],
    cashier: person(shift),
    approved_by: approvedBy,
    laneid: shift.laneid,
    drawer_opened: false,
    created_at: tx.at,
    completed_at: null,
  };
}

async function begin(deps: TenderDeps, tx: Tx, prepared: Prepared, dryRun: boolean, words: MoneyFormat = {}): Promise<ReversalOutcome | Prepared> {
  const { shift } = prepared;
  let { sale, reversal } = prepared;
  // Everything left on the sale goes back: what was refunded outside the register is that much of it already.
  const last = reversal.kind === 'refund' && refundableOf(withReturned(sale, reversal.lines)) === 0;
  const { allocations, short } = await allocate(deps, sale, reversal.id, reversal.amount_cents, { strictVoid: reversal.kind === 'void' && sale.status === 'paid', openVoid: isOpenVoid(sale, reversal), now: tx.now, words, last });
  reversal.allocations = allocations;
  if (short > 0) reversal = { ...reversal, amount_cents: reversal.amount_cents - short };
  if (dryRun) {
    const outside = short > 0 ? ` ${formatMoney(short, sale.currency, words)} of these items went back earlier, outside the register.` : '';
    return { sale: saleView(deps, sale), reversal: reversalView({ ...reversal, status: 'planned' }), message: `${planMessage(reversal, sale.currency, words)}${outside}` };
  }
  // Its own document number on the lane where it is done, from the lane's refund or void series.
  const lane = await deps.registers.getInTx(tx, shift.laneid);
  const seq = (reversal.kind === 'refund' ? lane.refund_seq ?? 0 : lane.void_seq ?? 0) + 1;
  await deps.registers.putInTx(tx, reversal.kind === 'refund' ? { ...lane, refund_seq: seq } : { ...lane, void_seq: seq });
  reversal = { ...reversal, document: reversalDocument(shift.laneid, reversal.kind, seq) };
  await putRecord(tx, KIND.document, reversal.document!, { sale: sale.id, reversal: reversal.number } satisfies DocumentData, { type: 'pos_document.created', entity: 'pos_document', key: reversal.document! }, sale.id);
  // The sale side is booked now (the goods are back, the sale is voided); the money follows.
  sale = withReturned(sale, reversal.lines);
  sale = { ...sale, reversals: [...sale.reversals, reversal], pending_reversal: reversal.id };
  if (sale.paid_at) await journalSaleReversal(deps, tx, sale, reversal);
  else if (reversal.kind === 'void') await journalOpenVoid(deps, tx, sale, reversal.cashier);
  if (reversal.kind === 'void') {
    sale = { ...sale, status: 'voided', voided_at: tx.at };
    const own = await deps.registers.getInTx(tx, sale.laneid);
    if (own.open_sale === sale.id) await deps.registers.putInTx(tx, { ...own, open_sale: null });
  } else {
    sale = { ...sale, status: refundableOf(sale) === 0 ? 'refunded' : 'partially_refunded' };
  }
  await markPending(deps, tx, shift.laneid, sale.id);
  sale = await saveSale(deps, tx, sale, reversal.kind === 'void' ? 'pos_sale.voided' : 'pos_sale.refunded');
  reversal = sale.reversals[sale.reversals.length - 1]!;
  return { sale, reversal, shift };
}

async function markPending(deps: TenderDeps, tx: Tx, laneid: string, saleId: string): Promise<void> {
  const state = await deps.registers.getInTx(tx, laneid);
  await deps.registers.putInTx(tx, { ...state, pending_reversals: [...(state.pending_reversals ?? []).filter((s) => s !== saleId), saleId] });
}

/** A reversal's lines with their tax rates (from the sale's lines). */
export function reversalLinesWithRates(sale: SaleData, reversal: ReversalData): Array<ReversalLineData & { tax_rate: number }> {
  return reversal.lines.map((rl) => ({ ...rl, tax_rate: sale.lines.find((l) => l.line === rl.line)?.tax_rate ?? 0 }));
}

/**
 * The X and Z reports count open sales voided (a basket rung up, then voided) apart from the voids
 * of paid sales: a manager watches them, but they were never sales, so they come off no total.
 */
async function journalOpenVoid(deps: TenderDeps, tx: Tx, sale: SaleData, cashier: PersonRef): Promise<void> {
  await deps.registers.journalInTx(tx, sale.laneid, { type: 'open_void', sale: sale.id, number: sale.number, cashier, total_cents: totalsOf(sale).total_cents, at: tx.at });
}

async function journalSaleReversal(deps: TenderDeps, tx: Tx, sale: SaleData, reversal: ReversalData): Promise<void> {
  const taxes = taxesByRate(reversalLinesWithRates(sale, reversal));
  const lines = reversal.lines.reduce((s, l) => s + l.total_cents, 0);
  // A refund of everything left gives back less than its lines when part went back outside the
  // register: that part was counted when it was made (journalOutsideInTx), so only the rest counts
  // here. The lines' tax all goes back here (the outside refund named no items, so carried none).
  const short = reversal.kind === 'refund' ? Math.max(0, lines - reversal.amount_cents) : 0;
  await deps.registers.journalInTx(tx, reversal.laneid, {
    type: 'sale_reversal',
    sale: sale.id,
    kind: reversal.kind,
    cashier: reversal.cashier,
    total_cents: lines - short,
    tax_cents: reversal.lines.reduce((s, l) => s + l.tax_cents, 0),
    taxes,
    at: tx.at,
  });
}

function planMessage(r: ReversalData, currency: string, words: MoneyFormat): string {
  const money = (c: number) => formatMoney(c, currency, words);
  const tip = (a: AllocationData) => (a.tip_cents ? `, its ${money(a.tip_cents)} tip included` : '');
  const parts = r.allocations.map((a) => `${money(a.amount_cents + (a.tip_cents ?? 0))} to ${a.method === 'cash' ? 'cash from the drawer' : a.label}${a.method === 'void' ? ` (void${tip(a)})` : a.tip_cents ? ` (refund${tip(a)})` : ''}`);
  return `${r.kind === 'void' ? 'Void' : 'Refund'} of ${money(r.amount_cents + tipOf(r))}: ${parts.join(', ')}.`;
}

/** The void of a sale never paid in full (it was open): the sale never happened. */
const isOpenVoid = (sale: SaleData, reversal: ReversalData): boolean => reversal.kind === 'void' && !sale.paid_at;

/**
 * The card tip that goes back with a reversal's card step: all of it with a void (the whole card
 * payment is cancelled) and with every step of the void of an open sale, a refund too once the
 * void window closed (the sale never happened: everything charged goes back); none with any
 * other refund (it gives back the sale's part only, the tip stays).
 */
function tipBack(openVoid: boolean, method: AllocationData['method'], tip: number | undefined): number {
  return method === 'void' || (openVoid && method === 'refund') ? (tip ?? 0) : 0;
}

/** Tips that go back with a reversal (its card voids, and the card refunds of an open sale's void). */
export function tipOf(r: ReversalData, status?: AllocationData['status']): number {
  return r.allocations.filter((a) => !status || a.status === status).reduce((s, a) => s + (a.tip_cents ?? 0), 0);
}

/** `method`: what the gateway did (a void past the cut-off is done as a refund of the same amount). */
type StepResult = { status: 'done'; transaction: string; method?: 'void' | 'refund' } | { status: 'failed'; error: { code: string; message: string } };

/** The gateway steps of a reversal, one after another (each is idempotent by its reference). */
async function runGatewaySteps(deps: TenderDeps, sale: SaleData, reversal: ReversalData, actor: string | null): Promise<Map<number, StepResult>> {
  const results = new Map<number, StepResult>();
  for (const [i, a] of reversal.allocations.entries()) {
    if (a.status !== 'pending' || (a.method !== 'void' && a.method !== 'refund')) continue;
    const tender = sale.tenders.find((t) => t.id === a.tender);
    const attempt = async (method: 'void' | 'refund'): Promise<StepResult> => {
      if (tender && takenApart(tender) && deps.hubGift) {
        const given = await deps.hubGift.refundOffline({ tender: tender.id, amount_cents: a.amount_cents, reference: a.reference ?? '' });
        return { status: 'done', transaction: given.result.body.transaction, method: 'refund' };
      }
      const request = { transaction: tender?.transaction ?? '', ...(method === 'refund' ? { amount_cents: a.amount_cents + tipBack(isOpenVoid(sale, reversal), 'refund', a.tip_cents) } : {}) };
      const result = tender?.request?.via === 'hub' && deps.hubGift
        ? (await deps.hubGift.transact(method, { ...request, reference: a.reference ?? '' })).result
        : await deps.gateway.transact(method, { ...request, transaction_reference: a.reference, unique_reference: a.reference }, actor);
      if (result.approved) return { status: 'done', transaction: result.body.transaction, method };
      const message = result.body.transactions[0]?.gateway_response.message ?? '';
      return { status: 'failed', error: { code: 'declined', message: `${refundFailureMessage('declined', a.label)}${message ? ` (${message})` : ''}` } };
    };
    try {
      results.set(i, await attempt(a.method));
    } catch (err) {
      const code = isEngineError(err) ? err.code : 'gateway_error';
      if (!isEngineError(err)) deps.core.logger.error({ err, sale: sale.id }, 'refund step failed unexpectedly');
      // Past the cut-off (or a Z) between the plan and the void: a refund of the same amount does it.
      if (a.method === 'void' && code === 'void_window_closed' && !(reversal.kind === 'void' && sale.paid_at)) {
        try {
          results.set(i, await attempt('refund'));
          continue;
        } catch (again) {
          const c = isEngineError(again) ? again.code : 'gateway_error';
          results.set(i, { status: 'failed', error: { code: c, message: refundFailureMessage(c, a.label) } });
          continue;
        }
      }
      results.set(i, { status: 'failed', error: { code, message: refundFailureMessage(code, a.label) } });
    }
  }
  return results;
}

/** Records the outcome of a reversal's steps; cash and external parts are done here. */
async function finishInTx(deps: TenderDeps, tx: Tx, saleId: string, reversalId: string, results: Map<number, StepResult>, options: { cashDone: boolean; words?: MoneyFormat }): Promise<ReversalOutcome> {
  let sale = await requireSale(tx, saleId);
  const index = sale.reversals.findIndex((r) => r.id === reversalId);
  const current = sale.reversals[index];
  if (!current) throw notFound('reversal_not_found', 'No such refund or void');
  const laneid = current.laneid;
  let cash = 0;
  const tenders = sale.tenders.map((t) => ({ ...t }));
  const allocations = current.allocations.map((a, i) => {
    if (a.status !== 'pending') return a;
    const r = results.get(i);
    let next: AllocationData;
    if (a.method === 'cash' || a.method === 'external') {
      next = options.cashDone ? { ...a, status: 'done' } : { ...a, status: 'failed', error: { code: 'interrupted', message: `The ${a.method === 'cash' ? 'cash' : a.label} refund was interrupted: settle it now.` } };
    } else if (r?.status === 'done') {
      const method = r.method ?? a.method;
      next = { ...a, status: 'done', transaction: r.transaction, method, tip_cents: tipBack(isOpenVoid(sale, current), method, a.tip_cents) };
    } else {
      next = { ...a, status: 'failed', error: r?.status === 'failed' ? r.error : { code: 'interrupted', message: refundFailureMessage('interrupted', a.label) } };
    }
    if (next.status === 'done') {
      if (next.method === 'cash') cash += next.amount_cents;
      const t = tenders.find((x) => x.id === a.tender);
      if (t && t.type === a.tender_type) {
        t.refunded_cents += next.amount_cents;
        if (t.refunded_cents >= t.amount_cents) t.status = 'reversed';
      }
    }
    return next;
  });
  const cashier = current.cashier;
  for (const a of allocations) {
    if (a.status === 'done' && current.allocations[allocations.indexOf(a)]?.status === 'pending') {
      await deps.registers.journalInTx(tx, laneid, {
        type: 'reversal',
        sale: sale.id,
        reversal: current.id,
        kind: current.kind,
        tender: a.tender,
        tender_type: a.tender_type,
        label: journalLabel(a, tenders),
        cashier,
        amount_cents: a.amount_cents,
        tip_cents: a.tip_cents ?? 0,
        transaction: a.transaction,
        at: tx.at,
      });
    }
  }
  let drawerOpened = current.drawer_opened;
  if (cash > 0) {
    await deps.registers.openDrawerInTx(tx, { laneid, reason: 'cash_refund', sale: sale.id, amount_cents: cash, cashier });
    drawerOpened = true;
  }
  const refunded = allocations.filter((a) => a.status === 'done').reduce((s, a) => s + a.amount_cents, 0);
  const outstanding = current.amount_cents - refunded;
  const reversal: ReversalData = {
    ...current,
    allocations,
    refunded_cents: refunded,
    outstanding_cents: outstanding,
    status: outstanding > 0 ? 'incomplete' : 'completed',
    drawer_opened: drawerOpened,
    completed_at: outstanding > 0 ? null : tx.at,
  };
  sale = { ...sale, tenders, reversals: sale.reversals.map((r, i) => (i === index ? reversal : r)), pending_reversal: null };
  const state = await deps.registers.getInTx(tx, laneid);
  if (state.pending_reversals?.includes(sale.id)) await deps.registers.putInTx(tx, { ...state, pending_reversals: state.pending_reversals.filter((s) => s !== sale.id) });
  sale = await saveSale(deps, tx, sale, 'pos_sale.reversal_finished');
  return { sale: saleView(deps, sale), reversal: reversalView(reversal), message: outcomeMessage(reversal, sale.currency, options.words ?? {}) };
}

function journalLabel(a: AllocationData, tenders: TenderData[]): string {
  if (a.method === 'cash') return 'Cash';
  const t = tenders.find((x) => x.id === a.tender);
  if (a.tender_type === 'card') return t?.card?.brand ?? 'Card';
  if (a.tender_type === 'gift_card') return 'Gift card';
  if (a.tender_type === 'cheque') return 'Cheque';
  return t?.label ?? a.label;
}

function outcomeMessage(r: ReversalData, currency: string, words: MoneyFormat): string {
  const money = (c: number) => formatMoney(c, currency, words);
  const what = r.kind === 'void' ? 'Voided' : 'Refunded';
  const done = r.allocations.filter((a) => a.status === 'done');
  const cash = done.filter((a) => a.method === 'cash').reduce((s, a) => s + a.amount_cents, 0);
  const parts = done.map((a) => `${money(a.amount_cents + (a.tip_cents ?? 0))} to ${a.method === 'cash' ? 'cash' : a.label}${a.tip_cents ? ` (its ${money(a.tip_cents)} tip included)` : ''}`);
  let text = `${what} ${money(r.refunded_cents + tipOf(r, 'done'))}${parts.length ? `: ${parts.join(', ')}` : ''}.`;
  if (cash > 0) text += ` Give ${money(cash)} in cash from the drawer.`;
  if (r.outstanding_cents > 0) {
    const failed = r.allocations.filter((a) => a.status === 'failed').map((a) => a.error?.message).filter(Boolean);
    text += ` ${failed.join(' ')} Still owed to the customer: ${money(r.outstanding_cents)}.`;
  }
  return text;
}

async function execute(deps: TenderDeps, prepared: Prepared, actor: string | null, inflight: Set<string>, words: MoneyFormat): Promise<ReversalOutcome> {
  const { sale, reversal } = prepared;
  try {
    const results = await runGatewaySteps(deps, sale, reversal, actor);
    return await deps.core.mutate((tx) => finishInTx(deps, tx, sale.id, reversal.id, results, { cashDone: true, words }));
  } finally {
    inflight.delete(reversal.id);
  }
}

/** `words`: how amounts read in the answer's message (the asking screen's locale). */
export async function voidSale(deps: TenderDeps, inflight: Set<string>, saleId: string, input: VoidInput, actor: string | null, words: MoneyFormat = {}): Promise<ReversalOutcome> {
  const started = await deps.core.mutate(async (tx): Promise<ReversalOutcome | Prepared> => {
    const shift = await deps.cashiers.requireShiftInTx(tx, input.shift);
    let sale = await requireSale(tx, saleId);
    requireNoPending(sale);
    if (sale.status === 'voided') throw fail.precondition('sale_voided', `Sale ${sale.number} is already voided`);
    if (sale.status === 'open') {
      if (sale.laneid !== shift.laneid) throw fail.precondition('wrong_lane', `Sale ${sale.number} is open on lane ${sale.laneid}: void it there`);
      const paid = sale.tenders.filter((t) => t.status === 'approved');
      if (paid.length === 0) {
        // Nothing was paid: the sale is simply voided.
        sale = { ...sale, status: 'voided', voided_at: tx.at };
        const state = await deps.registers.getInTx(tx, sale.laneid);
        if (state.open_sale === sale.id) await deps.registers.putInTx(tx, { ...state, open_sale: null });
        sale = await saveSale(deps, tx, sale, 'pos_sale.voided');
        await journalOpenVoid(deps, tx, sale, person(shift));
        return { sale: saleView(deps, sale), reversal: null, message: `Sale ${sale.number} voided.` };
      }
      const amount = paid.reduce((s, t) => s + t.amount_cents, 0);
      const approvedBy = await deps.cashiers.approverInTx(tx, shift, input.approval_code);
      const reversal = newReversal(deps, tx, sale, shift, 'void', [], amount, input.reason, approvedBy);
      inflight.add(reversal.id);
      return begin(deps, tx, { sale, reversal, shift }, false);
    }
    if (sale.status !== 'paid' || sale.reversals.some((r) => r.status !== 'planned')) {
      throw fail.precondition('sale_has_refunds', `Sale ${sale.number} has refunds, so it cannot be voided: refund what is left instead`);
    }
    const lines = liveLines(sale).map((l) => ({ line: l.line, description: l.description, quantity: l.quantity, net_cents: l.net_cents, tax_cents: l.tax_cents, total_cents: l.total_cents }));
    const approvedBy = await deps.cashiers.approverInTx(tx, shift, input.approval_code);
    const reversal = newReversal(deps, tx, sale, shift, 'void', lines, totalsOf(sale).total_cents, input.reason, approvedBy);
    inflight.add(reversal.id);
    return begin(deps, tx, { sale, reversal, shift }, false);
  });
  if ('message' in started) return started;
  return execute(deps, started, actor, inflight, words);
}

export async function refundSale(deps: TenderDeps, inflight: Set<string>, saleId: string, input: RefundInput, actor: string | null, words: MoneyFormat = {}): Promise<ReversalOutcome> {
  let reserved: string | undefined;
  const started = await deps.core
    .mutate(async (tx): Promise<ReversalOutcome | Prepared> => {
      const shift = await deps.cashiers.requireShiftInTx(tx, input.shift);
      const sale = await requireSale(tx, saleId);
      requireNoPending(sale);
      if (sale.status !== 'paid' && sale.status !== 'partially_refunded') {
        throw fail.precondition('sale_not_refundable', sale.status === 'open' ? `Sale ${sale.number} is not paid yet: void it instead (F9)` : `Sale ${sale.number} is ${sale.status.replace('_', ' ')}: there is nothing to refund`);
      }
      const lines = refundLines(sale, input);
      const amount = lines.reduce((s, l) => s + l.total_cents, 0);
      // A dry run shows the plan to anyone; giving the money back needs a supervisor.
      const approvedBy = input.dry_run ? null : await deps.cashiers.approverInTx(tx, shift, input.approval_code);
      const reversal = newReversal(deps, tx, sale, shift, 'refund', lines, amount, input.reason, approvedBy);
      if (!input.dry_run) {
        reserved = reversal.id;
        inflight.add(reversal.id);
      }
      return begin(deps, tx, { sale, reversal, shift }, input.dry_run === true, words);
    })
    .catch((err: unknown) => {
      if (reserved) inflight.delete(reserved);
      throw err;
    });
  if ('message' in started) return started;
  return execute(deps, started, actor, inflight, words);
}

/** An incomplete refund or void: retry its failed gateway steps, or give what is owed in cash. */
export async function settleReversal(deps: TenderDeps, inflight: Set<string>, saleId: string, number: number, input: SettleInput, actor: string | null, words: MoneyFormat = {}): Promise<ReversalOutcome> {
  const started = await deps.core.mutate(async (tx): Promise<ReversalOutcome | Prepared> => {
    const shift = await deps.cashiers.requireShiftInTx(tx, input.shift);
    let sale = await requireSale(tx, saleId);
    requireNoPending(sale);
    const reversal = sale.reversals.find((r) => r.number === number);
    if (!reversal) throw notFound('reversal_not_found', `Sale ${sale.number} has no refund or void ${number}`);
    if (reversal.status !== 'incomplete') throw fail.precondition('reversal_complete', 'Nothing is owed on this refund or void');
    const failed = reversal.allocations.filter((a) => a.status === 'failed');
    let allocations: AllocationData[];
    if (input.method === 'cash') {
      const amount = failed.reduce((s, a) => s + a.amount_cents, 0);
      const cashAlloc: AllocationData = { tender: 'cash', tender_type: 'cash', label: 'Cash', amount_cents: amount, method: 'cash', status: 'pending', transaction: null, error: null, reference: null };
      // The failed steps stay on record; the cash part makes up what they did not give back.
      allocations = [...reversal.allocations, cashAlloc];
    } else {
      allocations = reversal.allocations.map((a) => (a.status === 'failed' && (a.method === 'void' || a.method === 'refund') ? { ...a, status: 'pending', error: null } : a));
      if (!allocations.some((a) => a.status === 'pending')) throw fail.precondition('nothing_to_retry', 'Nothing can be retried on this refund: settle it in cash');
    }
    const next: ReversalData = { ...reversal, status: 'pending', allocations };
    sale = { ...sale, reversals: sale.reversals.map((r) => (r.id === reversal.id ? next : r)), pending_reversal: reversal.id };
    inflight.add(reversal.id);
    await markPending(deps, tx, reversal.laneid, sale.id);
    sale = await saveSale(deps, tx, sale, 'pos_sale.reversal_started');
    return { sale, reversal: next, shift };
  });
  if ('message' in started) return started;
  return execute(deps, started, actor, inflight, words);
}

/**
 * Refunds and voids left pending by a stop: each gateway step is looked up by its reference
 * (found: done; not found: failed, still owed); cash parts are left owed, to be settled.
 */
export async function recoverReversals(deps: TenderDeps, inflight: Set<string>): Promise<number> {
  let n = 0;
  for (const state of await deps.registers.all()) {
    for (const saleId of state.pending_reversals ?? []) {
      const sale = (await getRecord<SaleData>(deps.core, KIND.sale, saleId))?.data;
      const reversal = sale?.reversals.find((r) => r.id === sale.pending_reversal);
      if (!sale || !reversal) {
        await deps.core.mutate(async (tx) => {
          const s = await deps.registers.getInTx(tx, state.laneid);
          await deps.registers.putInTx(tx, { ...s, pending_reversals: (s.pending_reversals ?? []).filter((x) => x !== saleId) });
        });
        continue;
      }
      if (inflight.has(reversal.id)) continue;
      const results = new Map<number, StepResult>();
      for (const [i, a] of reversal.allocations.entries()) {
        if (a.status !== 'pending' || !a.reference) continue;
        const tender = sale.tenders.find((t) => t.id === a.tender);
        const look = (method: string) => lookUp(deps, tender, method, sale.id, a.reference!);
        const planned = await look(a.method);
        const asRefund = !planned && a.method === 'void' ? await look('refund') : undefined;
        const found = planned ?? asRefund;
        results.set(i, found ? { status: 'done', transaction: found.token, method: asRefund ? 'refund' : (a.method as 'void' | 'refund') } : { status: 'failed', error: { code: 'interrupted', message: refundFailureMessage('interrupted', a.label) } });
      }
      await deps.core.mutate((tx) => finishInTx(deps, tx, sale.id, reversal.id, results, { cashDone: false }));
      n += 1;
    }
  }
  return n;
}

/** A reversal step's transaction by its reference: on the hub for a lane's gift card paid there (a hub that does not answer throws: asked again on the next tick). */
async function lookUp(deps: TenderDeps, tender: TenderData | undefined, method: string, saleId: string, reference: string): Promise<{ token: string } | undefined> {
  if ((tender?.request?.via === 'hub' || takenApart(tender)) && deps.hubGift) {
    const made = await deps.hubGift.find(method as 'void' | 'refund', reference);
    return made ? { token: made.result.body.transaction } : undefined;
  }
  return deps.gateway.view(`${method}/${saleId}/${reference}`);
}
