import type { EngineCore, Tx } from '../core';
import type { ProcessorWatch } from './processor';
import type { Account } from '../account';
import { fail, notFound } from '../errors';
import type { Orders } from '../orders';
import { dateInZone } from '../clock';
import { getRecord, putRecord, recordsByRef } from '../records';
import type { OrderInput } from '../../shared/schemas/orders';
import { typedText } from '../../shared/typed-text';
import type { LineInput, LinePatch, Sale, SaleLine, TenderType } from '../../shared/schemas/register';
import type { Catalog } from './catalog';
import type { Cashiers } from './cashiers';
import type { Registers } from './registers';
import { cashSuggestions, discountFromPercent, MAX_QUANTITY, MAX_TENDER_CENTS, priceLine, taxRateFromPercent, taxRateToPercent, type Discount } from './money';
import { formatMoney, type MoneyFormat } from '../../shared/money';
import { KIND, refOfNumber, saleNumber, saleRef, type DocumentData, type LineData, type PersonRef, type SaleData, type SettingsData, type ShiftData, type TenderData } from './model';
import { tenderView, reversalView } from './views';
import { markOf, taxesByRate } from './taxes';

export const MAX_LINES = 200;

/** What the sale operations work with. */
export interface SaleContext {
  core: EngineCore;
  account: Account;
  orders: Orders;
  catalog: Catalog;
  cashiers: Cashiers;
  registers: Registers;
  settings(): SettingsData;
  /** Gives each of these tax rates the shop's fixed letter when it has none yet (see taxes.ts). */
  ensureTaxMarksInTx(tx: Tx, rates: number[]): Promise<void>;
  /** Whether the card processor answers (processor.ts); absent: assumed reachable. */
  processor?: ProcessorWatch;
}

/**
 * A sale's figures, one definition each, shown the same way on every screen and receipt:
 * - `gross_cents`: the lines' unit price × quantity, before discounts;
 * - `subtotal_cents`: the sum of the lines' amounts as the lines show them (after each line's
 *   discount, before tax) = gross − discounts;
 * - `tax_cents`, `total_cents` = subtotal + tax: what the sale costs;
 * - `paid_cents`: what the tenders paid of the total; `tip_cents`: card tips on top of it;
 *   `collected_cents` = paid + tips: what the customer was charged in all.
 */
export interface Totals {
  gross_cents: number;
  subtotal_cents: number;
  discount_cents: number;
  net_cents: number;
  tax_cents: number;
  total_cents: number;
  paid_cents: number;
  tip_cents: number;
  collected_cents: number;
  balance_cents: number;
  change_cents: number;
  refunded_cents: number;
}

const PAID: ReadonlyArray<TenderData['status']> = ['approved', 'reversed'];

export function liveLines(sale: SaleData): LineData[] {
  return sale.lines.filter((l) => !l.voided);
}

export function totalsOf(sale: SaleData): Totals {
  const t: Totals = { gross_cents: 0, subtotal_cents: 0, discount_cents: 0, net_cents: 0, tax_cents: 0, total_cents: 0, paid_cents: 0, tip_cents: 0, collected_cents: 0, balance_cents: 0, change_cents: 0, refunded_cents: 0 };
  for (const l of liveLines(sale)) {
    t.gross_cents += l.gross_cents;
    t.discount_cents += l.discount_cents;
    t.net_cents += l.net_cents;
    t.tax_cents += l.tax_cents;
    t.total_cents += l.total_cents;
  }
  t.subtotal_cents = t.net_cents;
  for (const tender of sale.tenders) {
    if (!PAID.includes(tender.status)) continue;
    t.paid_cents += tender.amount_cents;
    t.tip_cents += tender.tip_cents;
    t.change_cents += tender.change_cents;
  }
  t.collected_cents = t.paid_cents + t.tip_cents;
  for (const r of sale.reversals) t.refunded_cents += r.refunded_cents;
  t.balance_cents = sale.status === 'open' ? t.total_cents - t.paid_cents : 0;
  return t;
}

