import { Type, type Static } from '@sinclair/typebox';
import { component, ref } from './components';

/**
 * The public ecommerce API (/api/v2), in the reference's own camelCase shapes
 * (ecommerce-api-2.0.0). Amounts here are decimal currency units, as the reference has them; the
 * engine turns them into integer minor units at once. Tokens are this product's: a little longer
 * than the reference's 12 characters, same alphabet.
 */
const text = (max = 255) => Type.String({ maxLength: max });

export const SessionId = Type.String({
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  description: 'The session ID returned by a POST to /sessions',
});
export const FundToken = Type.String({ pattern: '^[0-9A-Z]{12,40}$', description: 'The token of a payment method (a card, bank account or gift card)' });
export const WalletId = Type.String({ pattern: '^[0-9A-Z]{12,40}$', description: 'The wallet ID returned by a POST to /wallets' });
export const OrderId = Type.String({ minLength: 1, maxLength: 255, description: 'The order ID returned by a POST to /sessions/{id}/sales' });
const Decimal = (description: string) => Type.Number({ minimum: 0, maximum: 999_999_999, description });

export const EcommerceError = component(
  'EcommerceError',
  Type.Object(
    {
      message: Type.String(),
      code: Type.Optional(Type.String({ description: 'Laneway: a stable code for the error (`payment_method_verification_failed`, `duplicate_payment`...); assert this, not the message.' })),
      errors: Type.Array(Type.Object({ path: Type.String(), message: Type.String() })),
    },
    { description: "The reference's error: a message and one entry per problem, `path` naming the field (a JSON pointer), plus Laneway's `code`." },
  ),
);

export const EcommercePaymentError = component(
  'EcommercePaymentError',
  Type.Object(
    {
      message: Type.String(),
      errors: Type.Array(Type.Object({ path: Type.String(), response_code: Type.String(), message: Type.String() })),
      orderId: Type.Optional(Type.String({ description: 'The order the declined payment was for (it stays, not finalized: add another payment to it).' })),
    },
    { description: 'A declined payment: `response_code` is the gateway response code (GET /api/reference_data/v1/response_codes).' },
  ),
);

export const GatewayAuthorization = component(
  'EcommerceGatewayAuthorization',
  Type.Object({ apiToken: Type.String({ minLength: 1, maxLength: 200 }), apiKey: Type.String({ minLength: 1, maxLength: 200 }) }, { description: 'The API token and key (HTTP Basic is accepted instead).' }),
);

const PaymentMethod = Type.Union(['creditCard', 'ach', 'giftCard', 'applePay'].map((v) => Type.Literal(v)));
export type PaymentMethodName = 'creditCard' | 'ach' | 'giftCard' | 'applePay';

// `name` names the field an option is for. The reference's own PaymentTypes example sends applePay
// entries without one ({"label": "applePay"}): accepted, and they change no field.
const FieldOption = Type.Object({
  name: Type.Optional(text(60)),
  label: Type.Optional(text(120)),
  placeholder: Type.Optional(text(120)),
  errorLabel: Type.Optional(text(200)),
  allowLabelUpdate: Type.Optional(Type.Boolean()),
  id: Type.Optional(text(60)),
});

export const PaymentTypeOption = component(
  'EcommercePaymentType',
  Type.Object({ name: PaymentMethod, label: Type.Optional(text(120)), promoted: Type.Optional(Type.Boolean()), fields: Type.Optional(Type.Array(FieldOption, { maxItems: 20 })) }),
);
export type PaymentTypeOption = Static<typeof PaymentTypeOption>;

export const AvsRules = Type.Object({
  rejectAddressMismatch: Type.Optional(Type.Boolean({ description: 'Refuse a card payment whose AVS answer says the street does not match (N, W, Z).' })),
  rejectPostCodeMismatch: Type.Optional(Type.Boolean({ description: 'Refuse a card payment whose AVS answer says the postal code does not match (N, A).' })),
  rejectUnknown: Type.Optional(Type.Boolean({ description: 'Refuse a card payment whose address could not be checked (U, R, S, G, I, E, P, or no postal code).' })),
});
export type AvsRules = Static<typeof AvsRules>;

const walletBase = {
  id: Type.Optional(WalletId),
  customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[0-9A-Za-z_-]+$' })),
  tokens: Type.Optional(Type.Array(FundToken, { maxItems: 100 })),
  allowAdd: Type.Optional(Type.Boolean()),
  allowEdit: Type.Optional(Type.Boolean()),
  allowDelete: Type.Optional(Type.Boolean()),
  saveByDefault: Type.Optional(Type.Boolean()),
};
export const WalletOptions = Type.Object(walletBase);
export type WalletOptions = Static<typeof WalletOptions>;

