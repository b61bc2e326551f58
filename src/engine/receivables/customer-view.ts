import type { Static } from '@sinclair/typebox';
import type { CustomerListItem, CustomerView } from '../../shared/schemas/receivables-customers';
import { daysBetween } from '../clock';
import { agingOf, majorityCurrency, owingIn, type Aging } from './ledger';
import { formatMoney } from './money';
import type { ContactData, CustomerDoc } from './types';

const yn = (b: boolean | undefined) => (b ? 'Y' : 'N');
const dateOf = (iso: string | undefined) => (iso ? iso.slice(0, 10) : null);

/** Adoption status, from what the customer's contacts did. */
function adoption(doc: CustomerDoc): string {
  const live = doc.data.contacts.filter((c) => !c.disabled);
  if (live.some((c) => c.signed_up_at)) return doc.data.ledger.paid_here ? 'Paying' : 'Signed Up';
  if (live.some((c) => c.activated_at)) return 'Activated';
  if (live.some((c) => c.invited_at)) return 'Invited';
  return 'Not Activated';
}

function inviteSent(contacts: ContactData[]): string | null {
  const dates = contacts.map((c) => c.invited_at).filter((d): d is string => !!d).sort();
  return dateOf(dates[dates.length - 1]);
}

function signedUp(contacts: ContactData[]): string | null {
  const dates = contacts.map((c) => c.signed_up_at).filter((d): d is string => !!d).sort();
  return dateOf(dates[0]);
}

export function primaryCurrency(doc: CustomerDoc, accountCurrency: string): string {
  return majorityCurrency(doc.data.ledger, accountCurrency);
}

const emptyAging: Aging = { current: 0, aging: 0, d30: 0, d60: 0, d90: 0, d120: 0, d180: 0, over90: 0, over180: 0, credit: 0, unapplied: 0 };

function contactView(c: ContactData) {
  return {
    email: c.email,
    first_name: c.first_name ?? null,
    last_name: c.last_name ?? null,
    telephone: c.telephone ?? null,
    title: c.title ?? null,
    department: c.department ?? null,
    activated_at: c.activated_at ?? null,
    invited_at: c.invited_at ?? null,
    login_at: c.login_at ?? null,
    user_first_name: c.user?.first_name ?? null,
    user_last_name: c.user?.last_name ?? null,
    user_role: c.user?.role ?? (c.signed_up_at ? 'admin' : null),
    user_telephone: c.user?.telephone ?? null,
    user_title: c.user?.title ?? null,
    user_department: c.user?.department ?? null,
    disabled: c.disabled === true,
  };
}

export interface ViewContext {
  today: string;
  accountCurrency: string;
  /** Division names by code (for divisions_names). */
  divisionName(code: string): string | undefined;
}

/** A customer's balance and aging in one currency, formatted. */
function agingMoney(a: Aging, c: string) {
  return {
    balance: formatMoney(a.current + a.aging, c),
    credit: formatMoney(a.credit, c),
    current: formatMoney(a.current, c),
    unapplied_payment: formatMoney(a.unapplied, c),
    aging: formatMoney(a.aging, c),
    aging_30: formatMoney(a.d30, c),
    aging_60: formatMoney(a.d60, c),
    aging_90: formatMoney(a.d90, c),
    aging_older: formatMoney(a.over90, c),
  };
}

/** `<currency>_<field>` for every currency, when the customer transacts in more than its main one. */
function perCurrencyMoney(byCurrency: Map<string, Aging>, currency: string): Record<string, string> {
  const perCurrency: Record<string, string> = {};
  if (byCurrency.size > 1 || (byCurrency.size === 1 && !byCurrency.has(currency))) {
    for (const [c, a] of byCurrency) for (const [k, v] of Object.entries(agingMoney(a, c))) perCurrency[`${c}_${k}`] = v;
  }
  return perCurrency;
}

function oldestOpenInvoice(oldest: ReturnType<typeof agingOf>['oldest'], today: string) {
  return {
    oldest_open_invoice: oldest?.number ?? '',
    oldest_open_invoice_age: oldest ? String(Math.max(0, daysBetween(oldest.date, today))) : '',
    oldest_open_invoice_balance: oldest ? formatMoney(oldest.owing, oldest.currency) : '',
  };
}

/**
 * GET /api/exports/customer/{identifier} (and the customer webhook payload): money as formatted
 * strings in the customer's main currency (most of its invoices, else the account's), plus
 * `<currency>_<field>` for every currency when it transacts in more than one. Absent text is '';
 * the dates and the last payment source it has none of are null (the reference types them as a date
 * and an enum, and the list export answers null for them too, from the same functions).
 */
