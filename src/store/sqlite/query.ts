import type {
  PreparedQuery,
  RxDocumentData,
  RxJsonSchema,
  RxStorageCountResult,
  RxStorageDefaultCheckpoint,
} from 'rxdb';
import {
  getQueryMatcher,
  getSortComparator,
  getStartIndexStringFromLowerBound,
  getStartIndexStringFromUpperBound,
} from 'rxdb';
import { encodeKey } from './key-encoding';
import type { IndexColumn, RowShape, SqliteTable } from './table';

export type Range = { lower: Buffer; upper: Buffer; column: IndexColumn<unknown> };

type Bound = string | number | boolean | null | undefined;

export function rangeOf<RxDocType>(
  table: SqliteTable<RxDocType>,
  schema: RxJsonSchema<RxDocumentData<RxDocType>>,
  prepared: PreparedQuery<RxDocType>,
): Range | undefined {
  const plan = prepared.queryPlan;
  const column = table.columnFor(plan.index);
  if (!column) {
    return undefined;
  }
  return {
    column: column as IndexColumn<unknown>,
    lower: encodeKey(getStartIndexStringFromLowerBound(schema, plan.index, plan.startKeys as Bound[])),
    upper: encodeKey(getStartIndexStringFromUpperBound(schema, plan.index, plan.endKeys as Bound[])),
  };
}

export function rangeWhere(column: string, inclusiveStart: boolean, inclusiveEnd: boolean): string {
  return `${column} ${inclusiveStart ? '>=' : '>'} ? AND ${column} ${inclusiveEnd ? '<=' : '<'} ?`;
}

function rangeSelect<RxDocType>(
  table: SqliteTable<RxDocType>,
  range: Range,
  inclusiveStart: boolean,
  inclusiveEnd: boolean,
  paged: boolean,
  shape: RowShape<RxDocType> = table.shape,
) {
  const { column, sqlIndex } = range.column;
  const key = `range:${column}:${inclusiveStart}:${inclusiveEnd}:${paged}`;
  return table.shapeStatement(
    shape,
    key,
    (columns) =>
      `SELECT ${columns} FROM ${table.quotedName} INDEXED BY "${sqlIndex}" ` +
      `WHERE ${rangeWhere(column, inclusiveStart, inclusiveEnd)} ORDER BY ${column}` +
      (paged ? ' LIMIT ? OFFSET ?' : ''),
  );
}

function scanSelect<RxDocType>(table: SqliteTable<RxDocType>, shape: RowShape<RxDocType> = table.shape) {
  return table.shapeStatement(shape, 'scan', (columns) => `SELECT ${columns} FROM ${table.quotedName} ORDER BY id`);
}

function decodeAll<RxDocType>(shape: RowShape<RxDocType>, rows: unknown[]): RxDocumentData<RxDocType>[] {
  const docs = new Array<RxDocumentData<RxDocType>>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    docs[i] = shape.decode(rows[i]);
  }
  return docs;
}

export function skipAndLimit(prepared: PreparedQuery<unknown>): { skip: number; limit: number } {
  const query = prepared.query;
  // An explicit `limit: 0` is a limit (RxDB's memory storage honours it too).
  return {
    skip: query.skip ? query.skip : 0,
    limit: typeof query.limit === 'number' ? query.limit : Infinity,
  };
}

/**
 * Runs a prepared RxDB query the way RxDB's own storages do, with the query
 * plan's index range done by SQLite: documents come back in index order,
 * get matched by RxDB's matcher unless the index range alone satisfies the
 * selector, get re-sorted by RxDB's comparator unless the index order is the
 * requested order, and skip/limit go into SQL when nothing else filters. `shape` decides what
 * the documents look like (table.bytesShape: a text column's bytes in its field's place).
 */
export function runQuery<RxDocType>(
  table: SqliteTable<RxDocType>,
  schema: RxJsonSchema<RxDocumentData<RxDocType>>,
  prepared: PreparedQuery<RxDocType>,
  shape: RowShape<RxDocType> = table.shape,
): RxDocumentData<RxDocType>[] {
  const plan = prepared.queryPlan;
  const { skip, limit } = skipAndLimit(prepared as PreparedQuery<unknown>);
  const range = rangeOf(table, schema, prepared);
  if (!range) {
    return fullScan(table, schema, prepared, skip, limit, shape);
  }
  const mustSort = !plan.sortSatisfiedByIndex;

  if (plan.selectorSatisfiedByIndex) {
    if (!mustSort) {
      const statement = rangeSelect(table, range, plan.inclusiveStart, plan.inclusiveEnd, true, shape);
      const sqlLimit = limit === Infinity ? -1 : limit;
      return decodeAll(shape, statement.all(range.lower, range.upper, sqlLimit, skip));
    }
    const statement = rangeSelect(table, range, plan.inclusiveStart, plan.inclusiveEnd, false, shape);
    const docs = decodeAll(shape, statement.all(range.lower, range.upper));
    docs.sort(getSortComparator(schema, prepared.query));
    return docs.slice(skip, skip + limit);
  }

  const matches = getQueryMatcher(schema, prepared.query);
  const wanted = skip + limit;
  const docs: RxDocumentData<RxDocType>[] = [];
  const statement = rangeSelect(table, range, plan.inclusiveStart, plan.inclusiveEnd, false, shape);
  for (const row of statement.iterate(range.lower, range.upper)) {
    const doc = shape.whole(row);
    if (matches(doc)) {
      docs.push(shape === table.shape ? doc : shape.decode(row));
      if (!mustSort && docs.length >= wanted) {
        break;
      }
    }
  }
  if (mustSort) {
    docs.sort(getSortComparator(schema, prepared.query));
  }
  return docs.slice(skip, skip + limit);
}

