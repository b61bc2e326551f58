import { notFound } from '../errors';
import type { Gateway } from '../gateway';
import type { Receipt } from '../../shared/schemas/register';
import type { SaleData, SettingsData } from './model';
import { taxRateToPercent } from './money';
import { findDocument, liveLines, loadSale, saleTime, totalsOf } from './sales';
import { reversalLinesWithRates } from './reversals';
import { markOf, taxesByRate, type TaxMark } from './taxes';
import type { EngineCore } from '../core';
import { formatMoney } from '../../shared/money';

/**
 * A receipt as a document (the screens lay it out and print it). A card tender carries what a
 * card receipt needs: brand and last four, entry mode, AID, application label, TVR, TSI, the
 * authorization code, how the cardholder was verified, and the signature image when one was
 * captured on the device. `kind` says what happened (sale, refund, void); a refund's or void's amounts are negative.
 */
export interface ReceiptDeps {
  core: EngineCore;
  gateway: Gateway;
  merchant(): string;
  laneName(laneid: string): Promise<string>;
  settings(): SettingsData;
  /** Gives the sale's tax rates their fixed letters if a sale from before letters were kept has none. */
  ensureTaxMarks(rates: number[]): Promise<void>;
}

type Base = Pick<Receipt, 'copy' | 'merchant' | 'lane' | 'sale_number' | 'status' | 'currency' | 'footer'>;

/** `locale`: the reader's (the screen's Accept-Language), for the amounts inside the lines' notes ("3 @ 4,25 $ US"). */
export async function buildReceipt(deps: ReceiptDeps, idOrNumber: string, options: { reversal?: number | undefined; copy?: boolean | undefined; locale?: string | undefined }): Promise<Receipt> {
  const sale = await loadSale(deps.core, idOrNumber);
  if (!sale) throw notFound('sale_not_found', `No sale ${idOrNumber}: check the receipt number`);
  // A refund's or void's own number asks for that document's receipt.
  const reversal = options.reversal ?? (await findDocument(deps.core, idOrNumber))?.reversal;
  await deps.ensureTaxMarks([...new Set(sale.lines.map((l) => l.tax_rate))].sort((a, b) => a - b));
  const marks = deps.settings().tax_marks ?? [];
  const base: Base = {
    copy: options.copy === true,
    merchant: deps.merchant(),
    lane: await deps.laneName(sale.laneid),
    sale_number: sale.number,
    status: sale.status,
    currency: sale.currency,
    footer: [...deps.settings().receipt_footer],
  };
  if (reversal !== undefined) return reversalReceipt(sale, reversal, base, marks, options.locale);

  const live = liveLines(sale);
  const totals = totalsOf(sale);
  const tenders = await Promise.all(
    sale.tenders
      .filter((t) => t.status === 'approved' || t.status === 'reversed')
      .map(async (t) => {
        const record = t.card?.signature && t.transaction ? await deps.gateway.record(t.transaction) : undefined;
        const sig = record?.terminal?.signature ?? null;
        return {
          label: t.label,
          amount_cents: t.amount_cents,
          tip_cents: t.tip_cents,
          tendered_cents: t.tendered_cents,
          change_cents: t.change_cents,
          method: t.type,
          card: t.card,
          transaction: t.transaction,
          signature: sig ? { media_type: sig.media_type, data: sig.data } : null,
        };
      }),
  );
  return {
    ...base,
    kind: 'sale',
    number: sale.number,
    cashier: sale.cashier.name,
    at: saleTime(sale),
    lines: live.map((l) => {
      const notes = lineNotes(l, l.quantity, l.discount_cents, sale.currency, options.locale);
      if (l.returned_quantity > 0) notes.push(`Returned: ${l.returned_quantity}`);
      return { description: l.description, product_code: l.product_code, quantity: l.quantity, unit_price_cents: l.unit_price_cents, amount_cents: l.net_cents, tax_mark: markOf(marks, l.tax_rate), notes };
    }),
    subtotal_cents: totals.subtotal_cents,
    discount_cents: totals.discount_cents,
    taxes: taxesByRate(live).map((t) => ({ mark: markOf(marks, t.tax_rate), tax_rate: taxRateToPercent(t.tax_rate), taxable_cents: t.taxable_cents, tax_cents: t.tax_cents })),
    total_cents: totals.total_cents,
    tip_cents: totals.tip_cents,
    paid_cents: totals.collected_cents,
    outstanding_cents: 0,
    tenders,
    change_cents: totals.change_cents,
  };
}

type SaleLine = SaleData['lines'][number];

