import { fail, notFound } from '../errors';
import { getRecord, putRecord } from '../records';
import { mergeContacts, readContacts, findContact } from './contacts';
import { extraAttributes, Fields } from './fields';
import { KEY_RE, NOTES_MAX, Problems } from './problems';
import { emptyLedger, type ReceivablesUnit } from './unit-of-work';
import type { CustomerData, CustomerDoc, CustomerImportInput, InvoiceImportInput, PaymentAmountDoc, PaymentDoc } from './types';
import type { InvoiceRow } from './invoice-codec';
import { IMPORT_READ_ONLY_FIELDS } from '../../shared/schemas/receivables-common';
import { WEB_ADDRESS_RULE, webHref } from '../../shared/web-address';

/** The customer import's own fields; anything else is an extra attribute kept for presentment. */
export const CUSTOMER_FIELDS = new Set([
  'identifier', 'display_number', 'name', 'email', 'first_name', 'last_name', 'notes', 'address_1', 'address_2', 'city',
  'province', 'postal_code', 'country', 'telephone', 'fax', 'url', 'business_number', 'locale', 'parent_identifier',
  'pdf_attachment_opt_in', 'account_status', 'last_contact_date', 'next_contact_date', 'credit_limit_cents',
  'credit_limit_currency', 'credit_rating', 'terms_type', 'terms_value', 'company_bio', 'ignores_cc_payment_rules',
  'notification_suppressed', 'tags', 'external_id', 'external_group_identifier', 'replace_contacts', 'contacts',
  // The reference's schema lists the contacts array under this name; clients built from it send it.
  'line_item_attributes',
]);

const TEXT_FIELDS = ['address_1', 'address_2', 'city', 'postal_code', 'telephone', 'fax', 'credit_rating', 'tags', 'external_id', 'first_name', 'last_name'] as const;

export const IDENTIFIER_RULE = 'must be 1 to 100 letters and digits (with - _ . inside)';

export interface CustomerImportResult {
  customer: CustomerDoc;
  created: boolean;
  contacts: number;
}

/**
 * The customer's own fields (any may be missing when the customer rides on a payment), or an
 * invoice whose customer_* attributes name them.
 */
export type CustomerUpsertInput = Partial<CustomerImportInput> | InvoiceImportInput;

/**
 * Creates or updates one customer from import fields (`prefix` names them as the client sent them:
 * '' for the customer import, 'customer_' when they ride on an invoice). Validates every rule first;
 * throws 412 with each broken field; changes nothing on failure.
 */
export async function upsertCustomer(
  s: ReceivablesUnit,
  input: CustomerUpsertInput,
  options: { prefix?: string; identifier?: string; problems?: Problems; defaultName?: string; createOnly?: boolean } = {},
): Promise<CustomerImportResult> {
  const prefix = options.prefix ?? '';
  const problems = options.problems ?? new Problems();
  const own = ownFields(input, prefix);
  const p = prefix ? problems.child(prefix) : problems;
  const f = new Fields(own, p);

  const identifier = options.identifier ?? f.str('identifier', { pattern: KEY_RE, patternText: IDENTIFIER_RULE, code: 'invalid_identifier' });
  if (options.identifier === undefined && !f.has('identifier')) p.add('identifier', 'missing_identifier', 'is required');
  const existing = identifier ? await s.customerByIdentifier(identifier) : undefined;
  // Someone typing a new customer means a new one: an identifier already used is said so, never
  // overwritten (its name, limit and contacts replaced by the new form's).
  if (existing && options.createOnly) p.add('identifier', 'customer_exists', `${existing.identifier} is already a customer: ${existing.data.name || existing.identifier}. Open it to edit it, or choose another identifier.`);

  const sent = readProfile(f, p, existing, options.defaultName);
  readTerms(f, p, existing, sent.patch);

  const groupIdentifier = f.str('external_group_identifier', { max: 100 });
  if (groupIdentifier !== undefined) sent.patch.external_group_identifier = groupIdentifier;

  const parent = await readParent(s, f, p, identifier, existing);
  const replace = f.bool('replace_contacts') ?? false;
  const contactInputs = readContactInputs(own, p, sent.email, sent.patch);
  await checkRestrictedGrouping(s, p, existing, groupIdentifier);

  const extra = prefix ? {} : extraAttributes(own, CUSTOMER_FIELDS, p, (k) => IMPORT_READ_ONLY_FIELDS.has(k));
  problems.throwIfAny();
  if (!identifier) throw fail.internal('no_identifier', 'identifier missing after validation');

  const doc = existing ? updateCustomer(s, existing, sent, extra) : createCustomer(s, identifier, sent, extra, options.defaultName);
  if (parent) {
    doc.parent = parent.id;
    doc.data.parent_identifier = parent.identifier;
  }
  if (contactInputs.length || replace) doc.data.contacts = mergeContacts(doc.data.contacts, contactInputs, replace, s.tx.at, () => s.core.ids.token());
  return { customer: doc, created: !existing, contacts: contactInputs.length };
}

