import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { component, ref } from './components';

/**
 * Merchant onboarding (the reference's Onboarding tag): a partner applies for merchant services on
 * behalf of a business. Field rules are the spec's "Merchant application"; the conditional ones
 * (a ticker for a Public Corporation, the non-owner control prong, enough owners for an `Owner N`
 * prong) are written as if/then so one 400 names every invalid field at once.
 */

export const LOCALE_PATTERN = '^[a-z]{2}-[a-z]{2}$';
export const Locale = Type.String({ pattern: LOCALE_PATTERN, description: 'Language and country, lower case: `en-us`, `fr-ca`.' });

export const OWNERSHIP_TYPES = [
  'Financial Institution',
  'Government',
  'LLC',
  'Non-Profit',
  'Partnership/Gen. Ltd.',
  'Private Corporation',
  'Public Corporation',
  'SEC Regulated Corporation',
  'Sole Proprietorship',
  'Trust',
] as const;
export const BUSINESS_TYPES = ['AutoRental', 'MOTO', 'ECommerce', 'Restaurant', 'Lodging', 'Retail'] as const;
export const CONTROL_PRONGS = ['Owner 1', 'Owner 2', 'Owner 3', 'Owner 4', 'Non-Owner'] as const;
/**
 * The reference's ApplicationStatus, all of it (a client may switch over every value): Received on
 * create, Processing once step 99 submits it, then Approved, Closed (declined) or On Hold (manual
 * review), see the sandbox rules. The sandbox never answers Provisionally Approved.
 */
export const APPLICATION_STATUSES = ['Received', 'Processing', 'Provisionally Approved', 'Approved', 'On Hold', 'Closed'] as const;
export type ApplicationStatusName = (typeof APPLICATION_STATUSES)[number];

const literals = <T extends readonly string[]>(values: T) => Type.Union(values.map((v) => Type.Literal(v)));

const Phone = Type.String({ pattern: '^[2-9]', maxLength: 20, description: 'Cannot begin with 1 or 0.' });
const Email = Type.String({ format: 'email', maxLength: 254 });
const Url = Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2000 });
const DateText = Type.String({ format: 'date' });
const Override = Type.Optional(Type.Boolean());

const Address = component(
  'ApplicationAddress',
  Type.Object({
    address1: Type.String({ minLength: 1, maxLength: 25 }),
    address2: Type.Optional(Type.String({ maxLength: 25 })),
    city: Type.String({ minLength: 1, maxLength: 20 }),
    // The reference's pattern is lower case, its example `"state_province": "OR"`: clients copy
    // the example, so either case is taken.
    state_province: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'Two letters, either case (`or`, `OR`)' })),
    post_code: Type.String({ minLength: 1, maxLength: 5 }),
    country: Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166 alpha-2, either case (`us`, `US`)' }),
    override_validation: Override,
  }),
);

const Person = Type.Object({
  first_name: Type.String({ minLength: 1, maxLength: 25 }),
  middle_initial: Type.Optional(Type.String({ minLength: 1, maxLength: 1 })),
  last_name: Type.String({ minLength: 1, maxLength: 25 }),
  title: Type.String({ minLength: 1, maxLength: 20 }),
});

const IndividualTaxId = Type.Object({ itin: Type.String({ pattern: '^\\d{3}-?\\d{2}-?\\d{4}$' }), override_validation: Override });
const Range = Type.Object({ from: Type.Optional(Type.Number({ minimum: 0 })), to: Type.Optional(Type.Number({ minimum: 0 })) });

const BusinessOwner = Type.Object({
  name: Person,
  ownership_percentage: Type.Number({ minimum: 25, maximum: 100 }),
  individual_tax_id_number: IndividualTaxId,
  birth_date: DateText,
  home_address: ref(Address),
  home_phone: Phone,
  email: Email,
});

const NonOwnerControlProng = Type.Object({
  name: Person,
  individual_tax_id_number: IndividualTaxId,
  birth_date: DateText,
  home_address: ref(Address),
  home_phone: Phone,
  email: Email,
});

