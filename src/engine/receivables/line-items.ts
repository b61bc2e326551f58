import { decimalTimesMinor } from '../../shared/money';
import { computedAmount, Fields, extraAttributes } from './fields';
import type { Problems } from './problems';
import type { AdjustmentData, LineItemData } from './types';

const LINE_FIELDS = new Set(['number', 'description', 'order_key', 'purchase_order_number', 'quantity', 'unit_cost_cents', 'amount', 'balance_cents']);

/** A name a line item keeps as an extra attribute, not one of its fields. */
export const isLineExtraKey = (key: string): boolean => !LINE_FIELDS.has(key);

interface LineInput {
  number?: string;
  patch: Partial<LineItemData>;
  amount?: number;
  balance?: number;
  extra: Record<string, unknown>;
}

export function readLineItems(raw: unknown, problems: Problems): LineInput[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) {
    problems.add('line_item_attributes', 'invalid_type', 'must be an array of line items');
    return undefined;
  }
  const inputs = raw.map((item: unknown, i): LineInput => {
    const p = problems.child(`line_item_attributes.${i}.`);
    if (!item || typeof item !== 'object' || Array.isArray(item)) {
      p.add('', 'invalid_type', 'must be a line item object');
      return { patch: {}, extra: {} };
    }
    const input = item as Record<string, unknown>;
    const f = new Fields(input, p);
    const patch: Partial<LineItemData> = {};
    const number = f.str('number', { max: 100 });
    const description = f.str('description', { max: 4000 });
    if (description !== undefined) patch.description = description;
    const orderKey = f.str('order_key', { max: 100 });
    if (orderKey !== undefined) patch.order_key = orderKey;
    const po = f.str('purchase_order_number', { max: 100 });
    if (po !== undefined) patch.purchase_order_number = po;
    const quantity = f.num('quantity');
    if (quantity !== undefined) patch.quantity = quantity;
    const unitCost = f.int('unit_cost_cents');
    if (unitCost !== undefined) patch.unit_cost_cents = unitCost;
    let amount = f.int('amount');
    if (amount === undefined && quantity !== undefined && unitCost !== undefined) {
      // Half away from zero, as pro-rating does: a credit line is its debit line with the sign turned.
      amount = computedAmount(decimalTimesMinor(quantity, unitCost), p, 'amount', 'quantity x unit_cost_cents');
    }
    const balance = f.int('balance_cents');
    return {
      ...(number !== undefined ? { number } : {}),
      patch,
      ...(amount !== undefined ? { amount } : {}),
      ...(balance !== undefined ? { balance } : {}),
      extra: extraAttributes(input, LINE_FIELDS, p),
    };
  });
  refuseRepeatedNumbers(inputs, problems);
  return inputs;
}

/**
 * A line number names one line of the invoice (mergeLineItems matches it with the stored line of
 * that number): two items of one request with the same number would be merged into one, the first
 * one's amount silently lost and the invoice billed short. The second is refused, naming the number.
 * Items without a number are numbered by mergeLineItems and never clash.
 */
function refuseRepeatedNumbers(inputs: readonly LineInput[], problems: Problems): void {
  const seen = new Set<string>();
  inputs.forEach((input, i) => {
    if (input.number === undefined) return;
    if (seen.has(input.number)) problems.add(`line_item_attributes.${i}.number`, 'duplicate_line_number', `${input.number} appears twice in the invoice: each line item needs its own number (or none: it then gets the next free one)`);
    seen.add(input.number);
  });
}

/**
 * Line items of an import against the stored ones, matched by `number`. When no item of the
 * payload has a number, each is known by its position (1, 2, ...), as it was numbered when first
 * stored: an ERP sending the same invoice again updates its lines instead of adding them twice.
 * Otherwise an item without a number gets the next number that no stored item (unless replaced)
 * and no item of the payload names (readLineItems refuses a number named twice). `replace` drops stored items the
 * payload does not name. A new item needs an amount (or quantity and unit_cost_cents); its
 * balance starts at its amount.
 */
export function mergeLineItems(stored: LineItemData[], inputs: LineInput[] | undefined, replace: boolean, problems: Problems): LineItemData[] {
  if (!inputs) return stored;
  const out: LineItemData[] = replace ? [] : stored.map((l) => ({ ...l }));
  // The payload's own numbers are taken too: an item without a number must not get one a later item names.
  const taken = new Set([...out.map((l) => l.number), ...inputs.flatMap((input) => (input.number === undefined ? [] : [input.number]))]);
  let next = 1;
  const freeNumber = () => {
    while (taken.has(String(next))) next++;
    return String(next);
  };
  const positional = inputs.every((input) => input.number === undefined);
  inputs.forEach((input, i) => {
    const number = input.number ?? (positional ? String(i + 1) : freeNumber());
    taken.add(number);
    const previous = stored.find((l) => l.number === number);
    const existing = out.find((l) => l.number === number);
    const base = existing ?? (previous ? { ...previous } : undefined);
    if (!base && input.amount === undefined) {
      // An amount (or a quantity or unit cost it is computed from) that did not parse has its problem already: it is not also "required".
      const at = `line_item_attributes.${i}.`;
      if (!['amount', 'quantity', 'unit_cost_cents'].some((name) => problems.has(at + name))) problems.add(`${at}amount`, 'missing_line_amount', 'is required (or quantity and unit_cost_cents)');
      return;
    }
    const amount = input.amount ?? base?.amount_cents ?? 0;
    const paid = base ? base.amount_cents - base.balance_cents : 0;
    const line: LineItemData = {
      ...(base ?? {}),
      ...input.patch,
      number,
      amount_cents: amount,
      balance_cents: input.balance ?? amount - paid,
      extra: { ...(base?.extra ?? {}), ...input.extra },
    };
    if (existing) Object.assign(existing, line);
    else out.push(line);
  });
  return out;
}

export function readAdjustments(raw: unknown, problems: Problems): AdjustmentData[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) {
    problems.add('adjustments_attributes', 'invalid_type', 'must be an array');
    return undefined;
  }
  const out: AdjustmentData[] = [];
  raw.forEach((item: unknown, i) => {
    const p = problems.child(`adjustments_attributes.${i}.`);
    const f = new Fields((item ?? {}) as Record<string, unknown>, p);
    const label = f.str('label', { max: 200 });
    const amount = f.int('amount') ?? f.int('amount_cents');
    if (amount !== undefined) out.push({ ...(label !== undefined ? { label } : {}), amount_cents: amount });
    else if (!p.has('amount') && !p.has('amount_cents')) p.add('amount', 'missing_adjustment_amount', 'is required');
  });
  return out;
}
