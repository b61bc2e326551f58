import { Type, type Static } from '@sinclair/typebox';
import { component, ref } from './components';
import { CustomerListItem } from './receivables-customers';

/** The back office's list queries and search (Laneway's own operations, not in the reference API). */
const Cursor = Type.Integer({ minimum: 1, description: 'The `next` of the page before: lists run newest first' });
const Limit = Type.Integer({ minimum: 1, maximum: 200, default: 50 });
const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', format: 'date' });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const InvoiceListQuery = Type.Object({
  status: Type.Optional(Type.Union([Type.Literal('all'), Type.Literal('open'), Type.Literal('overdue'), Type.Literal('paid'), Type.Literal('closed')], { default: 'all' })),
  customer: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Customer identifier' })),
  division: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
  due_from: Type.Optional(Day),
  due_to: Type.Optional(Day),
  date_from: Type.Optional(Day),
  date_to: Type.Optional(Day),
  amount_min: Type.Optional(Type.Integer({ description: 'Cents' })),
  amount_max: Type.Optional(Type.Integer({ description: 'Cents' })),
  before: Type.Optional(Cursor),
  limit: Type.Optional(Limit),
});

export const InvoiceRow = component(
  'BackOfficeInvoiceRow',
  Type.Object({
    number: Type.String(),
    display_number: Type.String(),
    customer_identifier: Type.String(),
    date: Type.String(),
    due_date: Nullable(Type.String()),
    due_on: Type.String({ description: 'The day the invoice falls due, as `status` reads it: its `due_date`, else (none given) its `date`' }),
    currency: Type.String(),
    amount_cents: Type.Integer(),
    owing_cents: Type.Integer(),
    status: Type.String({ description: 'CURRENT, PARTIAL, OVERDUE, PAID, CREDIT or CLOSED, as of today in the shop' }),
    division: Nullable(Type.String()),
    watermark: Type.Integer(),
  }),
);
export type InvoiceRow = Static<typeof InvoiceRow>;

const pageOf = <T extends ReturnType<typeof ref>>(item: T) =>
  Type.Object({
    items: Type.Array(item),
    next: Type.Union([Type.Integer(), Type.Null()], { description: 'Cursor of the next page (as `before`), null at the end' }),
    scanned: Type.Integer({ description: 'Records read for this page (a page stops after 20,000 even when short)' }),
  });

export const InvoicePage = pageOf(ref(InvoiceRow));
export type InvoicePage = Static<typeof InvoicePage>;

export const CustomerListQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 100, description: 'An identifier prefix (as typed, else in upper case), else the words of a name (any case, with or without accents); the same customers in either `sort`' })),
  status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed')])),
  after: Type.Optional(Type.String({ minLength: 1, maxLength: 160, description: 'The `next` of the page before (of the same `sort`)' })),
  limit: Type.Optional(Limit),
  sort: Type.Optional(
    Type.Union([Type.Literal('identifier'), Type.Literal('balance')], {
      default: 'identifier',
      description: '`identifier` (ascending, on the identifier index) or `balance`: largest balance first, on an index of customer balances kept with every customer write (ties in identifier order)',
    }),
  ),
});
export const CustomerPage = Type.Object({
  items: Type.Array(ref(CustomerListItem)),
  next: Type.Union([Type.String(), Type.Null()]),
});
export type CustomerPage = Static<typeof CustomerPage>;

export const PaymentListQuery = Type.Object({
  customer: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  before: Type.Optional(Cursor),
  limit: Type.Optional(Limit),
});
export const PaymentRow = component(
  'BackOfficePaymentRow',
  Type.Object({
    reference: Type.String(),
    token: Type.String(),
    customer_identifier: Type.String(),
    date: Type.String(),
    amount_cents: Type.Integer(),
    currency: Type.String(),
    method: Type.String(),
    status: Type.String(),
    unapplied_cents: Type.Integer({ description: 'Received but applied to no invoice (credit on account)' }),
    watermark: Type.Integer(),
  }),
);
export type PaymentRow = Static<typeof PaymentRow>;
export const PaymentPage = pageOf(ref(PaymentRow));
export type PaymentPage = Static<typeof PaymentPage>;

