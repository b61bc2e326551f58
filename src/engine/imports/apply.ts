import type { Tx } from '../core';
import { fail } from '../errors';
import { putRecord } from '../records';
import { formatMoney } from '../../shared/money';
import { maskCardNumbersInFreeText } from '../security/card-data';
import type { Wallets } from '../wallets';
import type { Autopay } from '../wallets/autopay';
import { IDENTIFIER_RULE, upsertCustomer } from '../receivables/customers';
import { importDivision } from '../receivables/divisions';
import { deleteInvoice, importInvoice, owingBeyondAmount } from '../receivables/invoices';
import { importPayment } from '../receivables/payments';
import { Fields } from '../receivables/fields';
import { KEY_RE, Problems } from '../receivables/problems';
import type { ReceivablesUnit } from '../receivables/unit-of-work';
import type { CustomerImportInput, DivisionImportInput, InvoiceImportInput, PaymentCsvRow } from '../receivables/types';
import { CARD_COLUMNS, groupInput, KINDS, type FileKind, type Group } from './kinds';
import { RECON_INVOICE, RECON_PAYMENT, type EchoLine } from './records';

/** What one unit of work of a batch gives each record: the unit, and where echo lines go. */
export interface ApplyContext {
  tx: Tx;
  unit: ReceivablesUnit;
  batch: number;
  header: readonly string[];
  echo: EchoLine[];
  wallets: Wallets;
  autopay: Autopay;
}

export type Applier = (ctx: ApplyContext, group: Group) => Promise<void>;

/**
 * Each kind's record goes through the very rule its JSON import runs (receivables' import
 * functions, the wallets' card vaulting), in the batch's unit of work.
 */
export const APPLIERS: Record<FileKind, Applier> = {
  customers: async (ctx, group) => {
    await upsertCustomer(ctx.unit, input('customers', group) as CsvTyped<CustomerImportInput>);
  },
  invoices: async (ctx, group) => {
    await importInvoice(ctx.unit, input('invoices', group) as CsvTyped<InvoiceImportInput>);
  },
  payments: async (ctx, group) => {
    await importPayment(ctx.unit, input('payments', group) as PaymentCsvRow, 'csv');
  },
  divisions: async (ctx, group) => {
    await importDivision(ctx.unit, input('divisions', group) as CsvTyped<DivisionImportInput>);
  },
  credit_cards: importCard,
  invoice_recon: reconcileInvoice,
  payment_recon: reconcilePayment,
};

/**
 * A CSV record holds text where the JSON schema has numbers and booleans. The import rules read
 * every field through their own checks (receivables' Fields), which take both and name the field
 * of a bad value, so the record is handed over as the input type those checks stand behind.
 */
type CsvTyped<T> = T;

/** A record's JSON input; card numbers typed into free text are masked, as the API does for JSON bodies. */
const input = (kind: FileKind, group: Group) => maskCardNumbersInFreeText(groupInput(KINDS[kind], group).input);

/** Where a card error belongs in the seed's columns. */
const CARD_FIELD: Record<string, string> = {
  invalid_card_number: 'number',
  card_unknown_to_sandbox: 'number',
  card_number_unspecified: 'number',
  card_expired: 'expiry',
  expiry_unspecified: 'expiry',
  invalid_expiry: 'expiry',
  invalid_create_debit_agreement: 'create_debit_agreement',
  customer_not_found: 'customer_identifier',
  autopay_exists: 'create_debit_agreement',
  name_unspecified: 'name',
  missing_customer_identifier: 'customer_identifier',
  invalid_customer_identifier: 'customer_identifier',
};
export const cardField = (code: string): string => CARD_FIELD[code] ?? '';

/** MMYY (the seed's), MM/YY or MM/YYYY. */
function expiryOf(text: string | undefined): { month: string; year: string } {
  const m = /^(\d{2})\/?(\d{2}|\d{4})$/.exec((text ?? '').trim());
  // Checked here, in the file's own words: the wallet rule would name its JSON fields (expiry_month).
  const month = Number(m?.[1]);
  if (!m?.[1] || !m[2] || month < 1 || month > 12) throw fail.precondition('invalid_expiry', 'expiry must be MMYY with a month from 01 to 12 (for example 0328)');
  return { month: m[1], year: m[2] };
}