/** Customer fields on another record arrive as customer_<field>; they are read under their own names. */
function ownFields(input: CustomerUpsertInput, prefix: string): Record<string, unknown> {
  if (!prefix) return input;
  const own: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) if (k.startsWith(prefix)) own[k.slice(prefix.length)] = v;
  return own;
}

type CustomerProfile = ReturnType<typeof readProfile>;

/** The customer's own fields as a patch over the stored ones, plus the few that are not simply set. */
function readProfile(f: Fields, p: Problems, existing: CustomerDoc | undefined, defaultName: string | undefined) {
  const name = f.str('name', { max: 200 });
  if (!existing && name === undefined && !defaultName) p.add('name', 'missing_name', 'is required');

  const patch: Partial<CustomerData> = {};
  if (name !== undefined) patch.name = name;
  const displayNumber = f.str('display_number', { pattern: KEY_RE, patternText: IDENTIFIER_RULE, code: 'invalid_display_number' });
  if (displayNumber !== undefined) patch.display_number = displayNumber;
  const email = f.email('email');
  if (email !== undefined) patch.email = email;
  for (const field of TEXT_FIELDS) {
    const v = f.str(field, { max: 200 });
    if (v !== undefined) patch[field] = v;
  }
  const notes = f.str('notes', { max: NOTES_MAX, code: 'notes_too_long' });
  if (notes !== undefined) patch.notes = notes;
  const companyBio = f.str('company_bio', { max: NOTES_MAX });
  if (companyBio !== undefined) patch.company_bio = companyBio;
  const url = f.str('url', { max: 2048 });
  // The screens link it: only what webHref makes an http(s) href of is kept.
  if (url !== undefined && webHref(url) === undefined) p.add('url', 'invalid_url', WEB_ADDRESS_RULE);
  else if (url !== undefined) patch.url = url;
  const businessNumber = f.str('business_number', { pattern: /^[A-Za-z0-9]{1,20}$/, patternText: 'must be at most 20 letters and digits', code: 'invalid_business_number' });
  if (businessNumber !== undefined) patch.business_number = businessNumber;
  const locale = f.oneOf('locale', ['en', 'fr', 'es'] as const, 'invalid_locale');
  if (locale !== undefined) patch.locale = locale;
  const status = f.oneOf('account_status', ['open', 'closed'] as const, 'invalid_account_status');
  if (status !== undefined) patch.account_status = status;
  for (const flag of ['pdf_attachment_opt_in', 'ignores_cc_payment_rules', 'notification_suppressed'] as const) {
    const v = f.bool(flag);
    if (v !== undefined) patch[flag] = v;
  }
  const lastContact = readAddressDatesAndCredit(f, existing, patch);
  // Sent blank, it goes back to its default (the currency of most of the customer's invoices,
  // else the supplier's): the reference's "If blank, defaults to...".
  const creditCurrencyCleared = f.input.credit_limit_currency === '';
  return { name, email, patch, lastContact, creditCurrencyCleared };
}

/**
 * Country and province (a new country without a new province drops the old one), contact dates and
 * credit limit. Answers the last contact date, which is not simply set (it only moves forward).
 */