/**
 * A line's notes on a receipt, for `quantity` of its units whose discount is `discountCents`: the
 * units at their price, a changed price, the discount. A sale's receipt and a refund's or void's
 * write them alike. `locale`: the reader's; "12,5 %" in fr-CA, as the screens write a rate.
 */
function lineNotes(l: SaleLine, quantity: number, discountCents: number, currency: string, locale: string | undefined): string[] {
  const amount = (cents: number) => formatMoney(cents, currency, { locale });
  const percent = (p: number) => new Intl.NumberFormat(locale ?? 'en-US', { style: 'percent', maximumFractionDigits: 4 }).format(p / 100);
  const notes: string[] = [];
  if (quantity > 1) notes.push(`${quantity} @ ${amount(l.unit_price_cents)}`);
  if (l.price_override) notes.push(`Price changed from ${amount(l.price_override.list_price_cents)}: ${l.price_override.reason}`);
  if (l.discount && discountCents > 0) notes.push(`${l.discount.kind === 'percent' ? `${percent(l.discount.basis_points / 100)} off` : 'Discount'}${l.discount.reason ? ` (${l.discount.reason})` : ''}: −${amount(discountCents)}`);
  return notes;
}

/** Money going back, as a negative amount (never −0). */
const back = (cents: number) => (cents === 0 ? 0 : -cents);

/**
 * A refund's or a void's own receipt: its own document number, the sale it reverses, and every
 * amount signed as money going back (negative lines, subtotal, tax, total and tenders). A void of a
 * sale still open lists the sale's lines as they were rung up; its tenders say what went back.
 */

function reversalReceipt(sale: SaleData, number: number, base: Base, marks: ReadonlyArray<TaxMark>, locale: string | undefined): Receipt {
  const r = sale.reversals.find((x) => x.number === number && x.status !== 'planned');
  if (!r) throw notFound('reversal_not_found', `Sale ${sale.number} has no refund or void ${number}`);
  const rated = r.kind === 'void' && r.lines.length === 0
    ? liveLines(sale).map((l) => ({ line: l.line, description: l.description, quantity: l.quantity, net_cents: l.net_cents, tax_cents: l.tax_cents, total_cents: l.total_cents, tax_rate: l.tax_rate }))
    : reversalLinesWithRates(sale, r);
  const lines = rated.map((rl) => {
    const l = sale.lines.find((x) => x.line === rl.line)!;
    // The discount on the units going back: their price less their net (the whole line's discount
    // when all of it goes back; parts of a line add up to it, as their nets do).
    const discount = l.discount ? Math.max(0, l.unit_price_cents * rl.quantity - rl.net_cents) : 0;
    return { ...rl, sold: l, discount_cents: discount, product_code: l.product_code, unit_price_cents: l.unit_price_cents };
  });
  const done = r.allocations.filter((a) => a.status === 'done');
  const backed = done.reduce((s, a) => s + a.amount_cents + (a.tip_cents ?? 0), 0);
  const tips = done.reduce((s, a) => s + (a.tip_cents ?? 0), 0);
  const subtotal = lines.reduce((s, l) => s + l.net_cents, 0);
  const tax = lines.reduce((s, l) => s + l.tax_cents, 0);
  return {
    ...base,
    kind: r.kind,
    number: r.document || `${sale.number}/${r.number}`,
    cashier: r.cashier.name,
    at: r.created_at,
    lines: lines.map((l) => ({
      description: l.description,
      product_code: l.product_code,
      quantity: l.quantity,
      unit_price_cents: l.unit_price_cents,
      amount_cents: back(l.net_cents),
      tax_mark: markOf(marks, l.tax_rate),
      notes: lineNotes(l.sold, l.quantity, l.discount_cents, sale.currency, locale),
    })),
    subtotal_cents: back(subtotal),
    discount_cents: back(lines.reduce((s, l) => s + l.discount_cents, 0)),
    taxes: taxesByRate(lines).map((t) => ({ mark: markOf(marks, t.tax_rate), tax_rate: taxRateToPercent(t.tax_rate), taxable_cents: back(t.taxable_cents), tax_cents: back(t.tax_cents) })),
    total_cents: back(subtotal + tax),
    tip_cents: back(tips),
    paid_cents: back(backed),
    outstanding_cents: r.outstanding_cents,
    tenders: done.map((a) => ({
      label: a.method === 'cash' ? 'Cash' : a.label,
      amount_cents: back(a.amount_cents),
      tip_cents: back(a.tip_cents ?? 0),
      tendered_cents: null,
      change_cents: 0,
      method: a.method,
      card: sale.tenders.find((t) => t.id === a.tender)?.card ?? null,
      transaction: a.transaction,
      signature: null,
    })),
    change_cents: 0,
  };
}
