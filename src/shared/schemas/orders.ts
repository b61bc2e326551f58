import { Type, type Static } from '@sinclair/typebox';
import { component, ref } from './components';
import { EXPECTED, ExportQuery, Watermark } from './common';

/**
 * Orders: the sales document of the merchant's ERP or web shop. Amounts are integer cents; existing
 * clients send some of them as digit strings (ActiveMerchant sends `"amount_cents": "500"`), so the
 * request side accepts both and the engine stores integers.
 */
/** The largest amount an order (or one of its lines) holds, either way: 11 digits of minor units. */
export const MAX_ORDER_CENTS = 99_999_999_999;

export const LooseCents = Type.Union([Type.Integer({ minimum: -MAX_ORDER_CENTS, maximum: MAX_ORDER_CENTS }), Type.String({ pattern: '^-?[0-9]{1,11}$' })], {
  description: 'Integer minor units; a string of digits is accepted too.',
  [EXPECTED]: 'a whole number of cents (at most 11 digits)',
});

const text = (max = 255) => Type.String({ maxLength: max });
const optText = (max = 255) => Type.Optional(Type.Union([text(max), Type.Null()]));
const Country = Type.Optional(Type.Union([Type.String({ pattern: '^[A-Za-z]{2,3}$' }), Type.Null(), Type.Literal('')]));

/** Scalar values of extra (extended) attributes such as `order_att1` or `orderitem_attr1`. */
const ExtraValue = Type.Union([Type.String({ maxLength: 2000 }), Type.Number(), Type.Boolean(), Type.Null()]);
const Attributes = Type.Record(Type.String({ maxLength: 100 }), ExtraValue, { description: 'Key/value pairs.' });

export const OrderItemInput = Type.Object(
  {
    number: Type.Optional(Type.Union([text(100), Type.Integer(), Type.Null()])),
    description: optText(2000),
    quantity: Type.Optional(Type.Union([Type.Number(), Type.String({ pattern: '^-?[0-9]+(\\.[0-9]+)?$' }), Type.Null()])),
    unit_cost_cents: Type.Optional(Type.Union([LooseCents, Type.Null()])),
    amount_cents: Type.Optional(Type.Union([LooseCents, Type.Null()])),
    tax_amount_cents: Type.Optional(Type.Union([LooseCents, Type.Null()])),
    discount_amount_cents: Type.Optional(Type.Union([LooseCents, Type.Null()])),
    product_code: optText(),
    category: optText(),
    attributes: Type.Optional(Type.Union([Attributes, Type.Null()])),
    L3_commodity_code: optText(),
    L3_unit_of_measure: optText(),
    L3_discount_amount: optText(),
    L3_tax_amount: optText(),
    L3_product_code: optText(),
  },
  { additionalProperties: ExtraValue },
);
export type OrderItemInput = Static<typeof OrderItemInput>;

/** What an order's view carries and the service assigns: sent back on import, accepted and ignored. */
const ignored = (what: string) => `Read-only (${what}): accepted on import so that an order read can be sent back, and ignored.`;
const readOnlyOrderFields = {
  watermark: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: ignored('assigned at each change') })),
  transactions: Type.Optional(Type.Union([Type.Array(Type.Unknown(), { maxItems: 10_000 }), Type.Null()], { description: ignored("the order's gateway transactions") })),
  created_at: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Null()], { description: ignored('set when the order is created') })),
  updated_at: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Null()], { description: ignored('set at each change') })),
};
/** The keys of readOnlyOrderFields: the order import skips them (never stored, not extended attributes). */
export const ORDER_READ_ONLY_FIELDS: readonly string[] = Object.keys(readOnlyOrderFields);

const orderFields = {
  identifier: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\u0000-\\u001f/]+$', description: 'Generated when absent.' })),
  number: optText(100),
  currency: Type.Optional(Type.Union([Type.String({ pattern: '^[A-Za-z]{3}$' }), Type.Null()])),
  amount_cents: Type.Optional(Type.Union([LooseCents, Type.Null()])),
  date: Type.Optional(Type.Union([Type.String({ format: 'date' }), Type.Null()])),
  billing_name: optText(),
  billing_address: optText(),
  billing_address2: optText(),
  billing_city: optText(),
  billing_country: Country,
  billing_email: optText(),
  billing_telephone: optText(60),
  billing_postalcode: optText(20),
  billing_state_province: optText(60),
  shipping_name: optText(),
  shipping_address: optText(),
  shipping_address2: optText(),
  shipping_city: optText(),
  shipping_country: Country,
  shipping_email: optText(),
  shipping_telephone: optText(60),
  shipping_postalcode: optText(20),
  shipping_state_province: optText(60),
  customer_identifier: optText(100),
  draft: Type.Optional(Type.Boolean({ description: 'true: a draft; false or absent: published.' })),
  settlement_token: optText(40),
  attributes: Type.Optional(Type.Union([Attributes, Type.Null()])),
  L3_po_number: optText(),
  L3_tax: optText(),
  L3_duty: optText(),
  L3_shipping: optText(),
  L3_ship_from_zip: optText(20),
  L3_ship_from_country: Type.Optional(Type.Union([Type.String({ pattern: '^[A-Za-z]{2}$' }), Type.Null(), Type.Literal('')])),
  order_items: Type.Optional(Type.Union([Type.Array(OrderItemInput, { maxItems: 1000 }), Type.Null()])),
  ...readOnlyOrderFields,
};