function readAddressDatesAndCredit(f: Fields, existing: CustomerDoc | undefined, patch: Partial<CustomerData>): string | undefined {
  const country = f.country('country');
  if (country !== undefined) patch.country = country;
  const movedCountry = country !== undefined && country !== existing?.data.country;
  const province = f.province('province', country ?? existing?.data.country, movedCountry ? existing?.data.province : undefined);
  if (province !== undefined) patch.province = province;
  const lastContact = f.date('last_contact_date');
  const nextContact = f.date('next_contact_date');
  if (nextContact !== undefined) patch.next_contact_date = nextContact;
  const creditLimit = f.int('credit_limit_cents', { min: 0, code: 'invalid_credit_limit' });
  if (creditLimit !== undefined) patch.credit_limit_cents = creditLimit;
  const creditCurrency = f.currency('credit_limit_currency');
  if (creditCurrency !== undefined) patch.credit_limit_currency = creditCurrency;
  return lastContact;
}

/** The contacts sent (as contacts, or under the reference's line_item_attributes), with the customer's email first. */
function readContactInputs(own: Record<string, unknown>, p: Problems, email: string | undefined, patch: Partial<CustomerData>) {
  const contactsRaw = own.contacts ?? own.line_item_attributes;
  const contactInputs = readContacts(contactsRaw, own.contacts !== undefined ? 'contacts' : 'line_item_attributes', p);
  if (email !== undefined && !contactInputs.some((c) => c.email.toLowerCase() === email.toLowerCase())) {
    contactInputs.unshift({
      email,
      ...(patch.first_name !== undefined ? { first_name: patch.first_name } : {}),
      ...(patch.last_name !== undefined ? { last_name: patch.last_name } : {}),
    });
  }
  return contactInputs;
}

/** The patch over the stored customer; the last contact date only moves forward. */
function updateCustomer(s: ReceivablesUnit, doc: CustomerDoc, sent: CustomerProfile, extra: Record<string, unknown>): CustomerDoc {
  Object.assign(doc.data, sent.patch);
  if (sent.creditCurrencyCleared) delete doc.data.credit_limit_currency;
  const { lastContact } = sent;
  if (lastContact !== undefined && (!doc.data.last_contact_date || lastContact > doc.data.last_contact_date)) doc.data.last_contact_date = lastContact;
  doc.data.extra = { ...doc.data.extra, ...extra };
  s.touchCustomer(doc);
  return doc;
}

function createCustomer(s: ReceivablesUnit, identifier: string, sent: CustomerProfile, extra: Record<string, unknown>, defaultName: string | undefined): CustomerDoc {
  const now = s.tx.at;
  const data: CustomerData = {
    identifier,
    name: sent.name ?? defaultName ?? identifier,
    pdf_attachment_opt_in: false,
    account_status: 'open',
    ignores_cc_payment_rules: false,
    notification_suppressed: false,
    auto_debit: false,
    contacts: [],
    extra,
    ledger: emptyLedger(),
    created_at: now,
    updated_at: now,
    updated_ms: s.tx.now,
    ...sent.patch,
  };
  if (sent.lastContact !== undefined) data.last_contact_date = sent.lastContact;
  const doc: CustomerDoc = { id: s.core.ids.token(), watermark: 0, identifier, parent: '', data };
  s.addCustomer(doc);
  return doc;
}

/** Payment terms: a type (day or date) and a value that must make sense for it. */
function readTerms(f: Fields, p: Problems, existing: CustomerDoc | undefined, patch: Partial<CustomerData>): void {
  const termsType = f.oneOf('terms_type', ['date', 'day'] as const, 'invalid_terms_type');
  const termsValue = f.int('terms_value', { code: 'invalid_terms_value' });
  const effectiveType = termsType ?? existing?.data.terms_type;
  if (termsValue !== undefined) {
    if (!effectiveType) p.add('terms_value', 'invalid_terms_value', 'needs terms_type (day or date)');
    else if (effectiveType === 'day' && (termsValue < 0 || termsValue > 100)) p.add('terms_value', 'invalid_terms_value', "must be 0 to 100 days when terms_type is 'day'");
    else if (effectiveType === 'date' && !((termsValue >= 1 && termsValue <= 27) || termsValue === -1 || termsValue === -2)) {
      p.add('terms_value', 'invalid_terms_value', "must be a day of the month 1 to 27, -1 (last day) or -2 (second-last day) when terms_type is 'date'");
    }
  } else if (termsType !== undefined && existing?.data.terms_value !== undefined && termsType !== existing.data.terms_type) {
    p.add('terms_value', 'invalid_terms_value', `is required when terms_type changes to '${termsType}'`);
  }
  if (termsType !== undefined) patch.terms_type = termsType;
  if (termsValue !== undefined) patch.terms_value = termsValue;
}