export const OrderListQuery = Type.Object({ before: Type.Optional(Cursor), limit: Type.Optional(Limit) });
/** An order's state on the list: a register sale's is its sale's status (`open` ... `voided`); another order's is `draft`, `open`, `partially_refunded` or `refunded`. */
export const ORDER_STATES = ['draft', 'open', 'paid', 'partially_refunded', 'refunded', 'voided'] as const;
export type OrderState = (typeof ORDER_STATES)[number];
export const OrderRow = component(
  'BackOfficeOrderRow',
  Type.Object({
    identifier: Type.String(),
    number: Nullable(Type.String({ description: "The order's number: a register sale's receipt number (1-000003)." })),
    customer_identifier: Nullable(Type.String()),
    amount_cents: Type.Union([Type.Integer(), Type.Null()]),
    currency: Nullable(Type.String()),
    draft: Type.Boolean(),
    state: Type.Union(
      ORDER_STATES.map((s) => Type.Literal(s)),
      { description: "A register sale's status as its sale answers it (`GET /api/pos/sales/{sale}`); for another order: `draft`, then `open`, `partially_refunded` or `refunded` by what its payments gave back." },
    ),
    refunded_cents: Type.Integer({ description: "Refunded or voided of what the order's payments took (0 when nothing went back); for a register sale, what the register gave back (cash included), or more when a card payment was refunded outside the register." }),
    created_at: Type.String(),
    watermark: Type.Integer(),
  }),
);
export type OrderRow = Static<typeof OrderRow>;
export const OrderPage = pageOf(ref(OrderRow));
export type OrderPage = Static<typeof OrderPage>;

export const TransactionListQuery = Type.Object({ before: Type.Optional(Cursor), limit: Type.Optional(Limit) });
/** A gateway transaction made without an order (a card sale through the API or a terminal): orders list the others. */
export const TransactionRow = component(
  'BackOfficeTransactionRow',
  Type.Object({
    token: Type.String(),
    action: Type.String(),
    state: Type.String(),
    amount_cents: Type.Integer(),
    currency: Type.String(),
    method: Type.String({ description: 'What paid, as a person names it: "Visa •••• 0006", "Bank account •••• 0016".' }),
    refunded_cents: Type.Integer(),
    created_at: Type.String(),
    watermark: Type.Integer(),
  }),
);
export type TransactionRow = Static<typeof TransactionRow>;
export const TransactionPage = pageOf(ref(TransactionRow));
export type TransactionPage = Static<typeof TransactionPage>;


export const AgingSummary = component(
  'BackOfficeAgingSummary',
  Type.Object({
    as_of: Type.String(),
    currency: Type.String(),
    customers_owing: Type.Integer(),
    buckets: Type.Array(Type.Object({ bucket: Type.String(), cents: Type.Integer() })),
    balance_cents: Type.Integer(),
    credit_cents: Type.Integer(),
    currencies: Type.Array(Type.Object({ currency: Type.String(), balance_cents: Type.Integer(), customers_owing: Type.Integer() }), {
      description: "What is owed in each currency: the shop's first, then every other with a balance or credit (ask for one with `currency`)",
    }),
  }),
);
export type AgingSummary = Static<typeof AgingSummary>;
export const AgingQuery = Type.Object({ currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$', description: "The currency of the buckets; the shop's by default" })) });

export const SearchQuery = Type.Object({ q: Type.String({ minLength: 1, maxLength: 100 }) });
export const SearchResult = Type.Object({
  hits: Type.Array(
    Type.Object({
      kind: Type.Union(['customer', 'invoice', 'payment', 'order', 'transaction', 'receipt'].map((k) => Type.Literal(k))),
      key: Type.String({ description: "What opens the hit: a customer's identifier, an invoice's number, a payment's reference, an order's identifier, a transaction's token; a receipt's is its sale's order identifier (the back office's read-only view of the sale, under Orders), not the receipt number." }),
      label: Type.String(),
    }),
  ),
});
export type SearchResult = Static<typeof SearchResult>;
