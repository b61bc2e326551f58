import { Type, type Static } from '@sinclair/typebox';
import { component, ref } from './components';
import { LaneId, literals } from './lanes';
import { CashierRef } from './register-catalog';
import { Cents, CardFacts, ShiftId, TenderTypeSchema, nullableInt, nullableString } from './register-common';
import { ProcessorStatus, SALE_STATUSES, Sale } from './register-sales';

/** Receipts, X and Z reports, and the register of a lane (see register.ts). */

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
    voids: Type.Object({ count: Type.Integer(), tax_cents: Cents, total_cents: Cents }, { description: 'Paid sales voided (every payment given back): their totals come off net sales.' }),
    open_voids: Type.Object(
      { count: Type.Integer(), total_cents: Cents },
      {
        description:
          'Open sales voided before they were paid in full (a basket rung up, then voided), with what they came to. Never sales, so in no total: not in sales, voids or net sales; anything paid on them went back (in the tenders\' out). A Z closed before they were counted reads 0.',
      },
    ),
    refunds: Type.Object({ count: Type.Integer(), tax_cents: Cents, total_cents: Cents }),
    outside: Type.Object(
      { count: Type.Integer(), total_cents: Cents },
      {
        description:
          'Of the voids and refunds: card and gift card payments of this lane\'s sales given back outside the register (the back office, the API), counted in the period open when they were made, on the lane of the sale. No items came back with them, so they carry no tax; their cashier reads "Back office or API (outside the register)".',
      },
    ),
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
    processor: ProcessorStatus,
  }),
);
export type Register = Static<typeof Register>;
