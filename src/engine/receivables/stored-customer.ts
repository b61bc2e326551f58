import { freeFormProblem } from '../free-form';
import { KEY_RE } from './problems';
import { IDENTIFIER_RULE } from './customers';
import type { ContactData, CustomerData } from './types';

type Check = (value: unknown) => boolean;
/** The fields of T that are not optional. */
type RequiredOf<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
type Stored = Omit<CustomerData, 'ledger'>;

const text: Check = (v) => typeof v === 'string';
const key: Check = (v) => typeof v === 'string' && KEY_RE.test(v);
const flag: Check = (v) => typeof v === 'boolean';
const whole: Check = (v) => Number.isSafeInteger(v);
const finite: Check = (v) => typeof v === 'number' && Number.isFinite(v);
// Typed by the field's own union, so a value it no longer has does not compile.
const oneOf =
  <T extends string>(...values: T[]): Check =>
  (v) => typeof v === 'string' && (values as string[]).includes(v);
const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// Every field of ContactData, so a field added there is checked here too (the compiler says so).
const CONTACT: { readonly [K in keyof ContactData]-?: Check } = {
  email: text,
  first_name: text,
  last_name: text,
  title: text,
  department: text,
  telephone: text,
  created_by: oneOf<ContactData['created_by']>('supplier', 'customer'),
  invited_by: oneOf<NonNullable<ContactData['invited_by']>>('supplier', 'customer'),
  invited_at: text,
  activated_at: text,
  signed_up_at: text,
  login_at: text,
  disabled: flag,
  user: isPlainObject,
  token: text,
};

// What every contact has: made by the contact rules (contacts.ts) or a customer's sign-up.
const CONTACT_REQUIRED: { readonly [K in RequiredOf<ContactData>]: true } = { email: true, created_by: true, token: true };

const contacts: Check = (v) => Array.isArray(v) && v.every((c) => isPlainObject(c) && fieldsProblem(c, CONTACT, CONTACT_REQUIRED) === null);

// Every field of CustomerData but the ledger, likewise.
const CUSTOMER: { readonly [K in keyof Stored]-?: Check } = {
  identifier: key,
  name: text,
  display_number: text,
  email: text,
  first_name: text,
  last_name: text,
  notes: text,
  address_1: text,
  address_2: text,
  city: text,
  province: text,
  postal_code: text,
  country: text,
  telephone: text,
  fax: text,
  url: text,
  business_number: text,
  locale: oneOf<NonNullable<CustomerData['locale']>>('en', 'fr', 'es'),
  parent_identifier: text,
  pdf_attachment_opt_in: flag,
  account_status: oneOf<CustomerData['account_status']>('open', 'closed'),
  last_contact_date: text,
  next_contact_date: text,
  credit_limit_cents: whole,
  credit_limit_currency: text,
  credit_rating: text,
  terms_type: oneOf<NonNullable<CustomerData['terms_type']>>('date', 'day'),
  terms_value: whole,
  company_bio: text,
  ignores_cc_payment_rules: flag,
  notification_suppressed: flag,
  tags: text,
  external_id: text,
  external_group_identifier: text,
  group_id: text,
  auto_debit: flag,
  contacts,
  extra: isPlainObject,
  created_at: text,
  updated_at: text,
  updated_ms: finite,
};

/**
 * The fields CustomerData does not make optional, which every customer has had since the first
 * version (and readers rely on); the optional ones may be absent, never of another type. Fields
 * CustomerData does not name are left as they are (a later version's).
 */
const CUSTOMER_REQUIRED: { readonly [K in RequiredOf<Stored>]: true } = {
  identifier: true,
  name: true,
  pdf_attachment_opt_in: true,
  account_status: true,
  ignores_cc_payment_rules: true,
  notification_suppressed: true,
  auto_debit: true,
  contacts: true,
  extra: true,
  created_at: true,
  updated_at: true,
  updated_ms: true,
};

function fieldsProblem(data: Record<string, unknown>, checks: Readonly<Record<string, Check>>, required: Readonly<Record<string, true>>): string | null {
  for (const field of Object.keys(required)) if (data[field] === undefined) return `${field} is missing`;
  for (const [field, check] of Object.entries(checks)) {
    if (data[field] !== undefined && !check(data[field])) return `${field} is not of its type`;
  }
  return null;
}

/**
 * The first way a customer document made elsewhere (a lane's push: sync/master.ts) is not one this
 * install's readers can read, or null. Every export, list and page of customers reads its fields
 * by their types in CustomerData, so one customer whose name is an object or whose contacts are
 * not a list breaks them all. The import rules (customers.ts) make only readable ones here; this
 * checks one that was not made here, field by field against CustomerData, and its identifier by
 * the identifier rule. The ledger is not checked: it is never taken from elsewhere (the hub's is
 * computed from its own invoices and payments).
 */
export function storedCustomerProblem(doc: Readonly<Record<string, unknown>>): string | null {
  if (!isPlainObject(doc.data)) return 'data is not an object';
  const data = doc.data;
  if (typeof doc.identifier !== 'string' || !KEY_RE.test(doc.identifier)) return `identifier ${IDENTIFIER_RULE}`;
  if (data.identifier !== doc.identifier) return 'data.identifier differs from identifier';
  if (typeof doc.parent !== 'string') return 'parent is not a string';
  const problem = fieldsProblem(data, CUSTOMER, CUSTOMER_REQUIRED);
  if (problem) return `data.${problem}`;
  const bound = freeFormProblem(data.extra as Record<string, unknown>);
  return bound ? `data.extra.${bound.field} ${bound.message}` : null;
}
