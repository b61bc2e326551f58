import { Type, type Static } from '@sinclair/typebox';
import { component } from './components';

const nullableString = Type.Union([Type.String(), Type.Null()]);

export const DivisionSummary = component(
  'WhoamiDivision',
  Type.Object({
    division_code: Type.String(),
    division_name: Type.String(),
    parent_code: nullableString,
    company_name: nullableString,
    address: Type.Object({
      address_1: nullableString,
      address_2: nullableString,
      postal_code: nullableString,
      city: nullableString,
      province: nullableString,
      country: nullableString,
    }),
  }),
);

export const WhoamiEntry = component(
  'Whoami',
  Type.Object({
    token: Type.String({ description: 'Owning account token' }),
    name: Type.String(),
    sender_identifier: Type.String(),
    jwt: Type.String({ description: 'Bearer token for this credential' }),
    jwt_exp: Type.Integer({ description: 'JWT expiry, seconds since the epoch' }),
    currency: Type.String(),
    preferred_language: Type.String(),
    business_number: nullableString,
    address_1: nullableString,
    address_2: nullableString,
    postal_code: nullableString,
    city: nullableString,
    province: nullableString,
    country: nullableString,
    branding_partner: nullableString,
    branding_partner_config: nullableString,
    external_link: nullableString,
    environment: Type.Union([Type.Literal('sandbox'), Type.Literal('production')]),
    merchant_accounts: Type.Array(Type.Object({}, { additionalProperties: true })),
    settlement_bank_accounts: Type.Array(Type.Object({}, { additionalProperties: true })),
    terminal_processors: Type.Array(Type.Object({}, { additionalProperties: true })),
    gift_card_processors: Type.Array(Type.Object({}, { additionalProperties: true })),
    divisions: Type.Array(DivisionSummary),
    autopay_api_enabled: Type.Boolean(),
    capabilities: Type.Record(Type.String(), Type.Boolean()),
  }),
);

export const WhoamiResponse = Type.Object({
  whoami: Type.Record(Type.String(), WhoamiEntry, { description: 'Keyed by the API token used for the call.' }),
});
export type WhoamiResponse = Static<typeof WhoamiResponse>;

export const WhoamiQuery = Type.Object({
  options: Type.Optional(
    Type.Object({
      jwt_expiry: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: 30, description: 'Days until the JWT expires' })),
      jwt_scope: Type.Optional(
        Type.String({
          maxLength: 100,
          description:
            "Laneway's: the JWT's scopes, space-separated: `api` (the default: every business operation) and `credentials` (manage credentials; an owner's session). A JWT caller gets none it lacks itself, and no later expiry than its own.",
        }),
      ),
    }),
  ),
});

export const Capabilities = Type.Object(
  {
    orders: Type.Boolean(),
    order_transactions: Type.Boolean(),
    wallets: Type.Boolean(),
    gift_cards: Type.Boolean(),
    card_present_emv: Type.Boolean(),
    settlement_reporting: Type.Boolean(),
    reference_data: Type.Boolean(),
    onboarding: Type.Boolean(),
    autopay: Type.Boolean(),
    divisions_required: Type.Boolean(),
    payment_plans: Type.Boolean(),
    balance_sync: Type.Boolean(),
    discounts: Type.Boolean(),
    line_item_short_pay: Type.Boolean(),
    restricted_grouping: Type.Boolean(),
    dynamic_division_creation: Type.Boolean(),
  },
  { additionalProperties: false },
);

export const AccountSettings = component(
  'AccountSettings',
  Type.Object({
    token: Type.String(),
    name: Type.String(),
    sender_identifier: Type.String(),
    environment: Type.Union([Type.Literal('sandbox'), Type.Literal('production')]),
    currency: Type.String(),
    preferred_language: Type.String(),
    timezone: Type.String(),
    processing_cutoff: Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' }),
    authorization_hold_days: Type.Integer({ minimum: 2, maximum: 14 }),
    capabilities: Capabilities,
    created_at: Type.String(),
    updated_at: Type.String(),
  }),
);

export const AccountPatch = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    sender_identifier: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
    currency: Type.Optional(Type.Union([Type.Literal('usd'), Type.Literal('cad'), Type.Literal('eur'), Type.Literal('gbp'), Type.Literal('aud')])),
    preferred_language: Type.Optional(Type.Union([Type.Literal('en'), Type.Literal('fr'), Type.Literal('es')])),
    timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    processing_cutoff: Type.Optional(Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' })),
    authorization_hold_days: Type.Optional(Type.Integer({ minimum: 2, maximum: 14 })),
    capabilities: Type.Optional(Type.Partial(Capabilities)),
  },
  { additionalProperties: false },
);
export type AccountPatch = Static<typeof AccountPatch>;

const CredentialKindSchema = Type.Union([Type.Literal('api'), Type.Literal('partner'), Type.Literal('merchant')], {
  description: '`api`: the account\'s key; `partner`: onboarding only; `merchant`: a sandbox merchant account an approved application made (whoami only).',
});

export const Credential = component(
  'Credential',
  Type.Object({
    token: Type.String(),
    name: Type.String(),
    created_at: Type.String(),
    disabled_at: Type.Union([Type.String(), Type.Null()]),
    enabled: Type.Boolean(),
    kind: Type.Optional(CredentialKindSchema),
  }),
);

export const CredentialCreate = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    kind: Type.Optional(Type.Union([Type.Literal('api'), Type.Literal('partner')], { description: '`api` (default): the account\'s own key. `partner`: an onboarding partner\'s key, which reaches the onboarding operations only.' })),
  },
  { additionalProperties: false },
);

export const CredentialCreated = Type.Object({
  token: Type.String(),
  key: Type.String({ description: 'Shown once; only a hash is kept.' }),
  name: Type.String(),
});
