import { Type, type Static } from '@sinclair/typebox';
import { component, ref } from './components';
import { LaneId, literals } from './lanes';
import { CashierRef } from './register-catalog';
import { AMOUNT_OF } from './common';
import { Cents, CardFacts, MAX_PRICE_CENTS, MAX_QUANTITY, MAX_TENDER_CENTS, Money, ShiftId, TaxRate, TenderTypeSchema, nullableInt, nullableString } from './register-common';

/** Sales, their lines, tenders and reversals, and the bodies that change them (see register.ts). */

// ---- sales ----

export const SaleLine = component(
  'PosSaleLine',
  Type.Object({
    line: Type.Integer({ description: 'Line number in the sale, from 1; stays with the line.' }),
    product_code: nullableString,
    barcode: nullableString,
    description: Type.String(),
    category: nullableString,
    quantity: Type.Integer(),
    list_price_cents: Cents,
    unit_price_cents: Cents,
    open_price: Type.Boolean({ description: 'An item not in the catalog, priced at the register.' }),
    price_override: Type.Union([Type.Object({ reason: Type.String(), list_price_cents: Cents, by: CashierRef }), Type.Null()]),
    discount: Type.Union([Type.Object({ percent: Type.Union([Type.Number(), Type.Null()]), amount_cents: nullableInt, reason: nullableString }), Type.Null()]),
    tax_rate: Type.Number(),
    tax_mark: Type.String({ description: 'The shop\'s fixed letter for the line\'s tax rate (as on receipts).' }),
    gross_cents: Cents,
    discount_cents: Cents,
    net_cents: Type.Integer({ description: 'The line\'s amount as shown on screens and receipts: after its discount, before tax.' }),
    tax_cents: Cents,
    total_cents: Type.Integer({ description: 'net + tax: what the line costs with its tax (what a refund of the whole line gives back).' }),
    voided: Type.Boolean({ description: 'Voided lines stay in the sale for the record and count for nothing.' }),
    returned_quantity: Type.Integer(),
  }),
);
export type SaleLine = Static<typeof SaleLine>;


export const Tender = component(
  'PosTender',
  Type.Object({
    id: Type.String(),
    type: TenderTypeSchema,
    label: Type.String({ description: 'For people: "Visa •••• 0006", "Cash", "Cheque 1042", "Voucher".' }),
    status: literals(['pending', 'approved', 'declined', 'failed', 'reversed'] as const, {
      description: '`pending`: the customer is paying on the terminal; `declined`/`failed`: nothing was charged; `reversed`: voided or refunded in full.',
    }),
    amount_cents: Type.Integer({ description: 'What this tender pays of the sale (for cash: the amount given minus the change).' }),
    tendered_cents: Type.Union([Type.Integer(), Type.Null()], { description: 'Cash handed over.' }),
    change_cents: Cents,
    tip_cents: Cents,
    reference: nullableString,
    cashier: CashierRef,
    laneid: Type.String(),
    transaction: Type.Union([Type.String(), Type.Null()], { description: 'The gateway transaction (card and gift card tenders).' }),
    card: Type.Union([CardFacts, Type.Null()]),
    gift_card_last4: nullableString,
    response_code: nullableInt,
    error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
    refunded_cents: Cents,
    drawer_opened: Type.Boolean(),
    created_at: Type.String(),
    completed_at: nullableString,
  }),
);
export type Tender = Static<typeof Tender>;

export const Allocation = Type.Object({
  tender: Type.String(),
  tender_type: TenderTypeSchema,
  label: Type.String(),
  amount_cents: Cents,
  tip_cents: Type.Integer({ description: 'A card tip that goes back too, on top of `amount_cents` (a void cancels the whole card payment, tip included).' }),
  method: literals(['void', 'refund', 'cash', 'external'] as const, {
    description: '`void`/`refund`: through the gateway to the card or gift card; `cash`: from the drawer; `external`: cheque or other, settled by the shop.',
  }),
  status: literals(['pending', 'done', 'failed'] as const),
  transaction: nullableString,
  error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
});

export const Reversal = component(
  'PosReversal',
  Type.Object({
    id: Type.String(),
    number: Type.Integer({ description: '1, 2, ... within the sale' }),
    document: Type.String({ description: 'Its own document number on the lane: `<laneid>-R<sequence>` for a refund, `<laneid>-V<sequence>` for a void (empty for a dry run).' }),
    kind: literals(['refund', 'void'] as const),
    status: literals(['planned', 'pending', 'completed', 'incomplete'] as const, {
      description: '`planned`: a dry run; `incomplete`: part of the money could not go back (see `outstanding_cents`; settle it in cash or retry).',
    }),
    reason: nullableString,
    lines: Type.Array(Type.Object({ line: Type.Integer(), description: Type.String(), quantity: Type.Integer(), net_cents: Cents, tax_cents: Cents, total_cents: Cents })),
    amount_cents: Cents,
    refunded_cents: Cents,
    outstanding_cents: Cents,
    allocations: Type.Array(Allocation),
    cashier: CashierRef,
    approved_by: Type.Optional(Type.Union([CashierRef, Type.Null()], { description: 'The supervisor who approved it, when the cashier is not one.' })),
    laneid: Type.String(),
    drawer_opened: Type.Boolean(),
    created_at: Type.String(),
    completed_at: nullableString,
  }),
);
export type Reversal = Static<typeof Reversal>;

