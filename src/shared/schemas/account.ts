import { Type, type Static } from '@sinclair/typebox';
import { component, ref } from './components';

const nullableString = Type.Union([Type.String(), Type.Null()]);

const addressFields = {
  address_1: nullableString,
  address_2: nullableString,
  postal_code: nullableString,
  city: nullableString,
  province: nullableString,
  country: nullableString,
};

export const DivisionSummary = component(
  'WhoamiDivision',
  Type.Object({
    division_code: Type.String(),
    division_name: Type.String(),
    parent_code: nullableString,
    company_name: nullableString,
    // The reference's Divisions schema has the address fields flat, its example nests them under
    // `address`: both are sent, so a client written to either reads them.
    ...addressFields,
    address: Type.Object(addressFields),
  }),
);

const NO_ACCOUNT_NUMBER = 'null: no full account number is kept here to hash (and an unkeyed hash of a routing and account number gives the number back by guessing).';
const masked = (what: string) => Type.Union([Type.String({ pattern: '^X*[0-9]{0,4}$' }), Type.Null()], { description: `${what}, masked to its last four digits (never the full number); null when none is on file.` });

/** The deposit fields every card-type processor carries (the reference's MerchantAccount, TerminalProcessor, GiftCardProcessor). */
const processorFields = {
  token: Type.String({ description: 'The processor token: a settlement token orders may name.' }),
  currency: Type.String(),
  nickname: nullableString,
  deposit_account_masked_number: masked('The deposit account'),
  deposit_account_routing_number: Type.Union([Type.String(), Type.Null()], { description: 'The deposit account\'s routing number; null when none is on file.' }),
  deposit_routing_account_hash: Type.Union([Type.String(), Type.Null()], { description: NO_ACCOUNT_NUMBER }),
  deposit_routing_account_hash_function: Type.Union([Type.String(), Type.Null()], { description: `The hash function of deposit_routing_account_hash; ${NO_ACCOUNT_NUMBER}` }),
  gl_account: Type.Union([Type.String(), Type.Null()], { description: 'The general ledger account of the deposits; null: none is set.' }),
  mid: Type.Union([Type.String(), Type.Null()], { description: 'The merchant id, as the settlement reports carry it.' }),
  tid: Type.Union([Type.String(), Type.Null()], { description: 'The terminal id; null: the processor is not one terminal\'s.' }),
  is_default: Type.Boolean({ description: 'The default processor of its kind for its currency (the only one here).' }),
};

export const DepositAccount = component(
  'DepositAccount',
  Type.Object({
    purpose: Type.String({ description: 'primary, fees...' }),
    deposit_account_routing_number: nullableString,
    deposit_account_masked_number: masked('The account'),
    deposit_routing_account_hash_function: nullableString,
    deposit_routing_account_hash: nullableString,
  }),
);

const Address = Type.Object(addressFields);

export const MerchantAccount = component(
  'MerchantAccount',
  Type.Object({
    ...processorFields,
    acceptable_cards: Type.Array(Type.String(), { description: 'The card brands the processor approves (the reference\'s example answers an array; its schema says string).' }),
    deposit_accounts: Type.Array(ref(DepositAccount), { description: 'The deposit accounts on file; empty when none is.' }),
    reference_token: Type.Union([Type.String(), Type.Null()], { description: 'The reference token of the merchant application this account came from; null for the install\'s own account.' }),
    address: Type.Union([Address, Type.Null()], { description: "The merchant's address: the account profile's (as on the settlement bank account); null when the profile has none." }),
  }),
);

export const BankProcessor = component(
  'BankProcessor',
  Type.Object({
    token: Type.String({ description: 'The bank (ACH/EFT) processor token: a settlement token orders may name.' }),
    currency: Type.String(),
    nickname: nullableString,
    account_type: Type.String({ description: 'checking or savings.' }),
    routing_number: Type.Union([Type.String(), Type.Null()], { description: 'The settlement bank account\'s routing number (US), institution and transit (CA); null when none is on file.' }),
    masked_account_number: masked('The settlement bank account'),
    routing_account_hash_function: Type.Union([Type.String(), Type.Null()], { description: `The hash function of routing_account_hash; ${NO_ACCOUNT_NUMBER}` }),
    routing_account_hash: Type.Union([Type.String(), Type.Null()], { description: NO_ACCOUNT_NUMBER }),
    reference_token: nullableString,
    gl_number: nullableString,
    external_name: Type.Union([Type.String(), Type.Null()], { description: "The account's name in another system (an ERP's or bank's); null: none is held here." }),
    external_number: Type.Union([Type.String(), Type.Null()], { description: "The account's number in another system; null: none is held here." }),
    is_default: Type.Boolean({ description: 'The default bank processor for its currency (the only one here).' }),
    address: Type.Union([Address, Type.Null()], { description: 'The account holder\'s address: the account profile\'s; null when the profile has none.' }),
    deposit_account_masked_number: masked('Same as masked_account_number'),
    deposit_account_routing_number: Type.Union([Type.String(), Type.Null()], { description: 'Same as routing_number.' }),
  }),
);

