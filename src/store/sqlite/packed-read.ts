import type { PreparedQuery, RxDocumentData, RxJsonSchema } from 'rxdb';
import { rangeOf, rangeWhere, runQuery, skipAndLimit } from './query';
import type { SqliteTable } from './table';
import { checkField, projectionSql, projectValues } from './projections';

/**
 * Projected page reads (queryProjected): for each document a query matches, in order, the values
 * of a few fields and the stored bytes of one text column. What an export page needs from a
 * record whose JSON is pre-rendered: the bytes to send, and the few fields that decide whether to
 * send it and what to put in front of it.
 *
 * Why: an export page is thousands of rows. Read row by row, each costs better-sqlite3 a JS array,
 * a string and a Buffer, then a JSON.parse of the whole document (about a third of the page's
 * time) to use four of its fields. Here, for the reads exports make (an index range that is the
 * whole selector, in index order, with a limit), SQLite builds the page as one row: the fields of
 * every document as one JSON array of arrays (from the projection column that holds them, see
 * projections.ts, or else json_extract), the texts as one BLOB (each document's bytes are a view
 * of it) and their byte lengths. Anything else goes through runQuery row by row and projects the
 * documents it gets: the same answer, slower.
 */

/** Pages above this many rows are read row by row: a concatenation is built whole in memory. */
const MAX_PACKED_ROWS = 10_000;

/** Marks a NULL text column (the field was not a string) in the list of lengths. */
const NO_TEXT = -1;

export interface ProjectedPage {
  /** Per document, the value at each field (null where the document has none). */
  values: unknown[][];
  /** Per document, the text column's stored UTF-8 bytes, or null where the field is not a string. */
  bytes: Array<Buffer | null>;
}

export function runQueryProjected<RxDocType>(
  table: SqliteTable<RxDocType>,
  schema: RxJsonSchema<RxDocumentData<RxDocType>>,
  prepared: PreparedQuery<RxDocType>,
  fields: readonly string[],
  textPath: string,
): ProjectedPage {
  const shape = table.bytesShape(textPath);
  fields.forEach((f) => checkField(f, table.textPaths));
  const plan = prepared.queryPlan;
  const { skip, limit } = skipAndLimit(prepared as PreparedQuery<unknown>);
  const range = rangeOf(table, schema, prepared);
  if (range && plan.selectorSatisfiedByIndex && plan.sortSatisfiedByIndex && limit <= MAX_PACKED_ROWS && fields.length > 0) {
    const position = table.textColumns.findIndex((c) => c.path === shape.path);
    const key = `packed:${position}:${fields.join(',')}:${range.column.column}:${plan.inclusiveStart}:${plan.inclusiveEnd}`;
    const statement = table.statement(key, () => packedSql(table, position, fields, range.column.column, range.column.sqlIndex, plan.inclusiveStart, plan.inclusiveEnd));
    statement.raw(true);
    const row = statement.get(range.lower, range.upper, limit, skip) as [string | null, Buffer | null, string | null];
    const page = unpack(table, row);
    return inOrder(page, fields, prepared.query.sort ?? []);
  }
  const documents = runQuery(table, schema, prepared, shape);
  return {
    values: projectValues(documents, fields),
    bytes: documents.map((doc) => takeBytes(doc, shape.path)),
  };
}

function packedSql<RxDocType>(
  table: SqliteTable<RxDocType>,
  position: number,
  fields: readonly string[],
  column: string,
  sqlIndex: string,
  inclusiveStart: boolean,
  inclusiveEnd: boolean,
): string {
  const text = table.textColumns[position]!.column;
  // A projection column holding exactly these fields is taken as it is (one written before the
  // column was filled would be NULL: then the fields are extracted).
  const kept = table.projections.find((p) => p.fields.length === fields.length && p.fields.every((f, i) => f === fields[i]))?.column;
  const projection = kept ? `coalesce(${kept}, ${projectionSql(fields)})` : projectionSql(fields);
  // Every aggregate steps over the same row at once, so the i-th values, length and text agree
  // (group_concat skips a NULL text; its length is given as NO_TEXT). The subquery hands up only
  // what the aggregates take: the co-routine copies each column it yields, and the document JSON
  // is read (inside coalesce) only for a row whose projection column is not filled.
  return (
    `SELECT '[' || group_concat(v, ',') || ']', CAST(group_concat(t, '') AS BLOB), ` +
    `group_concat(coalesce(octet_length(t), ${NO_TEXT}), ',') ` +
    `FROM (SELECT ${projection} AS v, ${text} AS t FROM ${table.quotedName} INDEXED BY "${sqlIndex}" ` +
    `WHERE ${rangeWhere(column, inclusiveStart, inclusiveEnd)} ORDER BY ${column} LIMIT ? OFFSET ?)`
  );
}

function unpack<RxDocType>(table: SqliteTable<RxDocType>, [json, packed, lengths]: [string | null, Buffer | null, string | null]): ProjectedPage {
  if (json === null) {
    return { values: [], bytes: [] };
  }
  const values = JSON.parse(json) as unknown[][];
  const sizes = (lengths ?? '').split(',');
  const blob = packed ?? Buffer.alloc(0);
  if (sizes.length !== values.length) {
    throw new Error(`laneway sqlite: packed page of ${table.tableName} has ${values.length} documents and ${sizes.length} texts`);
  }
  const bytes = new Array<Buffer | null>(values.length);
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
  return { values, bytes };
}

/**
 * SQLite documents no order for an aggregate's inputs (an ORDER BY inside each aggregate would
 * sort the page's texts again), so the order is checked here on the projected values, one
 * comparison per document, and restored if SQLite did not keep it. The check covers the query's
 * sort fields up to the first one that is not projected (exports project the watermark they sort
 * by); beyond that the subquery's index order is trusted, which is what SQLite delivers.
 */
export function inOrder(page: ProjectedPage, fields: readonly string[], sort: ReadonlyArray<Record<string, 'asc' | 'desc'>>): ProjectedPage {
  const keys: Array<{ at: number; sign: number }> = [];
  for (const part of sort) {
    const [field, direction] = Object.entries(part)[0]!;
    const at = fields.indexOf(field);
    if (at === -1) break;
    keys.push({ at, sign: direction === 'desc' ? -1 : 1 });
  }
  const compare = (a: unknown[], b: unknown[]) => {
    for (const { at, sign } of keys) {
      const c = comparePrimitive(a[at], b[at]);
      if (c !== 0) return c * sign;
    }
    return 0;
  };
  const { values } = page;
  let sorted = true;
  for (let i = 1; i < values.length && sorted; i++) {
    sorted = compare(values[i - 1]!, values[i]!) <= 0;
  }
  if (sorted) {
    return page;
  }
  const order = values.map((_, i) => i).sort((a, b) => compare(values[a]!, values[b]!));
  return { values: order.map((i) => values[i]!), bytes: order.map((i) => page.bytes[i]!) };
}

/** Index order for the values an index holds (null first, then numbers, then strings by code unit). */
function comparePrimitive(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : 1;
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
