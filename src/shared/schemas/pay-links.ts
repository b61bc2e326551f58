import { Type, type Static } from '@sinclair/typebox';
import { component } from './components';

/**
 * Click-to-pay: the page a pay_url opens (GET /pay/{key}) and the two public operations behind it.
 * One definition for the OpenAPI document, the request validator and the page's script.
 */
// No pattern: a malformed key is the same 404 as any key that names no invoice.
export const PayLinkKey = Type.Object({ key: Type.String({ maxLength: 100, description: "The link's key: the last part of pay_url ({invoice id}-{token})." }) });

export const PayLinkMethod = Type.Union([Type.Literal('creditCard'), Type.Literal('ach')]);
export type PayLinkMethod = Static<typeof PayLinkMethod>;

export const PayLinkView = component(
  'PayLinkView',
  Type.Object({
    merchant: Type.String({ description: "The account's name: who asks to be paid." }),
    environment: Type.Union([Type.Literal('sandbox'), Type.Literal('production')]),
    invoice: Type.Object({
      number: Type.String({ description: 'The number the customer knows it by (display_number).' }),
      date: Type.String(),
      due_date: Type.Union([Type.String(), Type.Null()]),
      currency: Type.String({ description: 'ISO 4217, upper case.' }),
      amount_cents: Type.Integer(),
      owing_cents: Type.Integer({ description: 'All that is owed.' }),
      discount_cents: Type.Integer({ description: "The invoice's early-payment discount a payment here takes today (paid in full by discount_expiry_date); 0 for none." }),
      discount_expiry_date: Type.Union([Type.String(), Type.Null()], { description: 'The last day the discount is taken (the shop\'s zone); null without a discount.' }),
      pay_cents: Type.Integer({ description: 'What a payment here charges: owing_cents less discount_cents.' }),
      status: Type.Union([Type.Literal('owing'), Type.Literal('paid'), Type.Literal('closed')]),
    }),
    customer: Type.Object({ name: Type.String() }),
    methods: Type.Array(PayLinkMethod, { description: 'How it may be paid here.' }),
    locked_until: Type.Union([Type.String(), Type.Null()], { description: 'Set while payments are paused after too many refused attempts.' }),
  }),
);
export type PayLinkView = Static<typeof PayLinkView>;

export const PayLinkPaymentRequest = component(
  'PayLinkPaymentRequest',
  Type.Object(
    {
      type: PayLinkMethod,
      amount_cents: Type.Integer({ minimum: 1, description: 'What the payer saw and agreed to pay: must equal the invoice\'s pay_cents now (409 otherwise, nothing charged).' }),
      name: Type.Optional(Type.String({ maxLength: 50, description: 'Cardholder or account holder.' })),
      card_number: Type.Optional(Type.String({ maxLength: 23, description: 'creditCard: used once for the processor; never stored, logged or echoed.' })),
      expiry_month: Type.Optional(Type.Integer({ minimum: 1, maximum: 12 })),
      expiry_year: Type.Optional(Type.Integer({ minimum: 2000, maximum: 2100 })),
      cvv: Type.Optional(Type.String({ maxLength: 4 })),
      postal_code: Type.Optional(Type.String({ maxLength: 20, description: 'creditCard: the billing postal code (the processor checks it: AVS).' })),
      routing_number: Type.Optional(Type.String({ maxLength: 9 })),
      account_number: Type.Optional(Type.String({ maxLength: 17, description: 'ach: used once; only the last four digits are kept.' })),
      account_type: Type.Optional(Type.Union([Type.Literal('checking'), Type.Literal('savings')])),
      check_type: Type.Optional(Type.Union([Type.Literal('personal'), Type.Literal('business')])),
      attempt: Type.String({ pattern: '^[A-Za-z0-9_-]{8,64}$', description: 'Made by the page once per press of Pay: a retry of the same attempt never charges twice.' }),
    },
    { additionalProperties: false },
  ),
);
export type PayLinkPaymentRequest = Static<typeof PayLinkPaymentRequest>;

export const PayLinkOutcome = component(
  'PayLinkOutcome',
  Type.Object({
    status: Type.Union([Type.Literal('approved'), Type.Literal('in_progress'), Type.Literal('declined')]),
    message: Type.String({ description: 'What the payer reads.' }),
    amount_cents: Type.Integer(),
    currency: Type.String(),
    transaction: Type.String({ description: 'The gateway transaction token (the receipt number).' }),
    authorization_code: Type.Union([Type.String(), Type.Null()]),
    payment_method: Type.String({ description: 'e.g. "Visa **0006"; never a full number.' }),
    attempts_left: Type.Integer({ description: 'Refused payments the link still takes before it pauses.' }),
    paid_at: Type.String({ format: 'date-time', description: "When the payment was taken, by the install's clock (the sandbox clock when it was moved): the receipt's date." }),
  }),
);
export type PayLinkOutcome = Static<typeof PayLinkOutcome>;