const optionFields = {
  paymentTypes: Type.Optional(Type.Array(ref(PaymentTypeOption), { maxItems: 4 })),
  avsRules: Type.Optional(AvsRules),
  currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: "Laneway: the currency of `amount` (ISO 4217), in which the frame shows amounts: the account's currency, the one sales are charged in. Left out, it is the account's; another is refused (400 `currency_mismatch`)." })),
  fields: Type.Optional(Type.Array(FieldOption, { maxItems: 20, deprecated: true })),
  amount: Type.Optional(Decimal("Laneway: the amount the buyer is to pay, more than zero with no more decimals than the account's currency. With it, a gift card whose balance is less is a partial payment (client.onPartialPayment) and the frame asks for another method for the rest.")),
};

export const SessionOptions = component('EcommerceSessionOptions', Type.Object({ wallet: Type.Optional(WalletOptions), ...optionFields }));
export type SessionOptions = Static<typeof SessionOptions>;

export const SessionRequest = component('EcommerceSessionRequest', Type.Object({ gatewayAuthorization: Type.Optional(ref(GatewayAuthorization)), options: ref(SessionOptions) }));
export type SessionRequest = Static<typeof SessionRequest>;
export const SessionResponse = Type.Object({ id: SessionId });

export const CreditCardToken = Type.Object({
  token: FundToken,
  accountHolder: Type.Optional(Type.String()),
  accountNumberLastFour: Type.Optional(Type.String({ pattern: '^[0-9]{4}$' })),
  expirationMonth: Type.Optional(Type.Integer()),
  expirationYear: Type.Optional(Type.Integer()),
  brand: Type.Optional(Type.String()),
  editable: Type.Optional(Type.Boolean()),
});
export const BankAccountToken = Type.Object({
  token: FundToken,
  accountHolder: Type.Optional(Type.String()),
  routingNumber: Type.Optional(Type.String()),
  accountNumberLastFour: Type.Optional(Type.String({ pattern: '^[0-9]{4}$' })),
  currency: Type.Optional(Type.String()),
  editable: Type.Optional(Type.Boolean()),
});

export const SessionView = component(
  'EcommerceSessionView',
  Type.Object({
    wallet: Type.Optional(Type.Object({ ...walletBase, creditCardTokens: Type.Array(CreditCardToken), bankAccountTokens: Type.Array(BankAccountToken) })),
    ...optionFields,
    paymentTypes: Type.Array(ref(PaymentTypeOption)),
    expiresAt: Type.String({ description: 'Laneway: when the session expires (ISO 8601).' }),
    environment: Type.String({ description: 'Laneway: sandbox or production.' }),
  }),
);
export type SessionView = Static<typeof SessionView>;

export const TokenRequest = component(
  'EcommerceTokenRequest',
  Type.Object({
    type: PaymentMethod,
    addToWallet: Type.Optional(Type.Boolean()),
    captchaToken: Type.Optional(text(4000)),
    accountHolder: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
    accountNumber: Type.Optional(Type.String({ pattern: '^[0-9]{4,34}$', description: 'Used once; never stored, logged or echoed.' })),
    expirationMonth: Type.Optional(Type.Integer({ minimum: 1, maximum: 12 })),
    expirationYear: Type.Optional(Type.Integer({ minimum: 2020, maximum: 2099 })),
    cardVerificationValue: Type.Optional(Type.String({ pattern: '^[0-9]{3,4}$' })),
    pin: Type.Optional(Type.String({ pattern: '^[0-9]{3,12}$' })),
    routingNumber: Type.Optional(Type.String({ pattern: '^[0-9]{8,9}$' })),
    checkType: Type.Optional(Type.Union([Type.Literal('business'), Type.Literal('personal')])),
    accountType: Type.Optional(Type.Union([Type.Literal('checking'), Type.Literal('savings')])),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
  }),
);
export type TokenRequest = Static<typeof TokenRequest>;
export const TokenResponse = Type.Object({ token: FundToken });

export const SimpleRequest = Type.Object({ gatewayAuthorization: Type.Optional(ref(GatewayAuthorization)) });
export const WalletResponse = Type.Object({ walletId: WalletId });

export const CreditCardTokenUpdate = Type.Object({
  accountHolder: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
  expirationMonth: Type.Optional(Type.Integer({ minimum: 1, maximum: 12 })),
  expirationYear: Type.Optional(Type.Integer({ minimum: 2020, maximum: 2099 })),
  cardVerificationValue: Type.Optional(Type.String({ pattern: '^[0-9]{3,4}$' })),
});
export type CreditCardTokenUpdate = Static<typeof CreditCardTokenUpdate>;
export const BankAccountTokenUpdate = Type.Object({ accountHolder: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })) });

