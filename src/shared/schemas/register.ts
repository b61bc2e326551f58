import { Type, type Static } from '@sinclair/typebox';
import { component, ref } from './registry';
import { LaneId, literals } from './lanes';

/**
 * The point of sale (register) API under /api/pos: catalog, cashiers and their shifts on a lane,
 * sales (a draft order plus register records), tenders, voids and refunds, receipts, X and Z
 * reports. Amounts are integer minor units of the account currency; tax rates and discounts are
 * percentages (13, 8.875).
 */
const nullableString = Type.Union([Type.String(), Type.Null()]);
const nullableInt = Type.Union([Type.Integer(), Type.Null()]);
const Cents = Type.Integer({ description: 'Minor currency units' });
const Money = (description: string) => Type.Integer({ minimum: 0, maximum: 9_999_999, description });
const TaxRate = Type.Number({ minimum: 0, maximum: 100, description: 'Tax rate in percent, at most three decimals (13, 8.875).' });
const ShiftId = Type.String({ minLength: 1, maxLength: 64, description: 'The cashier\'s shift on a lane (from POST /api/pos/shifts): who does this, and on which lane.' });

export const TENDER_TYPES = ['card', 'cash', 'cheque', 'gift_card', 'other'] as const;
export type TenderType = (typeof TENDER_TYPES)[number];
const TenderTypeSchema = literals(TENDER_TYPES);

// ---- catalog ----

const ProductCode = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$', description: 'Product code (1 to 40 letters, digits, `.`, `_`, `-`), typed or scanned at the register.' });
const Barcode = Type.String({ pattern: '^[0-9]{8}$|^[0-9]{12,14}$', description: 'GTIN (EAN-8, UPC-A, EAN-13 or GTIN-14) with a valid check digit.' });

export const Product = component(
  'PosProduct',
  Type.Object({
    code: Type.String(),
    description: Type.String(),
    price_cents: Cents,
    tax_rate: Type.Number({ description: 'Percent' }),
    category: Type.String(),
    barcode: nullableString,
    active: Type.Boolean({ description: 'Inactive products cannot be sold.' }),
    created_at: Type.String(),
    updated_at: Type.String(),
  }),
);
export type Product = Static<typeof Product>;

export const ProductCreate = Type.Object(
  {
    code: ProductCode,
    description: Type.String({ minLength: 1, maxLength: 120 }),
    price_cents: Money('Price before tax'),
    tax_rate: TaxRate,
    category: Type.String({ minLength: 1, maxLength: 60 }),
    barcode: Type.Optional(Type.Union([Barcode, Type.Null()])),
    active: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);
export type ProductCreate = Static<typeof ProductCreate>;

export const ProductPatch = Type.Object(
  {
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
    price_cents: Type.Optional(Money('Price before tax')),
    tax_rate: Type.Optional(TaxRate),
    category: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
    barcode: Type.Optional(Type.Union([Barcode, Type.Null()])),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type ProductPatch = Static<typeof ProductPatch>;

export const ProductQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 100, description: 'Words that must all appear in the description, code, barcode or category (any case).' })),
  category: Type.Optional(Type.String({ maxLength: 60 })),
  include_inactive: Type.Optional(Type.Boolean({ default: false })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
});
export type ProductQuery = Static<typeof ProductQuery>;

export const ProductParams = Type.Object({ code: Type.String({ minLength: 1, maxLength: 40 }) });

// ---- cashiers and shifts ----

const CashierCode = Type.String({ pattern: '^[0-9]{4,8}$', description: '4 to 8 digits; only a keyed hash is stored.' });

export const Cashier = component(
  'PosCashier',
  Type.Object({
    id: Type.String(),
    name: Type.String(),
    active: Type.Boolean(),
    created_at: Type.String(),
    updated_at: Type.String(),
    last_sign_in_at: nullableString,
  }),
);
export type Cashier = Static<typeof Cashier>;

export const CashierCreate = Type.Object({ name: Type.String({ minLength: 1, maxLength: 60 }), code: CashierCode }, { additionalProperties: false });
export type CashierCreate = Static<typeof CashierCreate>;

export const CashierPatch = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })), code: Type.Optional(CashierCode), active: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export type CashierPatch = Static<typeof CashierPatch>;

export const CashierParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

const CashierRef = Type.Object({ id: Type.String(), name: Type.String() });

export const ShiftOpen = Type.Object({ laneid: LaneId, code: Type.String({ minLength: 1, maxLength: 8 }) }, { additionalProperties: false });
export type ShiftOpen = Static<typeof ShiftOpen>;