export function customerView(
  doc: CustomerDoc,
  ctx: ViewContext,
  related: { parent?: CustomerDoc; root: string },
): Static<typeof CustomerView> {
  const d = doc.data;
  const currency = primaryCurrency(doc, ctx.accountCurrency);
  const fig = agingOf(d.ledger, ctx.today);
  const main = fig.byCurrency.get(currency) ?? emptyAging;
  const s = (v: string | undefined) => v ?? '';
  const codes = Object.keys(d.ledger.divisions).sort();
  const last = d.ledger.last_payment;
  const creditCurrency = d.credit_limit_currency ?? currency;
  return {
    identifier: d.identifier,
    display_number: s(d.display_number),
    name: d.name,
    business_number: s(d.business_number),
    first_name: s(d.first_name),
    last_name: s(d.last_name),
    email: s(d.email),
    address_1: s(d.address_1),
    address_2: s(d.address_2),
    postal_code: s(d.postal_code),
    city: s(d.city),
    province: s(d.province),
    country: s(d.country),
    telephone: s(d.telephone),
    fax: s(d.fax),
    status: adoption(doc),
    auto_debit: yn(d.auto_debit),
    invite_sent: inviteSent(d.contacts),
    signed_up: signedUp(d.contacts),
    notification_suppressed: yn(d.notification_suppressed),
    notification_override: 'N',
    paper_invoices: 'N',
    paper_statements: 'N',
    currency,
    ...agingMoney(main, currency),
    ...perCurrencyMoney(fig.byCurrency, currency),
    notes: s(d.notes),
    parent_identifier: s(d.parent_identifier),
    parent_name: s(related.parent?.data.name),
    parent_email: s(related.parent?.data.email),
    adp: '',
    adp_arc: '',
    adp_external: '',
    last_contact_date: s(d.last_contact_date),
    next_contact_date: s(d.next_contact_date),
    credit_limit: formatMoney(d.credit_limit_cents ?? 0, creditCurrency),
    credit_limit_currency: creditCurrency,
    ...oldestOpenInvoice(fig.oldest, ctx.today),
    last_payment_date: last?.date ?? null,
    last_payment_amount: formatMoney(last?.amount_cents ?? 0, last?.currency ?? currency),
    last_payment_source: last?.source ?? null,
    account_status: d.account_status,
    tags: s(d.tags),
    user_tags: '',
    divisions_names: codes.map((c) => ctx.divisionName(c) ?? c).join(';'),
    divisions_codes: codes.join(';'),
    url: s(d.url),
    group_id: s(d.group_id),
    external_group_identifier: s(d.external_group_identifier),
    credit_card_fee_exempt: 'N',
    auto_update_cc_expiry: 'N',
    cash_on_delivery: 'N',
    external_id: s(d.external_id),
    locale: s(d.locale),
    terms_type: s(d.terms_type),
    terms_value: d.terms_value ?? null,
    credit_rating: s(d.credit_rating),
    company_bio: s(d.company_bio),
    pdf_attachment_opt_in: yn(d.pdf_attachment_opt_in),
    ignores_cc_payment_rules: yn(d.ignores_cc_payment_rules),
    attributes_marshal: d.extra,
    watermark: doc.watermark,
    root_identifier: related.root,
    contacts: d.contacts.map(contactView),
  };
}

/**
 * A record of the customer list exports (/api/exports/customers and /recent): the reference's
 * list shape, money in cents of the customer's main currency, flags as booleans, absent as null.
 */
export function customerListItem(doc: CustomerDoc, ctx: Pick<ViewContext, 'today' | 'accountCurrency'>): Static<typeof CustomerListItem> {
  const d = doc.data;
  const currency = primaryCurrency(doc, ctx.accountCurrency);
  const a = agingOf(d.ledger, ctx.today).byCurrency.get(currency) ?? emptyAging;
  const n = (v: string | undefined) => v ?? null;
  // The one definition of the list's balance, which its rank sorts by (current plus past due).
  const balance = owingIn(d.ledger, currency);
  return {
    identifier: d.identifier,
    display_number: n(d.display_number),
    name: d.name,
    email: n(d.email),
    business_number: n(d.business_number),
    first_name: n(d.first_name),
    last_name: n(d.last_name),
    address_1: n(d.address_1),
    address_2: n(d.address_2),
    postal_code: n(d.postal_code),
    city: n(d.city),
    province: n(d.province),
    country: n(d.country),
    telephone: n(d.telephone),
    fax: n(d.fax),
    status: adoption(doc),
    auto_debit: yn(d.auto_debit),
    invite_sent: inviteSent(d.contacts),
    signed_up: signedUp(d.contacts),
    notification_suppressed: d.notification_suppressed,
    notification_override: false,
    paper_invoices: false,
    paper_statements: false,
    parent_identifier: n(d.parent_identifier),
    currency,
    balance_cents: balance,
    aging_cents: a.aging,
    aging_30_cents: a.d30,
    aging_60_cents: a.d60,
    aging_90_cents: a.d90,
    aging_120_cents: a.d120,
    aging_180_cents: a.d180,
    aging_older_cents: a.over180,
    current_cents: a.current,
    credit_cents: a.credit,
    unapplied_payment_cents: a.unapplied,
    prepayment_cents: 0,
    owing_cents: balance + a.credit - a.unapplied,
    notes: n(d.notes),
    adp: null,
    adp_arc: null,
    adp_external: null,
    last_contact_date: n(d.last_contact_date),
    next_contact_date: n(d.next_contact_date),
    credit_limit_cents: d.credit_limit_cents ?? null,
    account_status: d.account_status,
    tags: n(d.tags),
    user_tags: null,
    attributes_marshal: d.extra,
    external_id: n(d.external_id),
    external_group_identifier: n(d.external_group_identifier),
    watermark: doc.watermark,
  };
}

