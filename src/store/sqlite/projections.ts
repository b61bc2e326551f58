import type Database from 'better-sqlite3';
import type { TextPath } from './text-columns';

/**
 * Projection columns: a list of fields that a collection reads often without the rest of the
 * document (an export page: each record's watermark and the few fields that decide its head),
 * kept by every write in its own TEXT column as the JSON array of their values.
 *
 * Why: a projected page read (packed-read.ts) otherwise has SQLite parse every row's document
 * JSON to extract them (json_extract), which was half the SQL time of a 2,500-invoice page. The
 * column is derived data, like the index columns: written with the document, rebuilt from the
 * JSON when a collection is opened with other projections.
 */

export type Projection = {
  /** Dot paths, as given. */
  readonly fields: readonly string[];
  readonly paths: readonly (readonly string[])[];
  readonly column: string;
};

const FIELD = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** A field a projection may name: a dot path of the document, not RxDB's `_` fields, not inside a text column. */
export function checkField(field: string, textPaths: readonly TextPath[]): void {
  if (!FIELD.test(field)) {
    throw new Error(`laneway sqlite: ${JSON.stringify(field)} is not a field path`);
  }
  const text = textPaths.map((p) => p.join('.')).find((p) => field === p || field.startsWith(`${p}.`) || p.startsWith(`${field}.`));
  if (text) {
    throw new Error(`laneway sqlite: ${field} overlaps the text column ${text}, which a projection reads as bytes only`);
  }
}

export function parseProjections(projections: readonly (readonly string[])[] | undefined, textPaths: readonly TextPath[]): Projection[] {
  return (projections ?? []).map((fields, position) => {
    if (fields.length === 0) {
      throw new Error('laneway sqlite: a projection needs at least one field');
    }
    fields.forEach((f) => checkField(f, textPaths));
    return { fields: [...fields], paths: fields.map((f) => f.split('.')), column: `p${position}` };
  });
}

/** The value at a dot path, null where the document has none (what a projection holds there). */
export function valueAt(doc: unknown, path: readonly string[]): unknown {
  let value = doc;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return null;
    }
    value = (value as Record<string, unknown>)[key];
  }
  return value === undefined ? null : value;
}

/** Each document's values at `fields` (dot paths): what a projected read answers, from documents. */
export function projectValues(documents: readonly unknown[], fields: readonly string[]): unknown[][] {
  const paths = fields.map((f) => f.split('.'));
  return documents.map((doc) => paths.map((p) => valueAt(doc, p)));
}

/** What a write stores in the projection's column. */
export function projectionJson(projection: Projection, doc: unknown): string {
  return JSON.stringify(projection.paths.map((p) => valueAt(doc, p)));
}

/**
 * The same JSON array computed by SQLite from the document JSON: used to fill the column of
 * existing rows, and by projected reads of a fields list no column holds. json_extract with two
 * or more paths answers a JSON array (true stays true, an absent field is null); with one path it
 * answers an SQL value, so that one is `->` (JSON text, NULL when absent) wrapped in an array.
 */
export function projectionSql(fields: readonly string[]): string {
  const paths = fields.map((f) => `'$.${f.split('.').map((k) => `"${k}"`).join('.')}'`);
  return paths.length === 1 ? `json_array(data -> ${paths[0]})` : `json_extract(data, ${paths.join(', ')})`;
}

/** Rowids per UPDATE when projection columns are filled (under a second of work on this machine). */
const RELAYOUT_ROWIDS = 20_000;

/**
 * Drops the projection columns a table was stored with and adds and fills the ones it is opened
 * with, from the document JSON, inside the caller's transaction (a crash leaves the old layout).
 * `progress` is told how many rows each step filled.
 */
export function relayoutProjections(
  db: Database.Database,
  quotedTable: string,
  oldCount: number,
  projections: readonly Projection[],
  progress: (rows: number) => void = () => undefined,
): void {
  for (let position = 0; position < oldCount; position++) {
    db.exec(`ALTER TABLE ${quotedTable} DROP COLUMN p${position}`);
  }
  for (const p of projections) {
    db.exec(`ALTER TABLE ${quotedTable} ADD COLUMN ${p.column} TEXT`);
  }
  if (projections.length === 0) return;
  // In rowid ranges, so that progress can be told between them (one UPDATE over a million
  // invoices was 9-40 s of silence). Rowids are nearly dense: a range holds about that many rows.
  const update = db.prepare(`UPDATE ${quotedTable} SET ${projections.map((p) => `${p.column} = ${projectionSql(p.fields)}`).join(', ')} WHERE rowid >= ? AND rowid < ?`);
  const { lo, hi } = db.prepare(`SELECT min(rowid) AS lo, max(rowid) AS hi FROM ${quotedTable}`).get() as { lo: number | null; hi: number | null };
  if (lo === null || hi === null) return;
  for (let from = lo; from <= hi; from += RELAYOUT_ROWIDS) {
    progress(update.run(from, from + RELAYOUT_ROWIDS).changes);
  }
}