export const Shift = component(
  'PosShift',
  Type.Object({
    id: Type.String({ description: 'Send it as `shift` with every register call made by this cashier on this lane.' }),
    laneid: Type.String(),
    cashier: CashierRef,
    opened_at: Type.String(),
    closed_at: nullableString,
    closed_reason: Type.Union([literals(['signed_out', 'replaced', 'deactivated'] as const), Type.Null()]),
  }),
);
export type Shift = Static<typeof Shift>;

export const ShiftParams = Type.Object({ shift: ShiftId });

// ---- settings ----

export const RegisterSettings = component(
  'PosSettings',
  Type.Object({
    tenders: Type.Object({ card: Type.Boolean(), cash: Type.Boolean(), cheque: Type.Boolean(), gift_card: Type.Boolean(), other: Type.Boolean() }, { additionalProperties: false }),
    other_tenders: Type.Array(Type.String({ minLength: 1, maxLength: 30 }), { maxItems: 8, description: 'Names of the external tenders offered as "other" (Voucher, Bank transfer...).' }),
    card_manual_entry: Type.Boolean({ description: 'A cashier may let the terminal offer keyed card entry.' }),
    default_tax_rate: TaxRate,
    receipt_footer: Type.Array(Type.String({ maxLength: 48 }), { maxItems: 4 }),
    tax_marks: Type.Array(Type.Object({ tax_rate: Type.Number(), mark: Type.String() }), {
      description: 'The shop\'s fixed letter for each tax rate it has used: given the first time a rate is used (the sample catalog\'s 0, 5 and 13% are A, B, C) and never changed, so a letter means the same rate on every receipt.',
    }),
    updated_at: nullableString,
  }),
);
export type RegisterSettings = Static<typeof RegisterSettings>;

export const SettingsPatch = Type.Object(
  {
    tenders: Type.Optional(
      Type.Object(
        {
          card: Type.Optional(Type.Boolean()),
          cash: Type.Optional(Type.Boolean()),
          cheque: Type.Optional(Type.Boolean()),
          gift_card: Type.Optional(Type.Boolean()),
          other: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
    other_tenders: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 30 }), { maxItems: 8 })),
    card_manual_entry: Type.Optional(Type.Boolean()),
    default_tax_rate: Type.Optional(TaxRate),
    receipt_footer: Type.Optional(Type.Array(Type.String({ maxLength: 48 }), { maxItems: 4 })),
  },
  { additionalProperties: false },
);
export type SettingsPatch = Static<typeof SettingsPatch>;

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

const CardFacts = Type.Object({
  brand: Type.String(),
  masked_number: nullableString,
  last4: Type.String(),
  entry_mode: nullableString,
  aid: nullableString,
  application_label: nullableString,
  tvr: nullableString,
  tsi: nullableString,
  cardholder_verification: nullableString,
  authorization_code: nullableString,
  signature: Type.Boolean({ description: 'A signature was captured on the device (the receipt carries the image).' }),
});

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
    laneid: Type.String(),
    drawer_opened: Type.Boolean(),
    created_at: Type.String(),
    completed_at: nullableString,
  }),
);
export type Reversal = Static<typeof Reversal>;

export const SALE_STATUSES = ['open', 'paid', 'voided', 'partially_refunded', 'refunded'] as const;

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
    quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 999 })),
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
    quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 999 })),
    discount: Type.Optional(
      Type.Union([
        Type.Object(
          {
            percent: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100 })),
            amount_cents: Type.Optional(Type.Integer({ minimum: 1, maximum: 9_999_999 })),
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
    amount_cents: Type.Optional(Type.Integer({ minimum: 1, maximum: 999_999_999, description: 'What to pay with this tender; default: the whole balance (gift card: at most its balance).' })),
    tendered_cents: Type.Optional(Type.Integer({ minimum: 1, maximum: 999_999_999, description: 'Cash: the amount handed over (change is given back).' })),
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
});

export const VoidInput = Type.Object({ shift: ShiftId, reason: Type.Optional(Type.String({ maxLength: 120 })) }, { additionalProperties: false });
export type VoidInput = Static<typeof VoidInput>;

