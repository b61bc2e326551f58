/**
 * The CSV file kinds and how a header row tells them apart. Column names are the JSON field names
 * of the import operation of the record (docs/csv-imports.md), so the engine's own field rules
 * validate both. A nested record (an invoice's line item, a customer's contact, a payment's
 * invoice amount) is a column `<array>.<field>` on the rows that follow its parent: a row whose
 * key column is empty or repeats the parent's key continues the parent.
 */
import { carriesNumberOnPurpose, redactPans } from '../security/card-data';
import type { EngineError } from '../errors';
import { CustomerImport } from '../../shared/schemas/receivables-customers';
import { InvoiceImport } from '../../shared/schemas/receivables-invoices';
import { PaymentImport } from '../../shared/schemas/receivables-payments';

import type { FileKind } from '../../shared/import-kinds';

// The header rule is shared with the Imports screen (which says what a chosen file will do).
export { kindOfHeader, type FileKind } from '../../shared/import-kinds';

export interface KindSpec {
  kind: FileKind;
  /** The column whose value starts a new record; '' = every row is a record. */
  key: string;
  /** The JSON array nested rows fill (their columns are `<nested>.<field>`). */
  nested?: string;
  /** Columns that are always accepted; with `open`, any other column is an extended attribute. */
  columns: readonly string[];
  open?: boolean;
  /** Words for the result message: `5487 invoices`. */
  noun: [string, string];
}

export const CARD_COLUMNS = ['customer_identifier', 'name', 'first_name', 'last_name', 'number', 'expiry', 'postal_code', 'create_debit_agreement', 'auto_debit_reference'] as const;

export const INVOICE_RECON_COLUMNS = ['number', 'customer_number', 'customer_name', 'division_code', 'invoice_date', 'balance_in_source_system'] as const;

export const PAYMENT_RECON_COLUMNS = [
  'payment_reconciliation_identifier',
  'customer_identifier',
  'payment_amount_in_source_system',
  'applied_amount_in_source_system',
  'unapplied_amount_in_source_system',
  'payment_date_in_source_system',
  'external_payment_number_in_source_system',
  'currency_in_source_system',
] as const;

export const DIVISION_COLUMNS = ['code', 'name', 'parent_code', 'external_id', 'deleted'] as const;

export const KINDS: Record<FileKind, KindSpec> = {
  credit_cards: { kind: 'credit_cards', key: '', columns: CARD_COLUMNS, noun: ['credit card', 'credit cards'] },
  invoice_recon: { kind: 'invoice_recon', key: '', columns: INVOICE_RECON_COLUMNS, noun: ['invoice reconciled', 'invoices reconciled'] },
  payment_recon: { kind: 'payment_recon', key: '', columns: PAYMENT_RECON_COLUMNS, noun: ['payment reconciled', 'payments reconciled'] },
  payments: { kind: 'payments', key: 'identifier', nested: 'payment_amounts_attributes', columns: [], open: true, noun: ['payment', 'payments'] },
  invoices: { kind: 'invoices', key: 'number', nested: 'line_item_attributes', columns: [], open: true, noun: ['invoice', 'invoices'] },
  customers: { kind: 'customers', key: 'identifier', nested: 'contacts', columns: [], open: true, noun: ['customer', 'customers'] },
  divisions: { kind: 'divisions', key: 'code', columns: DIVISION_COLUMNS, noun: ['division', 'divisions'] },
};

/**
 * The cells that name a refused record in the batch's errors, as the reference's errors carry the
 * record itself: an ERP matches an error to its invoice or customer by these. Never a card's number
 * or expiry; a division's `code` is left out, since `code` is the error's own there.
 */
export const NAMING_COLUMNS: Record<FileKind, readonly string[]> = {
  customers: ['identifier'],
  invoices: ['number', 'customer_identifier'],
  payments: ['identifier', 'customer_identifier', 'invoice_number'],
  divisions: [],
  credit_cards: ['customer_identifier'],
  invoice_recon: ['number'],
  payment_recon: ['payment_reconciliation_identifier'],
};

/** A record's naming cells (NAMING_COLUMNS) from its first row, trimmed; undefined when it has none. */
export function namingCells(kind: FileKind, group: Group): Record<string, string> | undefined {
  const first = group.rows[0]?.values ?? {};
  const cells = NAMING_COLUMNS[kind].flatMap((c) => (first[c]?.trim() ? [[c, first[c].trim()] as const] : []));
  return cells.length ? Object.fromEntries(cells) : undefined;
}

/** Columns of a closed kind that it does not know (the header is refused naming them). */
export function unknownColumns(kind: FileKind, header: readonly string[]): string[] {
  const spec = KINDS[kind];
  if (spec.open) return header.filter((c) => c.trim() === '');
  return header.filter((c) => !spec.columns.includes(c));
}

