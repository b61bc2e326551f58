import { Type, type Static } from '@sinclair/typebox';
import { component, ref } from './components';
import { LaneId, literals } from './lanes';
import { Cents, Money, ShiftId, TaxRate, nullableString } from './register-common';

/** The register's catalog, cashiers and their shifts, and its settings (see register.ts). */

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
  after: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'The next page: the `next` of the previous answer (the code of its last product).' })),
});
export type ProductQuery = Static<typeof ProductQuery>;

export const ProductList = Type.Object({
  products: Type.Array(ref(Product)),
  next: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'More products match: send it as `after` for the next page; null when this is the last page.' })),
});

export const ProductParams = Type.Object({ code: Type.String({ minLength: 1, maxLength: 40 }) });

// ---- cashiers and shifts ----

const CashierCode = Type.String({ pattern: '^[0-9]{4,8}$', description: '4 to 8 digits; only a keyed hash is stored.' });

export const Cashier = component(
  'PosCashier',
  Type.Object({
    id: Type.String(),
    name: Type.String(),
    active: Type.Boolean(),
    supervisor: Type.Boolean({ description: 'Approves money given back: refunds and voids of paid sales. Another cashier\'s refund or void needs a supervisor\'s code (`approval_code`).' }),
    created_at: Type.String(),
    updated_at: Type.String(),
    last_sign_in_at: nullableString,
  }),
);
export type Cashier = Static<typeof Cashier>;

export const CashierCreate = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 60 }),
    code: Type.Optional({ ...CashierCode, description: `${CashierCode.description} Leave it out and Laneway makes a six-digit code, answered once.` }),
    supervisor: Type.Optional(Type.Boolean({ default: false, description: 'Approves refunds and voids (default false: their own need a supervisor\'s code).' })),
  },
  { additionalProperties: false },
);
export type CashierCreate = Static<typeof CashierCreate>;

export const CashierPatch = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })), code: Type.Optional(CashierCode), active: Type.Optional(Type.Boolean()), supervisor: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export type CashierPatch = Static<typeof CashierPatch>;

/** A cashier with the sign-in code Laneway made for them: the only time the code is ever shown. */
export const CashierWithCode = component(
  'PosCashierWithCode',
  Type.Composite([
    Cashier,
    Type.Object({
      code: Type.Optional(Type.String({ pattern: '^[0-9]{6}$', description: 'The six-digit sign-in code Laneway made (present only then): shown this once, stored only as a keyed hash.' })),
    }),
  ]),
);
export type CashierWithCode = Static<typeof CashierWithCode>;

export const CashierParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const CashierRef = Type.Object({ id: Type.String(), name: Type.String() });
/** A shift's cashier: whether they approve their own refunds and voids (as when they signed in). */
export const ShiftCashier = Type.Object({ id: Type.String(), name: Type.String(), supervisor: Type.Optional(Type.Boolean()) });

export const ShiftOpen = Type.Object({ laneid: LaneId, code: Type.String({ minLength: 1, maxLength: 8 }) }, { additionalProperties: false });
export type ShiftOpen = Static<typeof ShiftOpen>;

export const Shift = component(
  'PosShift',
  Type.Object({
    id: Type.String({ description: 'Send it as `shift` with every register call made by this cashier on this lane.' }),
    laneid: Type.String(),
    cashier: ShiftCashier,
    opened_at: Type.String(),
    closed_at: nullableString,
    closed_reason: Type.Union([literals(['signed_out', 'replaced', 'deactivated'] as const), Type.Null()]),
  }),
);
export type Shift = Static<typeof Shift>;

export const ShiftParams = Type.Object({ shift: ShiftId });

// ---- settings ----

const OfflineFloor = Type.Object(
  {
    gift_card_cents: Type.Integer({ minimum: 0, maximum: 100_000_00, description: 'What one lane may spend of one gift card while it cannot reach its hub (minor units; default 2500). Beyond it the tender is refused; offline spends of one card across lanes beyond it are an exception on the hub.' }),
    customer_credit_cents: Type.Integer({ minimum: 0, maximum: 100_000_00, description: 'The same for a customer\'s credit (default 0: refused while apart).' }),
  },
  { additionalProperties: false, description: 'Floor limits for balances two lanes could spend while apart (docs/sync.md).' },
);

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
    offline_floor: OfflineFloor,
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
    offline_floor: Type.Optional(Type.Partial(OfflineFloor)),
  },
  { additionalProperties: false },
);
export type SettingsPatch = Static<typeof SettingsPatch>;
