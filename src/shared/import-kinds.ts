/**
 * How a CSV file's header row names its kind (docs/csv-imports.md, "The header row tells the
 * kind"), in one place: the engine reads every upload by it, and the back office's Imports screen
 * says by it, before a file is sent, what importing the chosen file will do. Neither side splits a
 * line itself: each hands in csv-parse's first record of the file (the engine csv-parse's Node
 * build, the screen its browser build), read with the options below.
 */

export type FileKind = 'customers' | 'invoices' | 'payments' | 'divisions' | 'credit_cards' | 'invoice_recon' | 'payment_recon';

/** A file's field separator other than the comma. */
export type Delimiter = ';' | '\t';
export const OTHER_DELIMITERS: readonly Delimiter[] = [';', '\t'];

const PAYMENT_MARKERS = ['payment_total', 'amount_cents', 'invoice_number', 'payment_amounts_attributes.invoice_number', 'external_payment_number', 'payor_name'];

/** The kind a header names, or undefined (an unknown header: the file is refused). */
export function kindOfHeader(header: readonly string[]): FileKind | undefined {
  const has = (c: string) => header.includes(c);
  if (has('balance_in_source_system')) return 'invoice_recon';
  if (has('payment_reconciliation_identifier')) return 'payment_recon';
  if (has('customer_identifier') && has('number') && has('expiry')) return 'credit_cards';
  if (has('number') && has('customer_identifier')) return 'invoices';
  if (has('identifier') && PAYMENT_MARKERS.some(has)) return 'payments';
  if (has('identifier')) return 'customers';
  if (has('code') && has('name')) return 'divisions';
  return undefined;
}

/** csv-parse's options for the first records of a file's start (`to` of them), by either side. */
export const headParseOptions = (delimiter: ',' | Delimiter, to: number) => ({ bom: true, to, relax_column_count: true, skip_empty_lines: true, delimiter });

/** Why a header row is refused whatever kind it names: the engine answers it (412) and the Imports screen says it before sending. */
export interface HeaderRefusal {
  code: 'duplicate_header';
  message: string;
}

export interface HeaderRead {
  /** The header row's names, trimmed. */
  header: string[];
  kind: FileKind | undefined;
  /** Set when the file is read by `;` or a tab rather than commas. */
  delimiter?: Delimiter;
  /** Set when the header cannot be imported by, whatever its kind (a column given twice). */
  refusal?: HeaderRefusal;
}

/**
 * A column the header row gives more than once, with where (1-based), names compared as the kind is
 * told (trimmed, in their own letters: `Amount` beside `amount` is refused by the kind's own
 * rule, as a field written in other letters). A line would have two values for one field and one
 * of them would silently win. Blank names are left to the kind's rule (a column without a name).
 */
export function duplicateColumns(header: readonly string[]): Array<{ column: string; positions: number[] }> {
  const at = new Map<string, number[]>();
  header.forEach((name, i) => {
    if (name !== '') at.set(name, [...(at.get(name) ?? []), i + 1]);
  });
  return [...at].filter(([, positions]) => positions.length > 1).map(([column, positions]) => ({ column, positions }));
}

function headerRefusal(header: readonly string[]): HeaderRefusal | undefined {
  const twice = duplicateColumns(header);
  if (!twice.length) return undefined;
  const named = twice.map((d) => `${JSON.stringify(d.column)} (columns ${d.positions.slice(0, -1).join(', ')} and ${d.positions.at(-1)})`).join(', ');
  return {
    code: 'duplicate_header',
    message: `The header row gives ${named} more than once: a line would have two values for one field, and only one would be imported. Give each column once and upload the file again`,
  };
}

/**
 * The header row of a file and the kind it names, from its first record read with a separator, and
 * why it is refused whatever its kind (`refusal`: a column given twice). A
 * spreadsheet in a locale whose decimal mark is a comma saves "CSV" with semicolons (or tabs): a
 * header row that is one column by commas, and names a kind by one of those, is read by it.
 */
export function readHeader(firstRecord: (delimiter: ',' | Delimiter) => readonly string[]): HeaderRead {
  const cells = (delimiter: ',' | Delimiter) => firstRecord(delimiter).map((c) => c.trim());
  const byComma = cells(',');
  const other = byComma.length === 1 && !kindOfHeader(byComma) ? OTHER_DELIMITERS.find((d) => byComma[0]!.includes(d)) : undefined;
  if (other) {
    const byOther = cells(other);
    const kind = kindOfHeader(byOther);
    if (kind) return withRefusal({ header: byOther, kind, delimiter: other });
  }
  return withRefusal({ header: byComma, kind: kindOfHeader(byComma) });
}

function withRefusal(read: HeaderRead): HeaderRead {
  const refusal = headerRefusal(read.header);
  return refusal ? { ...read, refusal } : read;
}

/** What importing a file of each kind does, as the Imports screen says it before the file is sent ("Invoices: ..."). */
export const KIND_EFFECT: Record<FileKind, string> = {
  customers: 'each line is a customer; an identifier already here is updated.',
  invoices: 'each line is an invoice (its line items on the lines that follow); a number already here is updated.',
  payments: 'each payment is applied to the invoices it names.',
  divisions: 'each line is a division.',
  credit_cards: "each card is vaulted into its customer's wallet.",
  invoice_recon:
    'a complete list of open invoices: open invoices it does not list will be closed, and a closed invoice cannot be imported again. If it leaves out most of them, none are closed until you confirm.',
  payment_recon: 'each payment is compared with the one here and the differences are listed; nothing is changed.',
};