async function importCard(ctx: ApplyContext, group: Group): Promise<void> {
  const row = group.rows[0];
  if (!row) return;
  const v = row.values;
  if (!v.customer_identifier) throw fail.precondition('missing_customer_identifier', 'customer_identifier is required');
  // The customer's identifier rule (a card number there arrives masked, and the mask's * is refused).
  if (!KEY_RE.test(v.customer_identifier)) throw fail.precondition('invalid_customer_identifier', `customer_identifier ${IDENTIFIER_RULE}`);
  const { month, year } = expiryOf(v.expiry);
  const agreement = v.create_debit_agreement?.trim().toUpperCase();
  if (agreement !== undefined && agreement !== 'Y' && agreement !== 'N') throw fail.precondition('invalid_create_debit_agreement', 'create_debit_agreement must be Y or N');
  const holder = [v.first_name, v.last_name].filter(Boolean).join(' ') || v.name;
  const tokens = await ctx.wallets.importCardInTx(ctx.tx, {
    customer: { identifier: v.customer_identifier, name: v.name ?? null },
    credit_card: {
      ...(holder ? { name: holder } : {}),
      ...(v.number ? { card_number: v.number } : {}),
      expiry_month: month,
      expiry_year: year,
      ...(v.postal_code ? { address: { postal_code: v.postal_code } } : {}),
    },
  });
  // Y: the customer's autopay agreement on this card (the autopay rule, in the same unit).
  if (agreement === 'Y') {
    await ctx.autopay.createInTx(ctx.tx, { customer_identifier: v.customer_identifier, fund_token: tokens.fund_token, ...(v.auto_debit_reference ? { autopay_reference: v.auto_debit_reference } : {}) });
  }
  ctx.echo.push({ batch: ctx.batch, line: row.line, cells: echoCells(ctx.header, v), ...tokens });
}

/**
 * A card line as the echo repeats it: the line as sent, card number and expiry masked (last four
 * digits at most), other columns than the seed's left empty. A refused line is echoed too, with no
 * tokens, so the echo's lines stay those of the file, one for one.
 */
export function echoCells(header: readonly string[], v: Readonly<Record<string, string>>): string[] {
  return header.map((name) => {
    const value = v[name] ?? '';
    const digits = value.replace(/\D/g, '');
    if (name === 'number') return value ? `${'*'.repeat(Math.max(0, digits.length - 4))}${digits.slice(-4)}` : '';
    if (name === 'expiry') return value ? '****' : '';
    return (CARD_COLUMNS as readonly string[]).includes(name) ? value : '';
  });
}

/**
 * The invoice number (or payment identifier) a reconciliation line lists, without the white space
 * around it: a key here never starts or ends with a space (imports refuse it), so ` T-0 ` can only
 * be T-0. The line's reconciliation and the closing's list of invoices the file names (runner.ts)
 * both read it here: an invoice the closing counts as listed is the invoice its line reconciled.
 */
export function listedKey(values: Readonly<Record<string, string | undefined>>, column: 'number' | 'payment_reconciliation_identifier'): string | undefined {
  return values[column]?.trim() || undefined;
}

/** A reconciliation line's cells with its key read as listedKey reads it (absent when only white space). */
function withListedKey(values: Readonly<Record<string, string>>, column: 'number' | 'payment_reconciliation_identifier'): Record<string, string> {
  const { [column]: _sent, ...rest } = values;
  const key = listedKey(values, column);
  return key === undefined ? rest : { ...rest, [column]: key };
}

const money = (cents: number | undefined, currency: string) => (cents === undefined ? '' : formatMoney(cents, currency, { locale: 'en-US' }));

/** An invoice of the ERP's list of open invoices: a balance that differs is corrected (balance sync). */
async function reconcileInvoice(ctx: ApplyContext, group: Group): Promise<void> {
  const row = group.rows[0];
  if (!row) return;
  const problems = new Problems();
  const f = new Fields(withListedKey(row.values, 'number'), problems);
  const number = f.str('number', { max: 100 });
  if (!f.has('number')) problems.add('number', 'missing_number', 'is required');
  const source = f.int('balance_in_source_system', { code: 'invalid_amount' });
  if (!f.has('balance_in_source_system')) problems.add('balance_in_source_system', 'missing_amount', 'is required (minor units)');
  problems.throwIfAny();
  if (number === undefined || source === undefined) return;
  const invoice = await ctx.unit.invoice(number);
  const currency = invoice?.data.currency ?? ctx.unit.currency;
  const base = {
    number,
    division_code: invoice?.data.division ?? row.values.division_code ?? null,
    customer_number: invoice?.data.customer_identifier ?? row.values.customer_number ?? '',
    customer_name: row.values.customer_name || (invoice ? await customerName(ctx, invoice.customer) : ''),
    invoice_date: invoice?.data.date ?? row.values.invoice_date ?? null,
    payment_identifier: null,
    payment_date: null,
    orphaned_payment_amount: '',
    balance_in_source_system: money(source, currency),
  };
  let message: string | undefined;
  let balance = invoice?.data.owing_cents;
  if (!invoice || invoice.data.deleted) message = 'Invoice Not Present in Laneway';
  else if (invoice.data.owing_cents !== source) {
    if (ctx.unit.account.can('balance_sync')) {
      // The invoice import's rule, named here by the file's column and invoice.
      const beyond = owingBeyondAmount(invoice.data.amount_cents, source);
      if (beyond) problems.add('balance_in_source_system', 'owing_exceeds_amount', `of invoice ${number} ${beyond}`);
      problems.throwIfAny();
      await importInvoice(ctx.unit, { number, customer_identifier: invoice.data.customer_identifier, owing_cents: source });
      message = `Balance corrected from ${money(invoice.data.owing_cents, currency)}`;
      balance = source;
    } else message = 'Balance differs; not corrected: the account does not use balance sync';
  }
  if (!message) return;
  await putRecon(ctx.tx, RECON_INVOICE, ctx.batch, row.line, { ...base, balance_in_arc: money(balance, currency), discrepancy_message: message });
}

