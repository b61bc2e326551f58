import type { RefundCause } from '../wallets/autopay-port';
import type { Static } from '@sinclair/typebox';
import type { CustomerImport } from '../../shared/schemas/receivables-customers';
import type { DivisionImport } from '../../shared/schemas/receivables-divisions';
import type { InvoiceImport } from '../../shared/schemas/receivables-invoices';
import type { PaymentAmountView, PaymentImport } from '../../shared/schemas/receivables-payments';
/**
 * Stored shapes of the receivables domain. Documents keep only what was given or computed:
 * absent optional fields are left out (views fill nulls), which keeps export pages small.
 */

export type Extra = Record<string, unknown>;

/**
 * What each import takes: the body its route validates, typed by the same TypeBox schema. The
 * schemas let attributes beyond their properties through (an invoice's customer_* attributes,
 * extended attributes), which the rules read by name: hence the open record beside each.
 */
type Attributes = Record<string, unknown>;
export type CustomerImportInput = Static<typeof CustomerImport> & Attributes;
export type InvoiceImportInput = Static<typeof InvoiceImport> & Attributes;
export type PaymentImportInput = Static<typeof PaymentImport> & Attributes;
export type DivisionImportInput = Static<typeof DivisionImport> & Attributes;
/** A payment as a CSV import's row: every column a string, `payment_total` allowed. */
export type PaymentCsvRow = Record<string, string>;

export interface ContactData {
  email: string;
  first_name?: string;
  last_name?: string;
  title?: string;
  department?: string;
  telephone?: string;
  /** Who made the contact: the supplier (imports, invitations) or a customer user (the portal). */
  created_by: 'supplier' | 'customer';
  /** Who sent the pending invitation, when there is one. */
  invited_by?: 'supplier' | 'customer';
  invited_at?: string;
  activated_at?: string;
  signed_up_at?: string;
  login_at?: string;
  disabled?: boolean;
  user?: { first_name?: string; last_name?: string; role?: string; telephone?: string; title?: string; department?: string };
  /** Per-contact click-to-pay token. */
  token: string;
}

/** One open item on a customer: [invoice date, due date or '', owing cents, currency]. */
export type OpenItem = [string, string, number, string];

/**
 * The customer's running ledger, kept on the customer document and changed in the same unit of
 * work as the invoices and payments that move it, so aging is computed at read time (it moves
 * with the clock) without a query per customer.
 */
export interface Ledger {
  open: Record<string, OpenItem>;
  /** Overpayments and payments on account, per currency. */
  unapplied: Record<string, number>;
  /** Invoices per currency (the credit-limit currency default) and per division code. */
  currencies: Record<string, number>;
  divisions: Record<string, number>;
  last_payment?: { reference: string; date: string; amount_cents: number; currency: string; source: string };
  /** A payment made through Laneway itself (portal, autopay): adoption status "Paying". */
  paid_here?: boolean;
}

export interface CustomerData {
  identifier: string;
  name: string;
  display_number?: string;
  email?: string;
  first_name?: string;
  last_name?: string;
  notes?: string;
  address_1?: string;
  address_2?: string;
  city?: string;
  province?: string;
  postal_code?: string;
  country?: string;
  telephone?: string;
  fax?: string;
  url?: string;
  business_number?: string;
  locale?: 'en' | 'fr' | 'es';
  parent_identifier?: string;
  pdf_attachment_opt_in: boolean;
  account_status: 'open' | 'closed';
  last_contact_date?: string;
  next_contact_date?: string;
  credit_limit_cents?: number;
  credit_limit_currency?: string;
  credit_rating?: string;
  terms_type?: 'date' | 'day';
  terms_value?: number;
  company_bio?: string;
  ignores_cc_payment_rules: boolean;
  notification_suppressed: boolean;
  tags?: string;
  external_id?: string;
  external_group_identifier?: string;
  group_id?: string;
  auto_debit: boolean;
  contacts: ContactData[];
  extra: Extra;
  ledger: Ledger;
  created_at: string;
  updated_at: string;
  updated_ms: number;
}

export interface CustomerDoc {
  id: string;
  watermark: number;
  identifier: string;
  parent: string;
  data: CustomerData;
}

export interface LineItemData {
  number: string;
  description?: string;
  order_key?: string;
  purchase_order_number?: string;
  quantity?: number;
  unit_cost_cents?: number;
  amount_cents: number;
  balance_cents: number;
  extra: Extra;
}

export interface AdjustmentData {
  label?: string;
  amount_cents: number;
}

export interface AttachmentSummary {
  file_name: string;
  invoice_display: boolean;
  size: number;
  sha256: string;
  added_at: string;
}

export interface InvoiceData {
  number: string;
  display_number: string;
  iid: number;
  customer_identifier: string;
  currency: string;
  amount_cents: number;
  owing_cents: number;
  /** Payments and discounts applied so far; without balance sync, owing = amount - applied. */
  applied_cents: number;
  subtotal_tax1?: number;
  subtotal_tax2?: number;
  date: string;
  due_date?: string;
  order_date?: string;
  purchase_order_number?: string;
  notes_text?: string;
  shipping?: { name?: string; address_1?: string; address_2?: string; city?: string; province?: string; postal_code?: string; country?: string };
  line_items: LineItemData[];
  adjustments: AdjustmentData[];
  auto_debit: boolean;
  division?: string;
  auto_debit_reference?: string;
  ref1?: string;
  ref2?: string;
  ref3?: string;
  plan_identifier?: string;
  plan_start_date?: string;
  plan_end_date?: string;
  plan_payment_cents?: number;
  annualized_amount_cents?: number;
  annualized_effective_date?: string;
  annualized_expiry_date?: string;
  external_id?: string;
  summary_invoice_parent: boolean;
  summary_invoice_number?: string;
  service_rep_email?: string;
  discount_amount_cents?: number;
  discount_rate?: number;
  discount_expiry_date?: string;
  l3?: Record<string, string>;
  suppress_notifications: boolean;
  deleted: boolean;
  attachments: AttachmentSummary[];
  pay_token: string;
  extra: Extra;
  created_at: string;
  updated_at: string;
  updated_ms: number;
}