export const EcommerceAddress = Type.Object({
  contactFirstName: Type.Optional(text(100)),
  contactLastName: Type.Optional(text(100)),
  companyName: Type.Optional(text()),
  address1: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  address2: Type.Optional(text()),
  city: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  stateOrProvince: Type.Optional(text(60)),
  postCode: Type.Optional(Type.String({ minLength: 1, maxLength: 10 })),
  country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
  phone: Type.Optional(text(60)),
  email: Type.Optional(text(200)),
});
export type EcommerceAddress = Static<typeof EcommerceAddress>;

const Scalar = Type.Union([Type.String({ maxLength: 2000 }), Type.Number(), Type.Boolean()]);
const Attributes = Type.Record(Type.String({ maxLength: 100 }), Scalar);

export const SaleLine = Type.Object({
  type: Type.Optional(text(60)),
  number: Type.String({ minLength: 1, maxLength: 255 }),
  description: text(2000),
  price: Type.Number({ minimum: -999_999_999, maximum: 999_999_999, description: 'The unit price, expressed in the currency of the current sale. price x quantity less the discount must come to at most 99,999,999,999 minor units either way (what an order line holds; 999,999,999.99 in a currency of two decimals), else the sale is refused 400 naming the line.' }),
  quantity: Type.Number({ minimum: -1_000_000, maximum: 1_000_000, description: 'The quantity sold' }),
  discount: Type.Optional(Decimal('Line discount')),
  l3TaxAmount: Type.Optional(Decimal('Level 3 tax')),
  l3CommodityCode: Type.Optional(text(20)),
  l3UnitOfMeasure: Type.Optional(text(12)),
  l3ProductCode: Type.Optional(text()),
  l3DiscountAmount: Type.Optional(Decimal('Level 3 discount')),
  lineAttributes: Type.Optional(Attributes),
});
export type SaleLine = Static<typeof SaleLine>;

export const EcommercePayment = component(
  'EcommercePayment',
  Type.Object({
    type: PaymentMethod,
    settlementToken: Type.Optional(Type.String({ pattern: '^[0-9A-Z]{12,40}$', description: 'A processor token of GET /api/whoami: twelve letters and digits, or eighteen on an account made before they took the reference\'s form' })),
    token: FundToken,
    amount: Decimal(
      'The payment amount, expressed in the currency of the current sale (the reference\'s words; it sets no upper bound). One payment is one gateway transaction, which takes at most 999,999,999 minor units of the currency (9,999,999.99 in a currency of two decimals, 999,999,999 in one of none): a larger amount is refused 400 naming `/amount`, and a larger sale takes several payments. The schema\'s maximum of 999,999,999 currency units only bounds the number; that per-transaction limit is the one that holds.',
    ),
    capture: Type.Boolean({ description: 'true: a sale; false: an authorization (cards only: a gift card or ach payment with false is refused, 400), captured later through the gateway API.' }),
  }),
);
export type EcommercePayment = Static<typeof EcommercePayment>;

export const SaleRequest = component(
  'EcommerceSale',
  Type.Object({
    gatewayAuthorization: Type.Optional(ref(GatewayAuthorization)),
    customerNumber: Type.Optional(text(100)),
    orderNumber: Type.String({ minLength: 1, maxLength: 100 }),
    purchaseOrderNumber: Type.Optional(text()),
    shippingAgentNumber: Type.Optional(text()),
    shippingAgentServiceNumber: Type.Optional(text()),
    shippingAgentDescription: Type.Optional(text()),
    shippingAgentServiceDescription: Type.Optional(text()),
    currency: Type.String({ pattern: '^[A-Z]{3}$' }),
    orderAttributes: Type.Optional(Attributes),
    billingAddress: EcommerceAddress,
    shippingAddress: EcommerceAddress,
    l3PoNumber: Type.Optional(text()),
    l3Tax: Type.Optional(Decimal('Level 3 tax')),
    l3Duty: Type.Optional(Decimal('Level 3 duty')),
    l3Shipping: Type.Optional(Decimal('Level 3 shipping')),
    l3ShipFromZip: Type.Optional(text(10)),
    l3ShipFromCountry: Type.Optional(Type.String({ pattern: '^$|^[A-Z]{2}$' })),
    lines: Type.Array(SaleLine, { minItems: 1, maxItems: 1000 }),
    shippingAmount: Type.Optional(Decimal('Freight')),
    discountAmount: Type.Optional(Decimal('Order-level discount')),
    taxAmount: Type.Optional(Decimal('Sales tax')),
    payment: Type.Optional(ref(EcommercePayment)),
    payments: Type.Optional(
      Type.Array(ref(EcommercePayment), {
        minItems: 1,
        maxItems: 20,
        description: 'Several payments on the order (a split between cards...), each its own transaction. Two entries with the same type, token, amount and capture are refused (400 duplicate_payment): send one payment of the sum.',
      }),
    ),
    applePayPayment: Type.Optional(Type.Object({ payment: Type.Object({}, { additionalProperties: true }), amount: Decimal('Apple Pay amount') })),
  }),
);
export type SaleRequest = Static<typeof SaleRequest>;