/** A query naming an index the table does not have (only possible via `query.index`). */
function fullScan<RxDocType>(
  table: SqliteTable<RxDocType>,
  schema: RxJsonSchema<RxDocumentData<RxDocType>>,
  prepared: PreparedQuery<RxDocType>,
  skip: number,
  limit: number,
  shape: RowShape<RxDocType>,
): RxDocumentData<RxDocType>[] {
  const matches = getQueryMatcher(schema, prepared.query);
  const docs: RxDocumentData<RxDocType>[] = [];
  for (const row of scanSelect(table, shape).iterate()) {
    const doc = shape.whole(row);
    if (matches(doc)) {
      docs.push(shape === table.shape ? doc : shape.decode(row));
    }
  }
  docs.sort(getSortComparator(schema, prepared.query));
  return docs.slice(skip, skip + limit);
}

/**
 * Same number as `runQuery(...).length` (skip and limit included, as the
 * RxStorage interface asks). SQL COUNT over the index range when the range
 * is the whole selector, which is what RxDB calls a 'fast' count.
 */
export function runCount<RxDocType>(
  table: SqliteTable<RxDocType>,
  schema: RxJsonSchema<RxDocumentData<RxDocType>>,
  prepared: PreparedQuery<RxDocType>,
): RxStorageCountResult {
  const plan = prepared.queryPlan;
  const { skip, limit } = skipAndLimit(prepared as PreparedQuery<unknown>);
  const range = rangeOf(table, schema, prepared);
  const clamp = (total: number) => Math.max(0, Math.min(total - skip, limit));

  if (range && plan.selectorSatisfiedByIndex) {
    const { column, sqlIndex } = range.column;
    const statement = table.statement(
      `count:${column}:${plan.inclusiveStart}:${plan.inclusiveEnd}`,
      () =>
        `SELECT COUNT(*) FROM ${table.quotedName} INDEXED BY "${sqlIndex}" ` +
        `WHERE ${rangeWhere(column, plan.inclusiveStart, plan.inclusiveEnd)}`,
      true,
    );
    return { count: clamp(statement.get(range.lower, range.upper) as number), mode: 'fast' };
  }

  const matches = getQueryMatcher(schema, prepared.query);
  let total = 0;
  const rows = range
    ? rangeSelect(table, range, plan.inclusiveStart, plan.inclusiveEnd, false).iterate(range.lower, range.upper)
    : scanSelect(table).iterate();
  for (const row of rows) {
    if (matches(table.shape.decode(row))) {
      total++;
    }
  }
  // Every document in the range had to be parsed and matched.
  return { count: clamp(total), mode: 'slow' };
}

/**
 * The change feed, ordered by the `[_meta.lwt, primary]` index string. The
 * checkpoint is turned into that same index string, so resuming compares in
 * exactly the order the pages were produced in and can neither repeat nor
 * skip a document.
 */
export function runChangedSince<RxDocType>(
  table: SqliteTable<RxDocType>,
  limit: number,
  checkpoint: RxStorageDefaultCheckpoint | undefined,
): { documents: RxDocumentData<RxDocType>[]; checkpoint: RxStorageDefaultCheckpoint } {
  const { column, sqlIndex, toIndexString } = table.lwtColumn;
  const sqlLimit = Number.isFinite(limit) ? limit : -1;
  let rows: unknown[];
  if (checkpoint) {
    const probe = { [table.primaryPath]: checkpoint.id, _meta: { lwt: checkpoint.lwt } };
    const after = encodeKey(toIndexString(probe as unknown as RxDocumentData<RxDocType>));
    rows = table
      .shapeStatement(
        table.shape,
        'changes-after',
        (columns) =>
          `SELECT ${columns} FROM ${table.quotedName} INDEXED BY "${sqlIndex}" ` +
          `WHERE ${column} > ? ORDER BY ${column} LIMIT ?`,
      )
      .all(after, sqlLimit);
  } else {
    rows = table
      .shapeStatement(
        table.shape,
        'changes-first',
        (columns) => `SELECT ${columns} FROM ${table.quotedName} INDEXED BY "${sqlIndex}" ORDER BY ${column} LIMIT ?`,
      )
      .all(sqlLimit);
  }
  const documents = decodeAll(table.shape, rows);
  const last = documents[documents.length - 1];
  return {
    documents,
    checkpoint: last
      ? { id: table.idOf(last), lwt: last._meta.lwt }
      : (checkpoint ?? { id: '', lwt: 0 }),
  };
}
