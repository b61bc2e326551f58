import type { PreparedQuery, RxDocumentData, RxJsonSchema } from 'rxdb';
import { getSortComparator } from 'rxdb';
import { rangeOf, rangeWhere, runQuery, skipAndLimit } from './query';
import type { SqliteTable } from './table';
import { attachAt } from './text-columns';

/**
 * A page of documents with one text column's stored bytes (queryWithBytes), read as one row.
 *
 * Why: an export page is thousands of rows, and reading them one row at a time costs a JS array,
 * a string and a Buffer per row, created by better-sqlite3 one by one; that was most of what a
 * page of 2,500 invoices cost beyond SQLite's own work. Here SQLite concatenates the page: the
 * documents' JSON into one JSON array (one JSON.parse), the texts into one BLOB (one Buffer, each
 * document's bytes a view of it), and their byte lengths, so the JS side makes three values.
 *
 * Used for the reads exports make: an index range that is the whole selector, in index order,
 * with a limit. Anything else goes through runQuery row by row (the same answer, slower).
 */

/** Pages above this many rows are read row by row: a concatenation is built whole in memory. */
const MAX_PACKED_ROWS = 10_000;

/** Marks a NULL text column (the field was not a string) in the list of lengths. */
const NO_TEXT = -1;

export interface BytesPage<RxDocType> {
  documents: RxDocumentData<RxDocType>[];
  /** The text at the path as its stored UTF-8 bytes, or null where the field is not a string. */
  bytes: Array<Buffer | null>;
}

export function runQueryWithBytes<RxDocType>(
  table: SqliteTable<RxDocType>,
  schema: RxJsonSchema<RxDocumentData<RxDocType>>,
  prepared: PreparedQuery<RxDocType>,
  path: string,
): BytesPage<RxDocType> {
  const shape = table.bytesShape(path);
  const plan = prepared.queryPlan;
  const { skip, limit } = skipAndLimit(prepared as PreparedQuery<unknown>);
  const range = rangeOf(table, schema, prepared);
  if (range && plan.selectorSatisfiedByIndex && plan.sortSatisfiedByIndex && limit <= MAX_PACKED_ROWS) {
    const position = table.textColumns.findIndex((c) => c.path === shape.path);
    const statement = table.statement(`packed:${position}:${range.column.column}:${plan.inclusiveStart}:${plan.inclusiveEnd}`, () =>
      packedSql(table, position, range.column.column, range.column.sqlIndex, plan.inclusiveStart, plan.inclusiveEnd),
    );
    statement.raw(true);
    const row = statement.get(range.lower, range.upper, limit, skip) as Array<string | Buffer | null>;
    return inIndexOrder(unpack(table, position, row), getSortComparator(schema, prepared.query));
  }
  const documents = runQuery(table, schema, prepared, shape);
  return { documents, bytes: documents.map((doc) => takeBytes(doc, shape.path)) };
}

function packedSql<RxDocType>(table: SqliteTable<RxDocType>, position: number, column: string, sqlIndex: string, inclusiveStart: boolean, inclusiveEnd: boolean): string {
  const text = table.textColumns[position]!.column;
  // The other text columns come back as JSON arrays of strings (json_quote keeps NULL as null).
  const others = table.textColumns.filter((_, i) => i !== position).map((c) => `, '[' || group_concat(json_quote(${c.column}), ',') || ']'`);
  const selected = ['data', ...table.textColumns.map((c) => c.column)].join(', ');
  // Every aggregate steps over the same row at once, so the i-th document, length and text agree
  // (group_concat skips a NULL text; its length is given as NO_TEXT).
  return (
    `SELECT '[' || group_concat(data, ',') || ']', CAST(group_concat(${text}, '') AS BLOB), ` +
    `group_concat(coalesce(octet_length(${text}), ${NO_TEXT}), ',')${others.join('')} ` +
    `FROM (SELECT ${selected} FROM ${table.quotedName} INDEXED BY "${sqlIndex}" ` +
    `WHERE ${rangeWhere(column, inclusiveStart, inclusiveEnd)} ORDER BY ${column} LIMIT ? OFFSET ?)`
  );
}

function unpack<RxDocType>(table: SqliteTable<RxDocType>, position: number, row: Array<string | Buffer | null>): BytesPage<RxDocType> {
  const [json, packed, lengths, ...others] = row;
  if (json === null || json === undefined) {
    return { documents: [], bytes: [] };
  }
  const documents = JSON.parse(json as string) as RxDocumentData<RxDocType>[];
  const sizes = (lengths as string).split(',');
  const blob = Buffer.isBuffer(packed) ? packed : Buffer.alloc(0);
  if (sizes.length !== documents.length) {
    throw new Error(`laneway sqlite: packed page of ${table.tableName} has ${documents.length} documents and ${sizes.length} texts`);
  }
  const bytes = new Array<Buffer | null>(documents.length);
  let at = 0;
  for (let i = 0; i < sizes.length; i++) {
    const size = Number(sizes[i]);
    if (size === NO_TEXT) {
      bytes[i] = null;
      continue;
    }
    bytes[i] = blob.subarray(at, at + size);
    at += size;
  }
  if (at !== blob.length) {
    throw new Error(`laneway sqlite: packed page of ${table.tableName} holds ${blob.length} text bytes, its lengths add up to ${at}`);
  }
  const otherPaths = table.textPaths.filter((_, i) => i !== position);
  otherPaths.forEach((path, k) => {
    const texts = JSON.parse(others[k] as string) as Array<string | null>;
    documents.forEach((doc, i) => {
      const text = texts[i];
      if (typeof text === 'string') {
        attachAt(doc, path, text);
      }
    });
  });
  return { documents, bytes };
}

/**
 * SQLite documents no order for an aggregate's inputs (an ORDER BY inside each aggregate would
 * sort the page's texts three times over), so the order is checked here, which costs one
 * comparison per document, and restored in the unlikely case SQLite did not keep it.
 */
function inIndexOrder<RxDocType>(page: BytesPage<RxDocType>, compare: (a: RxDocumentData<RxDocType>, b: RxDocumentData<RxDocType>) => number): BytesPage<RxDocType> {
  const { documents, bytes } = page;
  let sorted = true;
  for (let i = 1; i < documents.length && sorted; i++) {
    sorted = compare(documents[i - 1]!, documents[i]!) <= 0;
  }
  if (sorted) {
    return page;
  }
  const order = documents.map((_, i) => i).sort((a, b) => compare(documents[a]!, documents[b]!));
  return { documents: order.map((i) => documents[i]!), bytes: order.map((i) => bytes[i]!) };
}

/** The Buffer the bytes shape left at `path`, replaced by the null the JSON holds. */
function takeBytes(doc: unknown, path: readonly string[]): Buffer | null {
  let parent = doc as Record<string, unknown> | undefined;
  for (let at = 0; at < path.length - 1 && parent; at++) {
    parent = parent[path[at]!] as Record<string, unknown> | undefined;
  }
  const key = path[path.length - 1]!;
  const value = parent?.[key];
  if (!Buffer.isBuffer(value)) {
    return null;
  }
  parent![key] = null;
  return value;
}