export const OrderInput = component(
  'OrderInput',
  Type.Object(orderFields, {
    additionalProperties: ExtraValue,
    description:
      'An order. Keys not listed (such as `order_att1`) are kept as extended attributes. The read-only fields of the order as it is read (`watermark`, `transactions`, `created_at`, `updated_at`) are accepted and ignored, so an order read with GET can be edited and sent back.',
  }),
);
export type OrderInput = Static<typeof OrderInput>;

export const OrderItem = component(
  'OrderItem',
  Type.Object(
    {
      number: Type.Union([Type.String(), Type.Null()]),
      description: Type.Union([Type.String(), Type.Null()]),
      quantity: Type.Union([Type.Number(), Type.Null()]),
      unit_cost_cents: Type.Union([Type.Integer(), Type.Null()]),
      amount_cents: Type.Union([Type.Integer(), Type.Null()]),
      tax_amount_cents: Type.Union([Type.Integer(), Type.Null()]),
      discount_amount_cents: Type.Union([Type.Integer(), Type.Null()]),
      product_code: Type.Union([Type.String(), Type.Null()]),
      category: Type.Union([Type.String(), Type.Null()]),
      attributes: Type.Union([Attributes, Type.Null()]),
      // Level 3 data of the line, as the order's own L3 fields: as imported, null when not sent.
      L3_commodity_code: Type.Union([Type.String(), Type.Null()], { description: 'As imported; null when not sent.' }),
      L3_unit_of_measure: Type.Union([Type.String(), Type.Null()], { description: 'As imported; null when not sent.' }),
      L3_discount_amount: Type.Union([Type.String(), Type.Null()], { description: 'As imported (text, e.g. "1.00"); null when not sent.' }),
      L3_tax_amount: Type.Union([Type.String(), Type.Null()], { description: 'As imported (text, e.g. "0.50"); null when not sent.' }),
      L3_product_code: Type.Union([Type.String(), Type.Null()], { description: 'As imported; null when not sent.' }),
    },
    { additionalProperties: true },
  ),
);

const nullableString = Type.Union([Type.String(), Type.Null()]);

/** The order as exports and views show it; the gateway transactions of the order are appended. */
export const Order = component(
  'Order',
  Type.Object(
    {
      watermark: Watermark,
      identifier: Type.String(),
      number: nullableString,
      currency: nullableString,
      amount_cents: Type.Union([Type.Integer(), Type.Null()]),
      date: nullableString,
      draft: Type.Boolean(),
      customer_identifier: nullableString,
      settlement_token: nullableString,
      attributes: Type.Union([Attributes, Type.Null()]),
      order_items: Type.Array(ref(OrderItem)),
      transactions: Type.Array(Type.Ref('OrderTransaction')),
      created_at: Type.String(),
      updated_at: Type.String(),
    },
    { additionalProperties: true, description: 'Billing, shipping and L3 fields are present as imported; extended attributes appear as their own keys.' },
  ),
);

export const OrderImportResponse = Type.Object({
  message: Type.String({ examples: ['1 order 2 order item(s)'] }),
  identifier: Type.String(),
  order: ref(Order),
});

export const OrderExportQuery = ExportQuery;

export const PublishedOrderExportQuery = Type.Composite([
  ExportQuery,
  Type.Object({
    options: Type.Optional(
      Type.Object({
        extended_attributes: Type.Optional(
          Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 2000 }), {
            description: '`options[extended_attributes][key]=value`: only published orders whose extended attribute `key` equals `value`.',
          }),
        ),
      }),
    ),
  }),
]);
export type PublishedOrderExportQuery = Static<typeof PublishedOrderExportQuery>;

export const OrderExportPage = (item = ref(Order)) =>
  Type.Object({ orders: Type.Union([Type.Record(Type.String({ pattern: '^[0-9]+$' }), item), Type.Array(item)]) });