/** The name of the customer an invoice belongs to here (a reconciliation record shows it). */
const customerName = async (ctx: ApplyContext, customerId: string) => (await ctx.unit.customerById(customerId))?.data.name ?? '';

/** An invoice open here that the ERP's list leaves out: closed (deleted), and said so. */
export async function closeUnlisted(ctx: ApplyContext, number: string): Promise<void> {
  const invoice = await ctx.unit.invoice(number);
  if (!invoice || invoice.data.deleted) return;
  const balance = money(invoice.data.owing_cents, invoice.data.currency);
  await deleteInvoice(ctx.unit, number);
  await putRecon(ctx.tx, RECON_INVOICE, ctx.batch, 0, {
    number,
    division_code: invoice.data.division ?? null,
    customer_number: invoice.data.customer_identifier,
    customer_name: await customerName(ctx, invoice.customer),
    invoice_date: invoice.data.date,
    payment_identifier: null,
    payment_date: null,
    orphaned_payment_amount: '',
    balance_in_arc: balance,
    balance_in_source_system: '',
    discrepancy_message: 'Invoice Not Present in Source System; closed',
  }, number);
}

/** A payment of the ERP's list, compared with ours; a discrepancy is recorded, nothing is changed. */
async function reconcilePayment(ctx: ApplyContext, group: Group): Promise<void> {
  const row = group.rows[0];
  if (!row) return;
  const problems = new Problems();
  const f = new Fields(withListedKey(row.values, 'payment_reconciliation_identifier'), problems);
  const id = f.str('payment_reconciliation_identifier', { max: 100 });
  if (!f.has('payment_reconciliation_identifier')) problems.add('payment_reconciliation_identifier', 'missing_identifier', 'is required');
  const amount = f.int('payment_amount_in_source_system', { code: 'invalid_amount' });
  const applied = f.int('applied_amount_in_source_system', { code: 'invalid_amount' });
  const unapplied = f.int('unapplied_amount_in_source_system', { code: 'invalid_amount' });
  const date = f.date('payment_date_in_source_system');
  const external = f.str('external_payment_number_in_source_system', { max: 100 });
  const sourceCurrency = f.currency('currency_in_source_system');
  problems.throwIfAny();
  if (id === undefined) return;
  const payment = await ctx.unit.payment(id);
  const p = payment?.data;
  const currency = p?.currency ?? ctx.unit.currency;
  const ours = p ? { amount: p.amount_cents, unapplied: p.unapplied_cents, applied: p.amount_cents - p.unapplied_cents } : undefined;
  const differs: string[] = [];
  if (ours && p) {
    if (date !== undefined && date !== p.date) differs.push('Payment date');
    if (amount !== undefined && amount !== ours.amount) differs.push('Payment amount');
    if (applied !== undefined && applied !== ours.applied) differs.push('Applied amount');
    if (unapplied !== undefined && unapplied !== ours.unapplied) differs.push('Unapplied amount');
    if (external !== undefined && external !== (p.external_payment_number ?? '')) differs.push('External payment number');
    if (sourceCurrency !== undefined && sourceCurrency !== p.currency) differs.push('Currency');
    if (differs.length === 0) return;
  }
  // The source system's amounts are in its currency when the file names one.
  const theirs = sourceCurrency ?? currency;
  await putRecon(ctx.tx, RECON_PAYMENT, ctx.batch, row.line, {
    payment_reconciliation_identifier: id,
    customer_identifier: p?.customer_identifier ?? row.values.customer_identifier ?? '',
    discrepancy_message: ours ? `These fields do not match: ${differs.join(', ')}` : 'Payment Not Present in Laneway',
    payment_amount: money(ours?.amount, currency),
    payment_amount_in_source_system: money(amount, theirs),
    applied_amount: money(ours?.applied, currency),
    applied_amount_in_source_system: money(applied, theirs),
    unapplied_amount: money(ours?.unapplied, currency),
    unapplied_amount_in_source_system: money(unapplied, theirs),
    payment_date: p?.date ?? '',
    payment_date_in_source_system: date ?? '',
    // Ours and the file's, side by side as the amounts and the date are: '' where a side has none.
    external_payment_number: p?.external_payment_number ?? '',
    external_payment_number_in_source_system: external ?? '',
    currency: p?.currency ?? '',
    currency_in_source_system: sourceCurrency ?? '',
  });
}

/** Keyed by line (and invoice for a closing, which has none): a step run again after a restart rewrites its own record. */
async function putRecon(tx: Tx, kind: string, batch: number, line: number, data: Record<string, unknown>, invoice = ''): Promise<void> {
  const key = `${batch}/${String(line).padStart(10, '0')}/${invoice}`;
  await putRecord(tx, kind, key, { ...data, batch }, { type: `${kind}.created`, entity: 'reconciliation', key: String(batch), data: { line } }, String(batch));
}