/** When the sale happened, the one time every screen and receipt shows for it: paid, else voided, else started. */
export function saleTime(sale: SaleData): string {
  return sale.paid_at ?? sale.voided_at ?? sale.created_at;
}

export function hasMoneyIn(sale: SaleData): boolean {
  return sale.tenders.some((t) => t.status === 'approved' || t.status === 'pending');
}

/** Which tenders the register takes on this sale now (settings, account capabilities, sale state). */
export function allowedTenders(ctx: SaleContext, sale: SaleData, totals = totalsOf(sale)): TenderType[] {
  if (sale.status !== 'open' || sale.pending_tender || sale.pending_reversal || liveLines(sale).length === 0) return [];
  const s = ctx.settings();
  const can = (c: Parameters<Account['can']>[0]) => ctx.account.can(c);
  if (totals.balance_cents <= 0) return totals.total_cents === 0 && s.tenders.cash ? ['cash'] : [];
  const out: TenderType[] = [];
  if (s.tenders.card && can('order_transactions') && can('card_present_emv') && ctx.processor?.state().card_offered !== false) out.push('card');
  if (s.tenders.cash) out.push('cash');
  if (s.tenders.cheque) out.push('cheque');
  if (s.tenders.gift_card && can('order_transactions') && can('gift_cards')) out.push('gift_card');
  if (s.tenders.other && s.other_tenders.length > 0) out.push('other');
  return out;
}

function lineView(l: LineData, marks: SettingsData['tax_marks'] = []): SaleLine {
  return {
    line: l.line,
    product_code: l.product_code,
    barcode: l.barcode,
    description: l.description,
    category: l.category,
    quantity: l.quantity,
    list_price_cents: l.list_price_cents,
    unit_price_cents: l.unit_price_cents,
    open_price: l.open_price,
    price_override: l.price_override,
    discount: l.discount
      ? { percent: l.discount.kind === 'percent' ? l.discount.basis_points / 100 : null, amount_cents: l.discount.kind === 'amount' ? l.discount.amount_cents : null, reason: l.discount.reason }
      : null,
    tax_rate: taxRateToPercent(l.tax_rate),
    tax_mark: markOf(marks, l.tax_rate),
    gross_cents: l.gross_cents,
    discount_cents: l.discount_cents,
    net_cents: l.net_cents,
    tax_cents: l.tax_cents,
    total_cents: l.total_cents,
    voided: l.voided,
    returned_quantity: l.returned_quantity,
  };
}

export function refundableOf(sale: SaleData): number {
  return liveLines(sale).reduce((sum, l) => sum + l.total_cents - l.returned_net_cents - l.returned_tax_cents, 0);
}

export function processorOf(ctx: SaleContext): { reachable: boolean; message: string | null; since: string | null } {
  const p = ctx.processor?.state();
  return p ? { reachable: p.reachable, message: p.message, since: p.since } : { reachable: true, message: null, since: null };
}

export function saleView(ctx: SaleContext, sale: SaleData): Sale {
  const totals = totalsOf(sale);
  const tenders = allowedTenders(ctx, sale, totals);
  const s = ctx.settings();
  const reversed = sale.reversals.some((r) => r.status !== 'planned');
  const marks = s.tax_marks ?? [];
  return {
    id: sale.id,
    number: sale.number,
    order: sale.id,
    laneid: sale.laneid,
    status: sale.status,
    currency: sale.currency,
    cashier: sale.cashier,
    lines: sale.lines.map((l) => lineView(l, marks)),
    totals,
    taxes: taxesByRate(liveLines(sale)).map((t) => ({ mark: markOf(marks, t.tax_rate), ...t, tax_rate: taxRateToPercent(t.tax_rate) })),
    tenders: sale.tenders.map(tenderView),
    reversals: sale.reversals.map(reversalView),
    pending_tender: sale.pending_tender,
    allowed: {
      tenders,
      other_tenders: tenders.includes('other') ? [...s.other_tenders] : [],
      card_manual_entry: tenders.includes('card') && s.card_manual_entry,
      cash_suggestions: tenders.includes('cash') ? cashSuggestions(totals.balance_cents) : [],
      edit_lines: sale.status === 'open' && !hasMoneyIn(sale) && !sale.pending_reversal,
      void: !sale.pending_reversal && !sale.pending_tender && (sale.status === 'open' || (sale.status === 'paid' && !reversed)),
      refund: !sale.pending_reversal && (sale.status === 'paid' || sale.status === 'partially_refunded') && refundableOf(sale) > 0,
      processor: processorOf(ctx),
    },
    at: saleTime(sale),
    created_at: sale.created_at,
    updated_at: sale.updated_at,
    paid_at: sale.paid_at,
    voided_at: sale.voided_at,
  };
}