export const SALE_STATUSES = ['open', 'paid', 'voided', 'partially_refunded', 'refunded'] as const;

export const ProcessorStatus = Type.Object(
  {
    reachable: Type.Boolean({ description: 'Whether the card processor answered the last card payment or reachability check (card payments need it: nothing is approved without it). Each change is a `pos_processor.reachable` / `pos_processor.unreachable` event with this object as data.' }),
    message: Type.Union([Type.String(), Type.Null()], { description: 'What the cashier reads while it is unreachable: which tenders to take instead.' }),
    since: Type.Union([Type.String(), Type.Null()]),
  },
  { description: 'The card processor as this register sees it.' },
);

export const Sale = component(
  'PosSale',
  Type.Object({
    id: Type.String({ description: 'Also the identifier of the sale\'s order (a draft until paid).' }),
    number: Type.String({ description: 'Receipt number: `<laneid>-<sequence>`.' }),
    order: Type.String(),
    laneid: Type.String(),
    status: literals(SALE_STATUSES),
    currency: Type.String(),
    cashier: CashierRef,
    lines: Type.Array(ref(SaleLine)),
    totals: Type.Object(
      {
        gross_cents: Type.Integer({ description: 'Unit price × quantity of the live lines, before discounts.' }),
        subtotal_cents: Type.Integer({ description: 'The sum of the lines\' amounts (after their discounts, before tax) = gross − discounts; the subtotal every screen and receipt shows.' }),
        discount_cents: Type.Integer({ description: 'Line discounts, already taken off the subtotal.' }),
        net_cents: Type.Integer({ description: 'The same as subtotal_cents (kept for existing clients).' }),
        tax_cents: Cents,
        total_cents: Type.Integer({ description: 'subtotal + tax: what the sale costs.' }),
        paid_cents: Type.Integer({ description: 'What the tenders paid of the total (without tips).' }),
        tip_cents: Type.Integer({ description: 'Card tips the customer added on the terminal, on top of the total.' }),
        collected_cents: Type.Integer({ description: 'paid + tips: what the customer was charged in all.' }),
        balance_cents: Type.Integer({ description: 'Still to pay.' }),
        change_cents: Cents,
        refunded_cents: Cents,
      },
      { description: 'One definition of each figure, in the engine: the screens show these and compute none.' },
    ),
    taxes: Type.Array(Type.Object({ mark: Type.String({ description: 'The shop\'s fixed letter of this rate.' }), tax_rate: Type.Number(), taxable_cents: Cents, tax_cents: Cents })),
    tenders: Type.Array(ref(Tender)),
    reversals: Type.Array(ref(Reversal)),
    pending_tender: nullableString,
    allowed: Type.Object(
      {
        tenders: Type.Array(TenderTypeSchema, { description: 'Tenders that can be taken now.' }),
        other_tenders: Type.Array(Type.String()),
        card_manual_entry: Type.Boolean(),
        cash_suggestions: Type.Array(Cents, { description: 'Likely amounts handed over for the balance.' }),
        edit_lines: Type.Boolean(),
        void: Type.Boolean(),
        refund: Type.Boolean(),
        processor: ProcessorStatus,
      },
      { description: 'What the register allows on this sale now (the screens show only these).' },
    ),
    at: Type.String({ description: 'When the sale happened, as every screen and its receipt show it: when it was paid, else voided, else started.' }),
    created_at: Type.String(),
    updated_at: Type.String(),
    paid_at: nullableString,
    voided_at: nullableString,
  }),
);
export type Sale = Static<typeof Sale>;

export const SaleParams = Type.Object({ sale: Type.String({ minLength: 1, maxLength: 100, description: 'Sale id or receipt number' }) });
export const LineParams = Type.Object({ sale: Type.String({ minLength: 1, maxLength: 100 }), line: Type.Integer({ minimum: 1, maximum: 10_000 }) });
export const ReversalParams = Type.Object({ sale: Type.String({ minLength: 1, maxLength: 100 }), reversal: Type.Integer({ minimum: 1, maximum: 10_000 }) });