const fieldsOf = (schema: unknown) => Object.keys((schema as { properties?: Record<string, unknown> }).properties ?? {});
/** The fields of an open kind's import operation: its other columns are extended attributes. */
const OPEN_FIELDS: Partial<Record<FileKind, readonly string[]>> = {
  customers: fieldsOf(CustomerImport),
  invoices: fieldsOf(InvoiceImport),
  payments: [...fieldsOf(PaymentImport), 'payment_total'],
};

/**
 * Columns of an open kind that name one of its fields in other letters (`Due_Date`): kept as they
 * are, they would be extended attributes while the field took its default, with no error.
 */
export function miscasedColumns(kind: FileKind, header: readonly string[]): Array<{ column: string; field: string }> {
  const spec = KINDS[kind];
  const fields = OPEN_FIELDS[kind] ?? [];
  const out: Array<{ column: string; field: string }> = [];
  for (const column of header) {
    const lower = column.toLowerCase();
    const field = fields.find((f) => f !== column && f.toLowerCase() === lower);
    if (field) out.push({ column, field });
    else if (spec.nested && lower.startsWith(`${spec.nested}.`) && !column.startsWith(`${spec.nested}.`)) out.push({ column, field: `${spec.nested}.${column.slice(spec.nested.length + 1)}` });
  }
  return out;
}

export interface Row {
  /** The line of the file the row starts on (the header is line 1). */
  line: number;
  values: Record<string, string>;
}

/** One record of a file: its first row and the rows that continue it. */
export interface Group {
  rows: Row[];
  /** Refused before any rule reads it (a line csv-parse could not read, a stray column): the error line it gets. */
  refusal?: EngineError;
}

/** The row's cells by column, blanks left out ('' is "not given" for every import field). */
export function rowValues(header: readonly string[], cells: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  header.forEach((name, i) => {
    const v = cells[i];
    if (v !== undefined && v !== '') out[name] = v;
  });
  return out;
}

/**
 * A file's cells are free text like a request body's strings (maskCardNumbersInFreeText): a card
 * number in a name, a note, an identifier or a reference is masked before any rule sees it (an
 * identifier then refuses the mask), so it rests nowhere in clear, echo lines included. Only the
 * card file's `number` column and the columns named for a number (account_number, routing_number...)
 * keep their digits. Changes `values` in place and returns it.
 */
export function maskFreeTextCells(kind: FileKind, values: Record<string, string>): Record<string, string> {
  for (const [name, v] of Object.entries(values)) {
    if (kind === 'credit_cards' && name === 'number') continue;
    if (carriesNumberOnPurpose(name.split('.').pop() ?? name)) continue;
    values[name] = redactPans(v);
  }
  return values;
}

/**
 * A column other than the nested ones to which a row continuing `group` gives a value of its own
 * (not the record's): such a row is a record whose key was left out, never part of the one
 * above (its amount and customer would land on another invoice). Undefined when there is none.
 */
export function strayParentColumn(spec: KindSpec, group: Group, row: Row): string | undefined {
  const prefix = `${spec.nested ?? ''}.`;
  const first = group.rows[0]!.values;
  for (const [column, value] of Object.entries(row.values)) {
    if (column === spec.key || (spec.nested && column.startsWith(prefix))) continue;
    if (first[column] !== value) return column;
  }
  return undefined;
}

/** True when `row` continues `group` (same key, or key left blank). */
export function continues(spec: KindSpec, group: Group | undefined, row: Row): boolean {
  if (!group || !spec.key) return false;
  const key = row.values[spec.key];
  return key === undefined || key === group.rows[0]?.values[spec.key];
}

/**
 * The JSON import input of a grouped record: the first row's own columns, and the nested array
 * made of every row's `<nested>.<field>` columns (rows with none add nothing).
 */
export function groupInput(spec: KindSpec, group: Group): { input: Record<string, unknown>; nestedLines: number[] } {
  const prefix = spec.nested ? `${spec.nested}.` : undefined;
  const input: Record<string, unknown> = {};
  const nested: Array<Record<string, string>> = [];
  const nestedLines: number[] = [];
  group.rows.forEach((row, i) => {
    const item: Record<string, string> = {};
    for (const [k, v] of Object.entries(row.values)) {
      if (prefix && k.startsWith(prefix)) item[k.slice(prefix.length)] = v;
      else if (i === 0) input[k] = v;
    }
    if (Object.keys(item).length) {
      nested.push(item);
      nestedLines.push(row.line);
    }
  });
  if (spec.nested && nested.length) input[spec.nested] = nested;
  return { input, nestedLines };
}

/**
 * Where an engine error's field is in the file: `line_item_attributes.2.amount` is the column
 * `line_item_attributes.amount` on the line of the third line item.
 */
export function locate(spec: KindSpec, group: Group, nestedLines: number[], field: string): { line: number; field: string } {
  const first = group.rows[0]?.line ?? 0;
  const m = spec.nested ? new RegExp(`^(${spec.nested})\\.(\\d+)\\.?(.*)$`).exec(field) : null;
  if (m) return { line: nestedLines[Number(m[2])] ?? first, field: m[3] ? `${m[1]}.${m[3]}` : (m[1] ?? field) };
  return { line: first, field };
}