// ---- storage ----

/** A refund's or void's document number (`1-R000001`) → its sale and reversal number. */
export async function findDocument(reader: Tx | EngineCore, number: string): Promise<DocumentData | undefined> {
  const n = typedText(number).trim().toUpperCase();
  return /-[RV][0-9]{1,8}$/.test(n) ? (await getRecord<DocumentData>(reader, KIND.document, n))?.data : undefined;
}

/** A sale by its id, its receipt number, or the document number of one of its refunds or voids. */
export async function loadSale(reader: Tx | EngineCore, idOrNumber: string): Promise<SaleData | undefined> {
  const direct = (await getRecord<SaleData>(reader, KIND.sale, idOrNumber))?.data;
  if (direct) return direct;
  // A receipt number typed full-width ("１-０００００４２") is the same number.
  const ref = refOfNumber(typedText(idOrNumber));
  if (ref) return (await recordsByRef<SaleData>(reader, KIND.sale, ref))[0]?.data;
  const doc = await findDocument(reader, idOrNumber);
  return doc ? (await getRecord<SaleData>(reader, KIND.sale, doc.sale))?.data : undefined;
}

export async function requireSale(tx: Tx, idOrNumber: string): Promise<SaleData> {
  const sale = await loadSale(tx, idOrNumber);
  if (!sale) throw notFound('sale_not_found', `No sale ${idOrNumber}: check the receipt number`);
  return sale;
}

function orderItems(sale: SaleData): NonNullable<OrderInput['order_items']> {
  return liveLines(sale).map((l) => ({
    number: String(l.line),
    description: l.description,
    quantity: l.quantity,
    unit_cost_cents: l.unit_price_cents,
    amount_cents: l.net_cents,
    tax_amount_cents: l.tax_cents,
    discount_amount_cents: l.discount_cents,
    product_code: l.product_code,
    category: l.category,
    attributes: {
      tax_rate: String(taxRateToPercent(l.tax_rate)),
      ...(l.barcode ? { barcode: l.barcode } : {}),
      ...(l.price_override ? { price_override_reason: l.price_override.reason, list_price_cents: l.price_override.list_price_cents } : {}),
      ...(l.returned_quantity ? { returned_quantity: l.returned_quantity } : {}),
    },
  }));
}

/**
 * Writes the sale and keeps its order in step: a draft while the sale is open, published (with its
 * final amount and items) once paid. The order's items are the sale's live lines in the
 * reference's shape: `amount_cents` is the line's net (after discount, before tax).
 */