/** The parent customer named by parent_identifier: it must exist and must not make a cycle. */
async function readParent(s: ReceivablesUnit, f: Fields, p: Problems, identifier: string | undefined, existing: CustomerDoc | undefined): Promise<CustomerDoc | undefined> {
  let parent: CustomerDoc | undefined;
  const parentIdentifier = f.str('parent_identifier', { max: 100 });
  if (parentIdentifier !== undefined) {
    parent = await s.customerByIdentifier(parentIdentifier);
    if (!parent) p.add('parent_identifier', 'parent_not_found', `names no existing customer (${parentIdentifier})`);
    else if (parentIdentifier === identifier || (existing && (await isAncestor(s, existing.id, parent)))) {
      p.add('parent_identifier', 'hierarchy_cycle', `would make ${identifier} its own ancestor`);
      parent = undefined;
    }
  }
  return parent;
}

/** Restricted grouping keeps every customer of a group on one external_group_identifier. */
async function checkRestrictedGrouping(s: ReceivablesUnit, p: Problems, existing: CustomerDoc | undefined, groupIdentifier: string | undefined): Promise<void> {
  if (s.account.can('restricted_grouping') && existing?.data.group_id && groupIdentifier !== undefined && groupIdentifier !== existing.data.external_group_identifier) {
    const group = await getRecord<{ members: string[] }>(s.tx, 'customer_group', existing.data.group_id);
    for (const memberId of group?.data.members ?? []) {
      if (memberId === existing.id) continue;
      const member = await s.customerById(memberId);
      if (member && (member.data.external_group_identifier ?? '') !== groupIdentifier) {
        p.add('external_group_identifier', 'grouping_restricted', `differs from grouped customer ${member.identifier}; restricted grouping keeps a group on one value`);
        break;
      }
    }
  }
}

async function isAncestor(s: ReceivablesUnit, id: string, start: CustomerDoc): Promise<boolean> {
  const seen = new Set<string>();
  let at: CustomerDoc | undefined = start;
  while (at) {
    if (at.id === id) return true;
    if (seen.has(at.id) || !at.parent) return false;
    seen.add(at.id);
    at = await s.customerById(at.parent);
  }
  return false;
}

export async function requireCustomer(s: ReceivablesUnit, identifier: string, kind: 'not_found' | 'precondition' = 'not_found'): Promise<CustomerDoc> {
  const doc = await s.customerByIdentifier(identifier);
  if (!doc) throw notFound('customer_not_found', `No customer with identifier ${identifier}`, kind);
  return doc;
}

/**
 * Renames a customer and every record that carries its identifier: its invoices, its payments,
 * the allocations to its invoices and its children's parent_identifier. Each rewritten record gets
 * a new watermark, since what an export shows of it changed.
 */
export async function renameCustomer(s: ReceivablesUnit, identifier: string, next: string): Promise<CustomerDoc> {
  const doc = await requireCustomer(s, identifier, 'precondition');
  if (!KEY_RE.test(next)) throw fail.precondition('invalid_identifier', `new_identifier ${IDENTIFIER_RULE}`, [{ field: 'new_identifier', message: IDENTIFIER_RULE }]);
  if (next === identifier) return doc;
  if (await s.customerByIdentifier(next)) throw fail.precondition('identifier_taken', `new_identifier ${next} is already taken`, [{ field: 'new_identifier', message: 'is already taken' }]);
  s.renameCustomer(doc, next);

  const invoices = await s.tx.find<InvoiceRow & { [k: string]: unknown }>('invoices', { selector: { customer: doc.id }, sort: [{ customer: 'asc' }, { watermark: 'asc' }] });
  for (const found of invoices) {
    const inv = s.adoptInvoice(found);
    inv.data.customer_identifier = next;
    s.putInvoice(inv);
    const amounts = await s.tx.find<PaymentAmountDoc & { [k: string]: unknown }>('payment_amounts', { selector: { invoice: inv.id }, sort: [{ invoice: 'asc' }, { id: 'asc' }] });
    for (const a of amounts) {
      const amount = (await s.paymentAmount(a.id)) ?? a;
      if (amount.data.customer_identifier === identifier) s.putPaymentAmount({ ...amount, data: { ...amount.data, customer_identifier: next } });
    }
  }
  const payments = await s.tx.find<PaymentDoc & { [k: string]: unknown }>('payments', { selector: { customer: doc.id }, sort: [{ customer: 'asc' }, { watermark: 'asc' }] });
  for (const found of payments) {
    const pay = s.adoptPayment(found);
    pay.data.customer_identifier = next;
    s.putPayment(pay);
  }
  const children = await s.tx.find<CustomerDoc & { [k: string]: unknown }>('customers', { selector: { parent: doc.id }, sort: [{ parent: 'asc' }, { id: 'asc' }] });
  for (const child of children) {
    const c = await s.customerById(child.id);
    if (!c) continue;
    c.data.parent_identifier = next;
    s.touchCustomer(c);
  }
  return doc;
}