const TermsAndConditions = Type.Object({
  url: Type.Optional(Url),
  terms_and_conditions_text: Type.Optional(Type.String({ maxLength: 100_000 })),
});

export const ReferenceToken = Type.String({
  minLength: 1,
  maxLength: 36,
  pattern: '^[A-Za-z0-9][A-Za-z0-9:._-]*$',
  description: 'The client\'s unique reference of the application (a GUID, 36 characters at most); every step of the application names it.',
});

const ownerProngRule = (n: number) => ({
  if: { properties: { control_prong: { const: `Owner ${n}` } }, required: ['control_prong'] },
  then: { required: ['business_owners'], properties: { business_owners: { minItems: n } } },
});

export const Application = component(
  'Application',
  Type.Object(
    {
      business_legal_name: Type.String({ minLength: 1, maxLength: 100 }),
      business_dba_name: Type.String({ minLength: 1, maxLength: 100 }),
      business_tax_id_number: Type.Object({ tin: Type.String({ pattern: '^\\d{2}-?\\d{7}$' }), override_validation: Override }),
      business_physical_address: ref(Address),
      business_billing_address: ref(Address),
      ownership_type: literals(OWNERSHIP_TYPES),
      stock_ticker_symbol: Type.Optional(Type.String({ minLength: 1, maxLength: 10, description: 'Required when ownership_type is Public Corporation.' })),
      business_type: literals(BUSINESS_TYPES),
      naics_code: Type.String({ pattern: '^[0-9]{6}$' }),
      business_phone: Phone,
      business_email: Email,
      business_website: Url,
      business_established_date: DateText,
      annual_card_volume: Range,
      annual_direct_debit_volume: Range,
      average_ticket_amount: Range,
      high_ticket_amount: Range,
      american_express_service_establishment: Type.Object({
        over_se_minimum: Type.Boolean(),
        se_number: Type.Optional(Type.String({ pattern: '^\\d+$', maxLength: 10 })),
      }),
      business_owners: Type.Optional(Type.Array(BusinessOwner, { maxItems: 4 })),
      non_business_owner_control_prong: Type.Optional(NonOwnerControlProng),
      primary_contact: Type.Object({ name: Person, phone: Phone, email: Email }),
      control_prong: literals(CONTROL_PRONGS),
      deposit_account: Type.Object({
        routing_number: Type.String({ pattern: '^\\d{9}$' }),
        account_number: Type.String({ pattern: '^\\d{4,17}$' }),
      }),
      reference_token: ReferenceToken,
      sells_prohibited_products: Type.Boolean(),
      agrees_terms_and_conditions: Type.Boolean(),
      terms_and_conditions: TermsAndConditions,
      supporting_documents: Type.Optional(
        Type.Array(
          Type.Object({
            filename: Type.String({ minLength: 1, maxLength: 255 }),
            base64: Type.String({ contentEncoding: 'base64', maxLength: 4_000_000 }),
            type: Type.Optional(literals(['Bank Statement', 'Merchant Statement', 'Financial Statement', 'Tax ID Number Verification'] as const)),
          }),
          { maxItems: 10 },
        ),
      ),
      locale: Type.Optional(Locale),
      external_link: Type.Optional(Type.String({ maxLength: 255, description: 'The partner\'s own reference of this merchant.' })),
      link_to_existing: Type.Optional(Type.String({ minLength: 1, maxLength: 36, description: 'The reference_token of an application submitted earlier.' })),
    },
    {
      allOf: [
        { if: { properties: { ownership_type: { const: 'Public Corporation' } }, required: ['ownership_type'] }, then: { required: ['stock_ticker_symbol'] } },
        { if: { properties: { control_prong: { const: 'Non-Owner' } }, required: ['control_prong'] }, then: { required: ['non_business_owner_control_prong'] } },
        ownerProngRule(1),
        ownerProngRule(2),
        ownerProngRule(3),
        ownerProngRule(4),
      ],
    },
  ),
);
export type ApplicationInput = Static<typeof Application>;