export async function saveSale(ctx: SaleContext, tx: Tx, sale: SaleData, type: string): Promise<SaleData> {
  const next = { ...sale, updated_at: tx.at };
  const totals = totalsOf(next);
  await putRecord(tx, KIND.sale, next.id, next, {
    type,
    entity: 'pos_sale',
    key: next.id,
    data: { number: next.number, laneid: next.laneid, status: next.status, total_cents: totals.total_cents, balance_cents: totals.balance_cents, pending_tender: next.pending_tender },
  }, saleRef(next.laneid, Number(next.number.slice(next.number.lastIndexOf('-') + 1))));
  const p = ctx.account.profile();
  const order: OrderInput = {
    identifier: next.id,
    number: next.number,
    currency: next.currency,
    amount_cents: totals.total_cents,
    date: dateInZone(Date.parse(next.created_at), p.timezone),
    draft: next.paid_at === null,
    order_items: orderItems(next),
    attributes: { pos_lane: next.laneid, pos_status: next.status, pos_cashier: next.cashier.name, pos_refunded_cents: totals.refunded_cents },
  };
  const resolved = await ctx.orders.resolveInTx(tx, order, { amountCents: totals.total_cents, currency: next.currency });
  await ctx.orders.putInTx(tx, resolved);
  return next;
}

// ---- sale and lines ----

export function person(shift: ShiftData): PersonRef {
  return { id: shift.cashier.id, name: shift.cashier.name };
}

export function requireSameLane(sale: SaleData, shift: ShiftData): void {
  if (sale.laneid !== shift.laneid) throw fail.precondition('wrong_lane', `Sale ${sale.number} belongs to lane ${sale.laneid}; this cashier is signed in on lane ${shift.laneid}`);
}

function requireEditable(sale: SaleData): void {
  if (sale.status !== 'open') throw fail.precondition('sale_closed', `Sale ${sale.number} is ${sale.status}: start a new sale`);
  if (hasMoneyIn(sale)) throw fail.precondition('sale_locked', 'Payment has started on this sale: take the rest of the payment, or void the sale (F9) to start over');
}

/** Starts a sale on the shift's lane, or resumes the lane's open sale. */
export async function startSaleInTx(ctx: SaleContext, tx: Tx, shift: ShiftData): Promise<{ sale: SaleData; created: boolean }> {
  ctx.account.require('orders');
  const state = await ctx.registers.getInTx(tx, shift.laneid);
  if (state.open_sale) {
    const open = await loadSale(tx, state.open_sale);
    if (open && open.status === 'open') return { sale: open, created: false };
  }
  const seq = state.sale_seq + 1;
  const sale: SaleData = {
    id: ctx.core.ids.token(),
    number: saleNumber(shift.laneid, seq),
    laneid: shift.laneid,
    status: 'open',
    currency: ctx.account.profile().currency,
    cashier: person(shift),
    lines: [],
    tenders: [],
    reversals: [],
    pending_tender: null,
    pending_reversal: null,
    created_at: tx.at,
    updated_at: tx.at,
    paid_at: null,
    voided_at: null,
  };
  await ctx.registers.putInTx(tx, { ...state, sale_seq: seq, open_sale: sale.id });
  return { sale: await saveSale(ctx, tx, sale, 'pos_sale.created'), created: true };
}

/** "3*2001" sells three of 2001; typed full-width ("３＊２００１", a Japanese input method's) it reads the same. */
function parseScan(typed: string): { code: string; quantity: number | undefined } {
  const scan = typedText(typed);
  const m = /^\s*([0-9]{1,3})\s*[*xX]\s*(\S+)\s*$/.exec(scan);
  return m ? { code: m[2]!, quantity: Number(m[1]) } : { code: scan.trim(), quantity: undefined };
}

/** A scan that starts with a fraction times something: a quantity such as 1,5 or 0.5 typed before a code. */
const FRACTION_TIMES = /^\s*[0-9]*[.,][0-9]+\s*[*xX]\s*\S+\s*$/;

function checkQuantity(q: number): void {
  if (!Number.isInteger(q) || q < 1 || q > MAX_QUANTITY) throw fail.invalid('invalid_quantity', `quantity must be a whole number from 1 to ${MAX_QUANTITY}`, [{ field: 'quantity', message: `1 to ${MAX_QUANTITY}` }]);
}

/** An amount of the sale as the asking screen writes it (`words`: its locale; default the currency's home format). */
const moneyOf = (sale: SaleData, words: MoneyFormat) => (minor: number) => formatMoney(minor, sale.currency, words);