export const PaymentResponse = component(
  'EcommercePaymentResponse',
  Type.Object({
    approvalCode: Type.Optional(Type.String()),
    avsResponseCode: Type.Optional(Type.String()),
    fromAccount: Type.Optional(Type.String()),
    accountNumberLastFour: Type.String(),
    accountType: Type.String(),
    token: FundToken,
    amount: Type.Optional(Type.Number({ description: 'What was approved: a gift card pays at most its balance, so this may be less than asked.' })),
    transactionId: Type.Optional(Type.String({ description: 'The gateway transaction (GET /api/gateway/v1/transaction/{token}). A retried payment (same sale, type, token, amount and capture) answers the same transactionId: the same payment, charged once.' })),
  }),
);
export type PaymentResponse = Static<typeof PaymentResponse>;

export const SaleResponse = component(
  'EcommerceSaleResponse',
  Type.Object({
    orderId: OrderId,
    finalized: Type.Boolean(),
    payment: Type.Optional(ref(PaymentResponse)),
    payments: Type.Optional(Type.Array(ref(PaymentResponse), { description: 'Laneway: one answer per payment of `payments`.' })),
  }),
);
export type SaleResponse = Static<typeof SaleResponse>;

export const PaymentRequest = Type.Object({ gatewayAuthorization: Type.Optional(ref(GatewayAuthorization)), ...EcommercePayment.properties });
export const FinalizeRequest = SimpleRequest;
export const Balance = Type.Object({ balance: Type.Number({ minimum: 0 }) });

export const ApplePayValidationRequest = Type.Object({
  validationUrl: Type.String({ maxLength: 2000 }),
  applePayConfig: Type.Object(
    {
      merchantIdentifier: Type.Optional(text()),
      displayName: Type.Optional(text()),
      initiativeContext: Type.Optional(text()),
      merchantCapabilities: Type.Optional(Type.Array(text(60), { maxItems: 10 })),
      supportedNetworks: Type.Optional(Type.Array(text(60), { maxItems: 20 })),
      ecommSubdomain: Type.Optional(text()),
      countryCode: Type.Optional(text(2)),
      currencyCode: Type.Optional(text(3)),
    },
    { additionalProperties: true },
  ),
});
export type ApplePayValidationRequest = Static<typeof ApplePayValidationRequest>;

export const ApplePayMerchantSession = Type.Object({
  epochTimestamp: Type.Integer(),
  expiresAt: Type.Integer(),
  merchantSessionIdentifier: Type.String(),
  nonce: Type.String(),
  merchantIdentifier: Type.String(),
  domainName: Type.String(),
  displayName: Type.String(),
  signature: Type.String(),
  operationalAnalyticsIdentifier: Type.String(),
  retries: Type.Integer(),
  pspId: Type.String(),
});
export type ApplePayMerchantSession = Static<typeof ApplePayMerchantSession>;

/** A site's origin as the frame's frame-ancestors takes it (the validator words a mismatch in src/server/validation.ts). */
export const ORIGIN_PATTERN = '^https?://[A-Za-z0-9.-]+(:([0-9]{1,5}|\\*))?$';

export const EcommerceSettings = component(
  'EcommerceSettings',
  Type.Object({
    allowedOrigins: Type.Array(Type.String({ maxLength: 200, pattern: ORIGIN_PATTERN }), {
      maxItems: 50,
      description: 'Origins (scheme://host[:port], port may be *) whose pages may show the payment frame: its Content-Security-Policy frame-ancestors. The sandbox adds http://localhost:* and https://localhost:*.',
    }),
  }),
);
export type EcommerceSettings = Static<typeof EcommerceSettings>;

/**
 * The setting as GET and PUT answer it: what was set, what the sandbox allows besides it, and the
 * script a shop's page loads at this server's public address (what the back office's Payment frame
 * screen shows a shop owner to paste).
 */
export const EcommerceSettingsView = component(
  'EcommerceSettingsView',
  Type.Object({
    allowedOrigins: Type.Array(Type.String(), { description: 'The origins set (lower case, as stored).' }),
    sandboxOrigins: Type.Array(Type.String(), { description: 'Also allowed without being set: http://localhost:* and https://localhost:* in the sandbox, none in production.' }),
    clientScriptUrl: Type.String({ description: "client.js at the server's public URL (--public-url, else the address it listens on): the script tag's src a shop puts on its page." }),
  }),
);
export type EcommerceSettingsView = Static<typeof EcommerceSettingsView>;
