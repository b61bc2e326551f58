import type { Static } from '@sinclair/typebox';
import type { PaymentView } from '../../shared/schemas/receivables-payments';
import type { Tx } from '../core';

/**
 * What autopay (and the invoicing-payment detail view) needs from the receivables domain. The
 * receivables domain implements it; until it is wired, agreements still work, customer existence is
 * not checked and no invoice is charged.
 */
export interface DueInvoice {
  number: string;
  customer_identifier: string;
  /** ISO 4217, any case. */
  currency: string;
  /** Open balance still owed, in cents (> 0 for a due invoice). */
  owing_cents: number;
  /** The early-payment discount a payment of all of it takes on the charge's date (receivables' early-discount.ts). */
  discount_cents?: number;
  /** YYYY-MM-DD */
  due_date: string;
  /** false when the invoice was imported with auto_debit N: autopay must leave it alone. */
  auto_debit: boolean;
  /** The invoice's auto_debit_reference (policy or contract number), matched by specific agreements. */
  auto_debit_reference: string | null;
}

/** An invoicing payment made by autopay, to record against the invoices it paid. */
export interface AutopayPayment {
  /** Payment identifier: the gateway transaction token (recording twice must be harmless). */
  identifier: string;
  customer_identifier: string;
  /** YYYY-MM-DD, the account's local date of the charge. */
  date: string;
  currency: string;
  amount_cents: number;
  payment_method: 'credit_card' | 'bank_account';
  transaction_token: string;
  fund_token: string;
  authorization_code: string | null;
  /** Card payments are final now; bank payments are IN PROGRESS until the ACH/EFT settles. */
  status: 'PAID' | 'IN PROGRESS';
  autopay_agreement: string;
  /**
   * owing_cents: what the invoice owed when the sale was priced. Owing anything else when the
   * payment is written, nothing is recorded: recordPayment rejects with the conflict
   * `amount_changed` (errors.ts isBalanceMoved) and the sale is given back.
   */
  invoices: Array<{ number: string; amount_cents: number; discount_cents?: number; owing_cents?: number }>;
}

/** The invoices a payment's change put back owing, and the payment's customer. */
export interface PutBack {
  customer_identifier: string;
  invoices: string[];
}

/**
 * Which refund or void of which sale a payment keeps less for, or which chargeback or return took
 * the sale's money back (kept on the payment, with what it took off).
 */
export interface RefundCause {
  kind: 'refund' | 'void' | 'chargeback' | 'return';
  /** The sale whose money the payment was. */
  sale_token: string;
  /**
   * The refund or void itself; null when several that reached the store together are taken off at
   * once (followAutopaySales), and for a chargeback or return (the sale's own money came back, no
   * transaction of its own).
   */
  transaction_token: string | null;
}

/** What a payment keeping less would put back owing, and whose. */
export interface OwedAgainOfPayment {
  payment_reference: string;
  customer_identifier: string;
  customer_name: string;
  currency: string;
  invoices: Array<{ invoice_number: string; display_number: string; cents: number }>;
}

export interface ReceivablesPort {
  customerExists(identifier: string): Promise<boolean>;
  /** The customer's name (null when it has none), or undefined when there is no such customer. */
  customerName(identifier: string): Promise<string | null | undefined>;
  /** Open invoices of the customer with a balance, due on or before `asOfDate` (YYYY-MM-DD). */
  dueInvoices(customerIdentifier: string, asOfDate: string): Promise<DueInvoice[]>;
  /** Records the payment and applies it to the invoices; idempotent by `identifier`. */
  recordPayment(payment: AutopayPayment): Promise<{ identifier: string }>;
  /**
   * Takes a recorded payment off the invoices it paid, its status saying why: its money came back
   * (an ACH return, a chargeback, the `cause`), so it keeps nothing and lists it among what was taken
   * off it, as a refund of all it kept would. Harmless for a payment already reversed or never
   * recorded. Answers the invoices it put back owing (none when it changed nothing).
   */
  reversePayment?(identifier: string, status: 'ERROR (NSF)' | 'REVERSAL', reason: string, cause: RefundCause): Promise<PutBack>;
  /**
   * The recorded payment keeps `keepCents`; the rest goes back on the invoices it paid (its
   * transaction was refunded or voided). Harmless when it already keeps no more, or was never recorded.
   * Answers the invoices it put back owing.
   */
  keepOfPayment?(identifier: string, keepCents: number, reason: string, cause: RefundCause): Promise<PutBack>;
  /** keepOfPayment in the refund's or void's own unit of work. */
  keepOfPaymentInTx?(tx: Tx, identifier: string, keepCents: number, reason: string, cause: RefundCause): Promise<PutBack>;
  /** What keepOfPayment would put back owing, changing nothing; undefined for a payment never recorded. */
  owedAgainIfKept?(identifier: string, keepCents: number): Promise<OwedAgainOfPayment | undefined>;
  /** A recorded bank payment whose transaction settled: IN PROGRESS becomes PAID (any other status stays). */
  settlePayment?(identifier: string): Promise<void>;
  /** The customer's auto_debit (Y while it has an agreement in force, as the reference's customer says). */
  setAutoDebit?(identifier: string, enabled: boolean): Promise<void>;
  /** The invoicing payment record (GET /api/exports/payment/{reference_or_token}, its options too), for /api/gateway/v1/payments/{token}. */
  viewPayment?(referenceOrToken: string, options?: { tree?: boolean }): Promise<Static<typeof PaymentView> | undefined>;
}