export const RefundInput = Type.Object(
  {
    shift: ShiftId,
    lines: Type.Optional(Type.Array(Type.Object({ line: Type.Integer({ minimum: 1 }), quantity: Type.Integer({ minimum: 1, maximum: 999 }) }, { additionalProperties: false }), { minItems: 1, maxItems: 200 })),
    all: Type.Optional(Type.Boolean({ description: 'Return everything not returned yet.' })),
    reason: Type.Optional(Type.String({ maxLength: 120 })),
    dry_run: Type.Optional(Type.Boolean({ description: 'Only show how the money would go back; nothing changes.' })),
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

// ---- receipts ----

export const Receipt = component(
  'PosReceipt',
  Type.Object({
    kind: literals(['sale', 'refund', 'void'] as const, { description: 'What happened: a sale, a refund of some or all of it, or a void of the whole sale.' }),
    copy: Type.Boolean({ description: 'A reprint: printed as a duplicate.' }),
    merchant: Type.String(),
    lane: Type.String(),
    cashier: Type.String(),
    number: Type.String({ description: 'This document\'s number: the sale\'s receipt number, or the refund\'s or void\'s own (`<laneid>-R…`, `<laneid>-V…`).' }),
    sale_number: Type.String({ description: 'The sale\'s receipt number (a refund or void names the sale it reverses).' }),
    status: literals(SALE_STATUSES),
    at: Type.String(),
    currency: Type.String(),
    lines: Type.Array(
      Type.Object({
        description: Type.String(),
        product_code: nullableString,
        quantity: Type.Integer(),
        unit_price_cents: Cents,
        amount_cents: Type.Integer({ description: 'After the line\'s discount, before tax (as on the sale screen); negative on a refund or void.' }),
        tax_mark: Type.String({ description: 'The shop\'s fixed letter of the line\'s tax rate (the same letter for the same rate on every receipt).' }),
        notes: Type.Array(Type.String()),
      }),
    ),
    subtotal_cents: Type.Integer({ description: 'The sum of the lines\' amounts (negative on a refund or void).' }),
    discount_cents: Type.Integer({ description: 'Line discounts included in the subtotal.' }),
    taxes: Type.Array(Type.Object({ mark: Type.String(), tax_rate: Type.Number(), taxable_cents: Type.Integer(), tax_cents: Type.Integer() })),
    total_cents: Type.Integer({ description: 'subtotal + taxes; negative on a refund or void (money back).' }),
    tip_cents: Type.Integer({ description: 'Card tips on top of the total (negative: tips given back by a void).' }),
    paid_cents: Type.Integer({ description: 'What the tenders took in all, tips included (negative: what went back).' }),
    outstanding_cents: Type.Integer({ description: 'A refund or void not completed: what is still owed to the customer (0 otherwise).' }),
    tenders: Type.Array(
      Type.Object({
        label: Type.String(),
        amount_cents: Type.Integer({ description: 'What this tender paid of the total (negative: what went back to it).' }),
        tip_cents: Type.Integer({ description: 'The card tip on top of `amount_cents`.' }),
        tendered_cents: nullableInt,
        change_cents: Cents,
        method: nullableString,
        card: Type.Union([CardFacts, Type.Null()]),
        transaction: nullableString,
        signature: Type.Union([Type.Object({ media_type: Type.String(), data: Type.String({ description: 'Base64 image' }) }), Type.Null()]),
      }),
    ),
    change_cents: Cents,
    footer: Type.Array(Type.String()),
  }),
);
export type Receipt = Static<typeof Receipt>;

export const ReceiptQuery = Type.Object({
  reversal: Type.Optional(Type.Integer({ minimum: 1, description: 'The receipt of this refund or void (its `number`) instead of the sale\'s.' })),
  copy: Type.Optional(Type.Boolean({ default: false, description: 'A reprint, marked as a duplicate.' })),
});

// ---- registers and reports ----

const TenderTotal = Type.Object({
  type: TenderTypeSchema,
  label: Type.String(),
  count: Type.Integer(),
  in_cents: Type.Integer({ description: 'What the tender paid of sales (without tips).' }),
  out_cents: Type.Integer({ description: 'What went back to it for voids and refunds (without tips).' }),
  tip_cents: Type.Integer({ description: 'Card tips taken on top of sales, minus tips given back with a void.' }),
  net_cents: Type.Integer({ description: 'in + tips − out: what the tender holds (for cards, what the card batch carries).' }),
});

export const RegisterReport = component(
  'PosRegisterReport',
  Type.Object({
    kind: literals(['x', 'z'] as const),
    laneid: Type.String(),
    period: Type.Integer({ description: 'The register period: the Z number that will close (or closed) it.' }),
    from: Type.String(),
    to: Type.String(),
    currency: Type.String(),
    sales: Type.Object({
      count: Type.Integer(),
      subtotal_cents: Type.Integer({ description: 'The sales\' subtotals: line amounts after discounts, before tax (as on their receipts).' }),
      discount_cents: Type.Integer({ description: 'Line discounts given (already out of the subtotal).' }),
      tax_cents: Cents,
      total_cents: Cents,
    }),
    voids: Type.Object({ count: Type.Integer(), tax_cents: Cents, total_cents: Cents }),
    refunds: Type.Object({ count: Type.Integer(), tax_cents: Cents, total_cents: Cents }),
    net_sales_cents: Type.Integer({ description: 'Sales − voids − refunds, tax included.' }),
    net_tax_cents: Type.Integer(),
    taxes: Type.Array(Type.Object({ mark: Type.String(), tax_rate: Type.Number(), taxable_cents: Type.Integer(), tax_cents: Type.Integer() })),
    tips: Type.Object({ count: Type.Integer(), total_cents: Type.Integer() }, { description: 'Card tips, apart from sales: not in net sales, in the card tenders\' net.' }),
    tenders: Type.Array(TenderTotal),
    cash: Type.Object({ in_cents: Cents, out_cents: Cents, net_cents: Type.Integer({ description: 'What the drawer should hold beyond its float.' }), drawer_opens: Type.Integer() }),
    declined: Type.Integer({ description: 'Card and gift card attempts declined or failed.' }),
    cashiers: Type.Array(
      Type.Object({
        cashier: CashierRef,
        sales_count: Type.Integer(),
        sales_total_cents: Cents,
        voids_count: Type.Integer(),
        voids_total_cents: Cents,
        refunds_count: Type.Integer(),
        refunds_total_cents: Cents,
        tips_count: Type.Integer(),
        tips_cents: Type.Integer(),
        tenders: Type.Array(TenderTotal),
      }),
    ),
    z: Type.Union([
      Type.Object({
        number: Type.Integer(),
        closed_at: Type.String(),
        closed_by: CashierRef,
        batch_closed: Type.Boolean(),
        batches: Type.Array(
          Type.Object({ token: Type.String(), processing_date: Type.String(), transaction_count: Type.Integer(), sales_cents: Cents, refunds_cents: Cents, net_cents: Type.Integer() }),
        ),
        reconciliation: Type.Union(
          [
            Type.Object({
              lane_card_net_cents: Type.Integer({ description: 'This report\'s card net (sales + tips − refunds and voids).' }),
              lane_in_batches_cents: Type.Integer({ description: 'The part of it in the batches this Z closed.' }),
              lane_elsewhere_cents: Type.Integer({ description: 'The part of it not in those batches (closed earlier, at a cut-off or by an earlier Z).' }),
              others: Type.Array(Type.Object({ source: Type.String({ description: '"Lane 2", or card payments not taken on a register.' }), count: Type.Integer(), net_cents: Type.Integer() })),
              batch_net_cents: Type.Integer({ description: 'The batches\' net: lane_in_batches + the others\' nets, to the cent.' }),
            }),
            Type.Null(),
          ],
          { description: 'How the lane\'s card net and the card batch net meet, to the cent (null when the batch was not closed).' },
        ),
      }),
      Type.Null(),
    ]),
  }),
);
export type RegisterReport = Static<typeof RegisterReport>;

export const RegisterParams = Type.Object({ laneid: LaneId });
export const ZParams = Type.Object({ laneid: LaneId, number: Type.Integer({ minimum: 1 }) });

export const ZInput = Type.Object(
  {
    shift: ShiftId,
    close_batch: Type.Optional(Type.Boolean({ default: true, description: 'Also close the processing day\'s card batch now (for the whole account, every lane).' })),
    confirm_empty: Type.Optional(
      Type.Boolean({ description: 'Close the period even though nothing happened on the lane since its last Z (no sale, tender, refund, drawer opening or card attempt); without it such a Z is refused (412 `z_empty`).' }),
    ),
  },
  { additionalProperties: false },
);
export type ZInput = Static<typeof ZInput>;

export const ZList = Type.Object({ reports: Type.Array(ref(RegisterReport)) });

export const Register = component(
  'PosRegister',
  Type.Object({
    laneid: Type.String(),
    lane: Type.Object({ name: Type.String(), status: Type.String(), activity: Type.String(), last_error: nullableString }),
    merchant: Type.String(),
    currency: Type.String(),
    period: Type.Integer(),
    period_started_at: Type.String(),
    signed_in: Type.Union([Type.Object({ cashier: Type.String(), since: Type.String() }), Type.Null()], { description: 'Who is signed in on this lane (never the shift id).' }),
    open_sale: Type.Union([ref(Sale), Type.Null()]),
    last_z: Type.Union([Type.Object({ number: Type.Integer(), closed_at: Type.String() }), Type.Null()]),
  }),
);
export type Register = Static<typeof Register>;