/** An invoice's indexed fields, the same in the stored row (invoice-codec.ts) and the decoded document. */
export interface InvoiceKeys {
  id: string;
  watermark: number;
  display_number: string;
  customer: string;
  feed: 'open' | 'closed' | 'deleted';
  division: string;
}

export interface InvoiceDoc extends InvoiceKeys {
  iid: number;
  data: InvoiceData;
}

export type PaymentSource = 'erp' | 'external' | 'arc' | 'manual';

export interface AllocationLine {
  line_item_number: string;
  amount_cents: number;
  balance_cents: number;
}

/** What a payment's line for one invoice carries besides its amounts, as given and as stored. */
export interface AllocationReferences {
  note?: string;
  purchase_order_number?: string;
  ref1?: string;
  ref2?: string;
  ref3?: string;
  line_number?: string;
  reason_type?: string;
  short_pay_reason_identifier?: string;
  division?: string;
  match_at?: string;
  remit?: Record<string, string | number>;
}

/**
 * An allocation that took less than asked on an invoice that could not take every payment: the
 * payment served later (servedBefore in payments.ts) applied `to_cents` where it asked or held
 * `from_cents`, the rest its unapplied credit.
 */
export interface AllocationCut {
  payment: string;
  invoice_number: string;
  from_cents: number;
  to_cents: number;
}

export interface AllocationData extends AllocationReferences {
  /** The payment_amounts document id. */
  id: string;
  invoice_number: string;
  amount_cents: number;
  /** Discount taken with an external payment: reduces owing, is not money received. */
  discount_cents: number;
  invoice_balance_cents: number;
  short_pay: boolean;
  lines: AllocationLine[];
  /** The invoice as it was when this allocation was applied (the allocation export shows it). */
  invoice: InvoiceSnapshot;
}

export interface InvoiceSnapshot {
  display_number: string;
  date: string;
  currency: string;
  amount_cents: number;
  /** Everything applied to the invoice so far, this allocation included. */
  amount_paid_cents: number;
  customer_identifier: string;
  external_id?: string;
  purchase_order_number?: string;
  ref1?: string;
  ref2?: string;
  ref3?: string;
  division?: string;
  division_name?: string;
  division_number?: string;
}

export type PaymentStatus = 'IN PROGRESS' | 'PAID (UNVERIFIED)' | 'REVERSAL' | 'ERROR (NSF)' | 'ERROR (DECLINED)' | 'PAID';

export interface PaymentData {
  reference: string;
  token: string;
  display_identifier?: string;
  customer_identifier: string;
  customer_name: string;
  date: string;
  currency: string;
  /** Total received, without fees. */
  amount_cents: number;
  /** Fees the payer paid on top (payments made here: card surcharges). */
  fee_cents: number;
  unapplied_cents: number;
  source: PaymentSource;
  /** What recorded it: an import (json/csv), the cashier screens, autopay, the portal. */
  channel: string;
  status: PaymentStatus;
  status_reason?: string;
  payment_method?: string;
  external_payment_type?: string;
  external_payment_number?: string;
  payor_bank_branch_number?: string;
  /** Last four digits only: a bank account number never rests in clear. */
  payor_bank_account_last4?: string;
  payor_name?: string;
  settlement_date?: string;
  external_id?: string;
  payment_code?: string;
  payment_description?: string;
  gateway_authorization_code?: string;
  settlement_token?: string;
  auto_debit: boolean;
  allocations: AllocationData[];
  /**
   * Each refund, void, chargeback or return of its transaction taken off it (keepOfPayment), oldest first: amount_cents
   * is what it keeps, so without these what it received (the settlement's sale) is lost.
   */
  taken_off?: TakenOffData[];
  timestamp: string;
  created_at: string;
  updated_at: string;
  updated_ms: number;
}

// Why a payment made here keeps less of itself: the autopay port's RefundCause, which this domain
// implements (one definition: the port's).
export type { RefundCause };

export interface TakenOffData extends RefundCause {
  /** When it was taken off (the refund's own unit of work, or when its sale's payment was linked). */
  at: string;
  /** The account's local day of `at`. */
  date: string;
  /** Taken off the payment: at most what it still kept. */
  amount_cents: number;
  reason: string;
}

/** What keeping less of a payment would put back owing (Receivables.owedAgainIfKept). */
export interface OwedAgain {
  payment_reference: string;
  customer_identifier: string;
  customer_name: string;
  currency: string;
  /** Taken off the payment's amount. */
  taken_cents: number;
  invoices: Array<{ invoice_number: string; display_number: string; cents: number }>;
}

export interface PaymentDoc {
  id: string;
  watermark: number;
  token: string;
  customer: string;
  data: PaymentData;
}

/** An allocation as it is exported: the schema's fields and the reference's others it lets through. */
export type PaymentAmountRecord = Static<typeof PaymentAmountView> & Record<string, unknown>;

export interface PaymentAmountDoc {
  id: string;
  watermark: number;
  invoice: string;
  payment: string;
  data: PaymentAmountRecord;
}

export type { DivisionData } from '../account/whoami';