function reprice(l: LineData, money: (minor: number) => string): LineData {
  return { ...l, ...priceLine(l.unit_price_cents, l.quantity, l.discount, l.tax_rate, money) };
}

/**
 * A sale must be payable: one tender takes at most MAX_TENDER_CENTS (cash handed over, or an
 * amount paid), so a line that would take the sale past it is refused where it is typed, with what
 * to change, rather than at the till with the customer waiting on a sale no tender takes. (A sale
 * that size is a slip of the keys, 999 × a price; a real one is rung up as two sales.)
 */
function requirePayable(sale: SaleData, words: MoneyFormat): SaleData {
  const total = totalsOf(sale).total_cents;
  if (total > MAX_TENDER_CENTS) {
    const money = moneyOf(sale, words);
    throw fail.invalid(
      'sale_too_large',
      `This would bring the sale to ${money(total)}, more than one payment takes (at most ${money(MAX_TENDER_CENTS)}). Check the quantity and the price, or ring the rest up as another sale.`,
      [{ field: 'quantity', message: `the sale's total at most ${money(MAX_TENDER_CENTS)}` }],
    );
  }
  return sale;
}

/** `words`: how amounts read in a refusal's message (the asking screen's locale). */
export async function addLineInTx(ctx: SaleContext, tx: Tx, sale: SaleData, input: LineInput, words: MoneyFormat = {}): Promise<SaleData> {
  return requirePayable(await withLine(ctx, tx, sale, input, moneyOf(sale, words)), words);
}

async function withLine(ctx: SaleContext, tx: Tx, sale: SaleData, input: LineInput, money: (minor: number) => string): Promise<SaleData> {
  requireEditable(sale);
  const given = [input.scan, input.product_code, input.open].filter((v) => v !== undefined).length;
  if (given !== 1) throw fail.invalid('line_source', 'Send exactly one of scan, product_code or open', [{ field: 'scan', message: 'exactly one of scan, product_code, open' }]);
  if (liveLines(sale).length >= MAX_LINES) throw fail.precondition('too_many_lines', `A sale holds at most ${MAX_LINES} lines: pay this one and start another`);
  const nextLine = sale.lines.reduce((m, l) => Math.max(m, l.line), 0) + 1;
  let line: LineData;
  if (input.open) {
    const o = input.open;
    const rate = o.tax_rate === undefined ? ctx.settings().default_tax_rate : taxRateFromPercent(o.tax_rate, 'open.tax_rate');
    const quantity = input.quantity ?? 1;
    checkQuantity(quantity);
    line = reprice({
      line: nextLine,
      product_code: null,
      barcode: null,
      description: o.description.trim(),
      category: o.category?.trim() ?? null,
      quantity,
      list_price_cents: o.unit_price_cents,
      unit_price_cents: o.unit_price_cents,
      open_price: true,
      price_override: null,
      discount: null,
      tax_rate: rate,
      gross_cents: 0, discount_cents: 0, net_cents: 0, tax_cents: 0, total_cents: 0,
      voided: false,
      returned_quantity: 0,
      returned_net_cents: 0,
      returned_tax_cents: 0,
    }, money);
  } else {
    const parsed = input.scan !== undefined ? parseScan(input.scan) : { code: input.product_code!, quantity: undefined };
    const quantity = input.quantity ?? parsed.quantity ?? 1;
    checkQuantity(quantity);
    const product = await ctx.catalog.findInTx(tx, parsed.code);
    if (!product) {
      // "1,5*3001" is a quantity the register does not sell (whole items only), not an unknown code.
      if (input.scan !== undefined && FRACTION_TIMES.test(typedText(input.scan))) {
        throw fail.invalid('invalid_quantity', `A quantity is a whole number from 1 to ${MAX_QUANTITY}: type 2*${typedText(input.scan).split(/[*xX]/).pop()!.trim()} for two`, [{ field: 'scan', message: `1 to ${MAX_QUANTITY}` }]);
      }
      throw notFound('product_not_found', `No product with code or barcode ${parsed.code}. Check it, search with F2, or sell it as an open-price item (F3).`);
    }
    if (!product.active) throw fail.precondition('product_inactive', `${product.description} (${product.code}) is no longer sold`);
    // Scanning the same item again adds to the last line when that line is a plain one.
    const last = sale.lines[sale.lines.length - 1];
    if (last && !last.voided && last.product_code === product.code && !last.price_override && !last.discount && last.quantity + quantity <= MAX_QUANTITY) {
      const merged = reprice({ ...last, quantity: last.quantity + quantity }, money);
      return { ...sale, lines: [...sale.lines.slice(0, -1), merged] };
    }
    line = reprice({
      line: nextLine,
      product_code: product.code,
      barcode: product.barcode,
      description: product.description,
      category: product.category,
      quantity,
      list_price_cents: product.price_cents,
      unit_price_cents: product.price_cents,
      open_price: false,
      price_override: null,
      discount: null,
      tax_rate: product.tax_rate,
      gross_cents: 0, discount_cents: 0, net_cents: 0, tax_cents: 0, total_cents: 0,
      voided: false,
      returned_quantity: 0,
      returned_net_cents: 0,
      returned_tax_cents: 0,
    }, money);
  }
  await ctx.ensureTaxMarksInTx(tx, [line.tax_rate]);
  return { ...sale, lines: [...sale.lines, line] };
}