export const ApplicationCreated = component('ApplicationCreatedResponse', Type.Object({ application_token: Type.String({ format: 'uuid' }) }));

export const ApplicationStatus = component('ApplicationStatus', literals(APPLICATION_STATUSES));

const FieldError = <T extends TSchema>(field: T) => Type.Object({ field, error_message: Type.String({ description: 'What is wrong, naming the field.' }) });

/**
 * The reference's 400 for an invalid application, plus our usual `error`, `code` and `details`
 * (src/server/onboarding-errors.ts sorts each invalid field into one of the three lists).
 */
export const ApplicationErrorResponse = component(
  'ApplicationErrorResponse',
  Type.Object({
    address_errors: Type.Array(FieldError(literals(['Owner 1', 'Owner 2', 'Owner 3', 'Owner 4', 'Business Physical Address', 'Business Billing Address'] as const)), {
      description: 'An address\'s invalid fields, under the address\'s name.',
    }),
    tax_id_errors: Type.Array(FieldError(literals(['Owner 1', 'Owner 2', 'Owner 3', 'Owner 4', 'Business'] as const)), {
      description: 'A tax id\'s invalid fields, under its holder\'s name.',
    }),
    field_errors: Type.Array(FieldError(Type.String({ description: 'The field\'s path, e.g. `naics_code`, `primary_contact.email`.' })), {
      description: 'Every other invalid field (a malformed body is `body`, a query or path value its name).',
    }),
    error: Type.String({ description: 'Ours: the first error, for people.' }),
    code: Type.String({ description: 'Ours: `validation_failed`.' }),
    details: Type.Optional(Type.Array(Type.Object({ field: Type.Optional(Type.String()), code: Type.Optional(Type.String()), message: Type.String() }), { description: 'Ours: every invalid field, as on our other operations.' })),
  }),
);

export const ApplicationStatusResponse = component(
  'ApplicationStatusResponse',
  Type.Object({
    application_status: ref(ApplicationStatus),
    api_credentials: Type.Optional(
      Type.Object({
        api_token: Type.String(),
        api_key: Type.Union([Type.String(), Type.Null()], {
          description: 'Shown on the first status read after approval only (it is kept sealed until then, and only its hash after); null afterwards.',
        }),
      }),
    ),
    status_reason: Type.Optional(
      Type.String({ description: 'Ours, not the reference\'s: why an application is Closed (declined) or On Hold, e.g. `The business sells prohibited products`.' }),
    ),
  }),
);

export const ApplicationStep = Type.Object({
  reference_token: ReferenceToken,
  step_number: Type.Integer({ minimum: 1, maximum: 99, description: '1, 2, 3... for the steps of the partner\'s form; 99 submits the full application.' }),
  message: Type.String({ minLength: 1, maxLength: 255 }),
});
export type ApplicationStepInput = Static<typeof ApplicationStep>;

const Rate = Type.Object({
  description: Type.String(),
  currency_code: Type.String(),
  url: Type.String(),
  monthly_account_fees: Type.Object({ per_month_amount: Type.Number() }),
  payment_methods: Type.Array(Type.Object({ description: Type.String(), per_transaction_amount: Type.Number(), per_transaction_percent: Type.Number(), per_month_amount: Type.Number() })),
});

export const ApplicationParameters = component(
  'ApplicationParameters',
  Type.Object({
    rates: Type.Array(Rate),
    prohibited_products: Type.Object({ url: Type.String(), prohibited_product_list: Type.Array(Type.String()) }),
    terms_and_conditions: Type.Object({ url: Type.String(), terms_and_conditions_text: Type.String() }),
    ranges: Type.Object({
      currency_code: Type.String(),
      annual_volumes: Type.Array(Range),
      average_ticket_amounts: Type.Array(Range),
      high_ticket_amounts: Type.Array(Range),
    }),
  }),
);
export type ApplicationParametersData = Static<typeof ApplicationParameters>;

export const TermsQuery = Type.Object({ locale: Type.Optional(Locale) });
export const ApplicationTokenParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 36 }) });