export const TerminalProcessor = component('TerminalProcessor', Type.Object(processorFields));
export const GiftCardProcessor = component('GiftCardProcessor', Type.Object(processorFields));

const MATCHING = 'Laneway applies a payment to the invoices its import (or the back office) names and keeps the rest as unapplied credit: it has no manual matching step';

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
    ...addressFields,
    branding_partner: nullableString,
    branding_partner_config: nullableString,
    external_link: nullableString,
    environment: Type.Union([Type.Literal('sandbox'), Type.Literal('production')]),
    merchant_accounts: Type.Array(ref(MerchantAccount)),
    settlement_bank_accounts: Type.Array(ref(BankProcessor)),
    terminal_processors: Type.Array(ref(TerminalProcessor)),
    gift_card_processors: Type.Array(ref(GiftCardProcessor)),
    gift_cards: Type.Array(ref(GiftCardProcessor), { description: 'The gift card processors again, under the name the reference\'s example gives them.' }),
    divisions: Type.Array(DivisionSummary),
    autopay_api_enabled: Type.Boolean(),
    arc_payment_match_mode: Type.Literal('off', { description: `Manual matching of payments made here: ${MATCHING}.` }),
    erp_payment_match_mode: Type.Literal('off', { description: `Manual matching of ERP payments: ${MATCHING}.` }),
    external_payment_match_mode: Type.Literal('off', { description: `Manual matching of external payments: ${MATCHING}.` }),
    erp_payment_auto_match_mode: Type.Boolean({ description: `Automatic matching of ERP payments: false. ${MATCHING}.` }),
    external_payment_auto_match_mode: Type.Boolean({ description: `Automatic matching of external payments: false. ${MATCHING}.` }),
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
    open_processing_day: Type.Object(
      {
        date: Type.String({ format: 'date', description: 'The processing day a card transaction made now belongs to.' }),
        closes_at: Type.String({ format: 'date-time', description: "When that day's batch closes: its cut-off, which is the one in force when the day opened (a new `processing_cutoff` or `timezone` applies from the next day)." }),
      },
      { description: 'The open processing day, as the settlement batches count it.' },
    ),
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
    timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'IANA zone (Region/City). For processing days, from the next processing day: the open day keeps its cut-off.' })),
    processing_cutoff: Type.Optional(
      Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'Local HH:MM at which the processing day closes, from the next processing day: the open day keeps its cut-off.' }),
    ),
    authorization_hold_days: Type.Optional(Type.Integer({ minimum: 2, maximum: 14 })),
    capabilities: Type.Optional(Type.Partial(Capabilities)),
  },
  { additionalProperties: false },
);
export type AccountPatch = Static<typeof AccountPatch>;

/** Every kind a credential can have; the engine's scope rules (engine/account/scopes.ts) read this list. */
export const CREDENTIAL_KINDS = ['api', 'partner', 'merchant', 'lane'] as const;

const CredentialKindSchema = Type.Union(CREDENTIAL_KINDS.map((k) => Type.Literal(k)), {
  description: '`api`: the account\'s key; `partner`: onboarding only; `merchant`: a sandbox merchant account an approved application made (whoami only); `lane`: a lane PC paired with this hub (replication only).',
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
    kind: Type.Optional(Type.Union([Type.Literal('api'), Type.Literal('partner')], { description: '`api` (default): the account\'s own key. `partner`: an onboarding partner\'s key, which reaches the onboarding operations only; no key or session holds `onboarding`, so it is refused here (403 `insufficient_scope`): support makes them (`npm run admin -- new-credentials --kind partner`).' })),
  },
  { additionalProperties: false },
);

export const CredentialCreated = Type.Object({
  token: Type.String(),
  key: Type.String({ description: 'Shown once; only a hash is kept.' }),
  name: Type.String(),
});