function findLine(sale: SaleData, n: number): LineData {
  const l = sale.lines.find((x) => x.line === n);
  if (!l) throw notFound('line_not_found', `Sale ${sale.number} has no line ${n}`);
  if (l.voided) throw fail.precondition('line_voided', `Line ${n} is voided`);
  return l;
}

/** `words`: how amounts read in a refusal's message (the asking screen's locale). */
export function changeLine(sale: SaleData, shift: ShiftData, n: number, patch: Omit<LinePatch, 'shift'>, words: MoneyFormat = {}): SaleData {
  requireEditable(sale);
  const l = findLine(sale, n);
  let next: LineData = { ...l };
  if (patch.quantity !== undefined) {
    checkQuantity(patch.quantity);
    next.quantity = patch.quantity;
  }
  if (patch.price_override !== undefined) {
    if (patch.price_override === null) {
      next.unit_price_cents = next.price_override?.list_price_cents ?? next.unit_price_cents;
      next.price_override = null;
    } else {
      const reason = patch.price_override.reason.trim();
      if (reason.length < 2) throw fail.invalid('reason_required', 'A price override needs a reason (for example "Damaged" or "Price match")', [{ field: 'price_override.reason', message: 'required' }]);
      const list = next.price_override?.list_price_cents ?? next.unit_price_cents;
      next.unit_price_cents = patch.price_override.unit_price_cents;
      next.price_override = { reason, list_price_cents: list, by: person(shift) };
    }
  }
  if (patch.discount !== undefined) {
    if (patch.discount === null) next.discount = null;
    else {
      const d = patch.discount;
      if ((d.percent === undefined) === (d.amount_cents === undefined)) {
        throw fail.invalid('discount_kind', 'A discount is either a percent or an amount_cents', [{ field: 'discount', message: 'exactly one of percent, amount_cents' }]);
      }
      const reason = d.reason?.trim() || null;
      const discount: Discount = d.percent !== undefined ? { kind: 'percent', basis_points: discountFromPercent(d.percent) } : { kind: 'amount', amount_cents: d.amount_cents! };
      next.discount = { ...discount, reason };
    }
  }
  next = reprice(next, moneyOf(sale, words));
  return requirePayable({ ...sale, lines: sale.lines.map((x) => (x.line === n ? next : x)) }, words);
}

export function voidLine(sale: SaleData, n: number): SaleData {
  requireEditable(sale);
  findLine(sale, n);
  return { ...sale, lines: sale.lines.map((x) => (x.line === n ? { ...x, voided: true } : x)) };
}