export const LineInput = Type.Object(
  {
    scan: Type.Optional(Type.String({ minLength: 1, maxLength: 60, description: 'A product code or barcode as typed or scanned; `3*CODE` sells 3.' })),
    product_code: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_QUANTITY })),
    open: Type.Optional(
      Type.Object(
        {
          description: Type.String({ minLength: 1, maxLength: 120 }),
          unit_price_cents: Money('Price before tax'),
          tax_rate: Type.Optional(TaxRate),
          category: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type LineInput = Static<typeof LineInput>;

export const SaleStart = Type.Object({ shift: ShiftId, line: Type.Optional(LineInput) }, { additionalProperties: false });
export type SaleStart = Static<typeof SaleStart>;

export const AddLine = Type.Composite([Type.Object({ shift: ShiftId }), LineInput], { additionalProperties: false });
export type AddLine = Static<typeof AddLine>;

export const LinePatch = Type.Object(
  {
    shift: ShiftId,
    quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_QUANTITY })),
    discount: Type.Optional(
      Type.Union([
        Type.Object(
          {
            percent: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100 })),
            amount_cents: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PRICE_CENTS, [AMOUNT_OF]: 'A discount' })),
            reason: Type.Optional(Type.String({ maxLength: 60 })),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ], { description: 'Exactly one of `percent` or `amount_cents`; null removes the discount.' }),
    ),
    price_override: Type.Optional(
      Type.Union([
        Type.Object({ unit_price_cents: Money('New unit price before tax'), reason: Type.String({ maxLength: 60 }) }, { additionalProperties: false }),
        Type.Null(),
      ], { description: 'A new unit price; a reason is required. null returns to the catalog price.' }),
    ),
  },
  { additionalProperties: false },
);
export type LinePatch = Static<typeof LinePatch>;

export const ShiftBody = Type.Object({ shift: ShiftId }, { additionalProperties: false });
export type ShiftBody = Static<typeof ShiftBody>;

export const TenderInput = Type.Object(
  {
    shift: ShiftId,
    type: TenderTypeSchema,
    amount_cents: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TENDER_CENTS, [AMOUNT_OF]: 'One payment', description: 'What to pay with this tender; default: the whole balance (gift card: at most its balance).' })),
    tendered_cents: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TENDER_CENTS, [AMOUNT_OF]: 'Cash handed over', description: 'Cash: the amount handed over (change is given back). With `amount_cents`, that amount is paid and the rest is change (at least `amount_cents`).' })),
    confirm_change: Type.Optional(
      Type.Boolean({ description: 'Cash: the cashier confirmed an amount handed over far above the balance (ten times it or more, and change of 100 or more); without it such an amount is refused (412 `confirm_change_required`).' }),
    ),
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'Cheque: its number (required); other: an optional reference.' })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 30, description: 'Other: one of the settings\' `other_tenders`.' })),
    manual_entry: Type.Optional(Type.Boolean({ description: 'Card: the terminal may offer keyed entry (when the settings allow it).' })),
    gift_card: Type.Optional(
      Type.Object(
        { card_number: Type.String({ minLength: 6, maxLength: 40 }), pin: Type.Optional(Type.String({ maxLength: 12 })) },
        { additionalProperties: false, description: 'Gift card: the card as scanned or typed; never stored.' },
      ),
    ),
  },
  { additionalProperties: false },
);
export type TenderInput = Static<typeof TenderInput>;

export const TenderResult = Type.Object({
  sale: ref(Sale),
  tender: ref(Tender),
  message: Type.String({ description: 'What happened, in words for the cashier, with the next step.' }),
  gift_card_balance_cents: Type.Optional(
    Type.Union([Type.Integer(), Type.Null()], {
      description: 'A gift card tender: what is left on the card once it was debited, read when it was debited (on this install, or on the hub for a lane; from the hub\'s copy less what the lane spent for a lane apart); null when not known. The message says it too.',
    }),
  ),
});

const ApprovalCode = Type.String({ minLength: 1, maxLength: 8, description: "A supervisor's cashier code, when the shift's cashier is not one: money given back needs their approval (403 `supervisor_required` without it)." });

export const VoidInput = Type.Object({ shift: ShiftId, reason: Type.Optional(Type.String({ maxLength: 120 })), approval_code: Type.Optional(ApprovalCode) }, { additionalProperties: false });
export type VoidInput = Static<typeof VoidInput>;

export const RefundInput = Type.Object(
  {
    shift: ShiftId,
    lines: Type.Optional(Type.Array(Type.Object({ line: Type.Integer({ minimum: 1 }), quantity: Type.Integer({ minimum: 1, maximum: MAX_QUANTITY }) }, { additionalProperties: false }), { minItems: 1, maxItems: 200 })),
    all: Type.Optional(Type.Boolean({ description: 'Return everything not returned yet.' })),
    reason: Type.Optional(Type.String({ maxLength: 120 })),
    dry_run: Type.Optional(Type.Boolean({ description: 'Only show how the money would go back; nothing changes.' })),
    approval_code: Type.Optional(ApprovalCode),
  },
  { additionalProperties: false },
);
export type RefundInput = Static<typeof RefundInput>;

export const SettleInput = Type.Object(
  { shift: ShiftId, method: literals(['retry', 'cash'] as const, { description: '`retry` the failed gateway steps, or give the outstanding amount in `cash`.' }) },
  { additionalProperties: false },
);
export type SettleInput = Static<typeof SettleInput>;

export const ReversalResult = Type.Object({
  sale: ref(Sale),
  reversal: Type.Union([ref(Reversal), Type.Null()]),
  message: Type.String(),
});

export const SaleList = Type.Object({ sales: Type.Array(ref(Sale)) });
export const SaleListQuery = Type.Object({
  laneid: Type.Optional(LaneId),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
});