/** Issues (or re-sends) an invitation: a new email becomes a contact of the customer. */
export async function issueInvitation(s: ReceivablesUnit, identifier: string, email: string, by: 'supplier' | 'customer' = 'supplier'): Promise<void> {
  const doc = await requireCustomer(s, identifier);
  if (doc.data.account_status === 'closed') throw fail.forbidden('customer_closed', `Customer ${identifier} is closed`);
  let contact = findContact(doc.data.contacts, email);
  if (contact?.signed_up_at) return;
  if (!contact) {
    contact = { email, created_by: by, token: s.core.ids.token() };
    doc.data.contacts.push(contact);
  }
  contact.invited_at = s.tx.at;
  contact.invited_by = by;
  delete contact.disabled;
  s.touchCustomer(doc);
}

export async function cancelInvitation(s: ReceivablesUnit, identifier: string, email: string): Promise<void> {
  const doc = await requireCustomer(s, identifier);
  if (doc.data.account_status === 'closed') throw fail.forbidden('customer_closed', `Customer ${identifier} is closed`);
  const contact = findContact(doc.data.contacts, email);
  if (!contact?.invited_at) throw notFound('invitation_not_found', `No pending invitation for ${email} on customer ${identifier}`);
  if (contact.invited_by === 'customer') throw fail.forbidden('invited_by_customer_user', `${email} was invited by a customer user; only they can cancel it`);
  delete contact.invited_at;
  delete contact.invited_by;
  s.touchCustomer(doc);
}

/** A contact's person signed up on the customer portal (the portal and tests call this). */
export async function markSignedUp(s: ReceivablesUnit, identifier: string, email: string): Promise<void> {
  const doc = await requireCustomer(s, identifier);
  let contact = findContact(doc.data.contacts, email);
  if (!contact) {
    contact = { email, created_by: 'customer', token: s.core.ids.token() };
    doc.data.contacts.push(contact);
  }
  contact.signed_up_at ??= s.tx.at;
  contact.activated_at ??= s.tx.at;
  delete contact.invited_by;
  s.touchCustomer(doc);
}

/**
 * Groups customers. Under restricted grouping every member must carry the same
 * external_group_identifier; otherwise the value is stored and ignored.
 */
export async function groupCustomers(s: ReceivablesUnit, identifiers: string[], groupId?: string): Promise<string> {
  if (identifiers.length < 2 && !groupId) throw fail.precondition('group_too_small', 'A group needs at least two customers');
  const id = groupId ?? s.core.ids.token();
  const group = await getRecord<{ members: string[] }>(s.tx, 'customer_group', id);
  const members: CustomerDoc[] = [];
  for (const memberId of group?.data.members ?? []) {
    const m = await s.customerById(memberId);
    if (m) members.push(m);
  }
  for (const identifier of identifiers) {
    const m = await requireCustomer(s, identifier, 'precondition');
    if (!members.some((x) => x.id === m.id)) members.push(m);
  }
  if (s.account.can('restricted_grouping')) {
    const values = new Set(members.map((m) => m.data.external_group_identifier ?? ''));
    if (values.size > 1) throw fail.precondition('grouping_restricted', `Customers with different external_group_identifier values (${[...values].join(', ')}) may not be grouped`);
  }
  for (const m of members) {
    if (m.data.group_id === id) continue;
    m.data.group_id = id;
    s.touchCustomer(m);
  }
  await putRecord(s.tx, 'customer_group', id, { members: members.map((m) => m.id) }, { type: 'customer_group.updated', entity: 'customer_group', key: id });
  return id;
}
