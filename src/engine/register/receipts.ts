import { fail } from '../errors';
import type { Gateway } from '../gateway';
import type { Receipt } from '../../shared/schemas/register';
import type { SaleData, SettingsData } from './model';
import { taxRateToPercent } from './money';
import { liveLines, loadSale, taxesOf, totalsOf } from './sales';
import type { EngineCore } from '../core';
import { formatMoney } from '../../shared/money';

/**
 * A receipt as a document (the screens lay it out and print it). A card tender carries what a
 * card receipt needs: brand and last four, entry mode, AID, application label, TVR, TSI, the
 * authorization code, how the cardholder was verified, and the signature image when one was
 * captured on the device. Amounts are positive; `kind` says whether money came in or went back.
 */
export interface ReceiptDeps {
  core: EngineCore;
  gateway: Gateway;
  merchant(): string;
  laneName(laneid: string): Promise<string>;
  settings(): SettingsData;
}

const MARKS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

function markOf(rates: number[], rate: number): string {
  return MARKS[rates.indexOf(rate)] ?? '?';
}


export async function buildReceipt(deps: ReceiptDeps, idOrNumber: string, options: { reversal?: number | undefined; copy?: boolean | undefined }): Promise<Receipt> {
  const sale = await loadSale(deps.core, idOrNumber);
  if (!sale) throw fail.notFound('sale_not_found', `No sale ${idOrNumber}: check the receipt number`);
  const base = {
    copy: options.copy === true,
    merchant: deps.merchant(),
    lane: await deps.laneName(sale.laneid),
    number: sale.number,
    status: sale.status,
    currency: sale.currency,
    footer: [...deps.settings().receipt_footer],
  };
  if (options.reversal !== undefined) return reversalReceipt(sale, options.reversal, base);

  const amount = (cents: number) => formatMoney(cents, sale.currency);
  const live = liveLines(sale);
  const rates = [...new Set(live.map((l) => l.tax_rate))].sort((a, b) => a - b);
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
    cashier: sale.cashier.name,
    at: sale.paid_at ?? sale.updated_at,
    lines: live.map((l) => {
      const notes: string[] = [];
      if (l.quantity > 1) notes.push(`${l.quantity} @ ${amount(l.unit_price_cents)}`);
      if (l.price_override) notes.push(`Price changed from ${amount(l.price_override.list_price_cents)}: ${l.price_override.reason}`);
      if (l.discount) notes.push(`${l.discount.kind === 'percent' ? `${l.discount.basis_points / 100}% off` : 'Discount'}${l.discount.reason ? ` (${l.discount.reason})` : ''}: −${amount(l.discount_cents)}`);
      if (l.returned_quantity > 0) notes.push(`Returned: ${l.returned_quantity}`);
      return { description: l.description, product_code: l.product_code, quantity: l.quantity, unit_price_cents: l.unit_price_cents, amount_cents: l.net_cents, tax_mark: markOf(rates, l.tax_rate), notes };
    }),
    subtotal_cents: totals.net_cents,
    discount_cents: totals.discount_cents,
    taxes: taxesOf(live).map((t) => ({ mark: markOf(rates, t.tax_rate), tax_rate: taxRateToPercent(t.tax_rate), taxable_cents: t.taxable_cents, tax_cents: t.tax_cents })),
    total_cents: totals.total_cents,
    tenders,
    change_cents: totals.change_cents,
  };
}

function reversalReceipt(sale: SaleData, number: number, base: Omit<Receipt, 'kind' | 'cashier' | 'at' | 'lines' | 'subtotal_cents' | 'discount_cents' | 'taxes' | 'total_cents' | 'tenders' | 'change_cents'>): Receipt {
  const amount = (cents: number) => formatMoney(cents, sale.currency);
  const r = sale.reversals.find((x) => x.number === number && x.status !== 'planned');
  if (!r) throw fail.notFound('reversal_not_found', `Sale ${sale.number} has no refund or void ${number}`);
  const lines = r.lines.map((rl) => {
    const l = sale.lines.find((x) => x.line === rl.line)!;
    return { ...rl, tax_rate: l.tax_rate, product_code: l.product_code, unit_price_cents: l.unit_price_cents };
  });
  const rates = [...new Set(lines.map((l) => l.tax_rate))].sort((a, b) => a - b);
  return {
    ...base,
    kind: r.kind,
    cashier: r.cashier.name,
    at: r.completed_at ?? r.created_at,
    lines: lines.map((l) => ({
      description: l.description,
      product_code: l.product_code,
      quantity: l.quantity,
      unit_price_cents: l.unit_price_cents,
      amount_cents: l.net_cents,
      tax_mark: markOf(rates, l.tax_rate),
      notes: l.quantity > 1 ? [`${l.quantity} @ ${amount(l.unit_price_cents)}`] : [],
    })),
    subtotal_cents: lines.reduce((s, l) => s + l.net_cents, 0),
    discount_cents: 0,
    taxes: taxesOf(lines).map((t) => ({ mark: markOf(rates, t.tax_rate), tax_rate: taxRateToPercent(t.tax_rate), taxable_cents: t.taxable_cents, tax_cents: t.tax_cents })),
    total_cents: r.amount_cents,
    tenders: r.allocations
      .filter((a) => a.status === 'done')
      .map((a) => ({
        label: a.method === 'cash' ? 'Cash' : a.label,
        amount_cents: a.amount_cents,
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
