import type Database from 'better-sqlite3';
import type { RxDocumentData, RxJsonSchema } from 'rxdb';
import { getIndexableStringMonad, getPrimaryFieldOfPrimaryKey } from 'rxdb';
import type { SqliteConnection } from './connection';
import { encodeKey } from './key-encoding';
import { parseProjections, projectionJson, type Projection } from './projections';
import { attachAt, attachTexts, detachTexts, type TextPath } from './text-columns';

export type IndexColumn<RxDocType> = {
  /** RxDB index fields, e.g. `['_deleted', 'amount', 'id']`. */
  readonly fields: readonly string[];
  readonly column: string;
  readonly sqlIndex: string;
  readonly toIndexString: (doc: RxDocumentData<RxDocType>) => string;
};

type Statement = Database.Statement<unknown[], unknown>;

/** Anything that can be told its table went away (a storage instance). */
export type TableUser = { readonly multiInstance: boolean };


export type TextColumn = { readonly path: TextPath; readonly column: string };

/** A stored row as a write's conflict check reads it: revision, tombstone flag, index keys. */
export type StoredRevision = { rev: string; deleted: boolean; keys: Buffer[] };

/** Which columns a read selects and how its rows become documents. */
export interface RowShape<RxDocType> {
  /** For a bytes shape: the text column's path, whose field holds the bytes (a Buffer). */
  readonly path: TextPath;
  /** Part of the statement cache key. */
  readonly name: string;
  /** The SELECT list. */
  readonly columns: string;
  /** The document as this shape hands it out. */
  decode(row: unknown): RxDocumentData<RxDocType>;
  /** The whole document, as stored (what selectors are matched against). */
  whole(row: unknown): RxDocumentData<RxDocType>;
}

function wholeShape<RxDocType>(table: { readonly textColumns: readonly TextColumn[]; readonly textPaths: readonly TextPath[] }): RowShape<RxDocType> {
  if (table.textColumns.length === 0) {
    const decode = (row: unknown) => JSON.parse(row as string) as RxDocumentData<RxDocType>;
    return { name: 'doc', path: [], columns: 'data', decode, whole: decode };
  }
  const paths = table.textPaths;
  const decode = (row: unknown) => {
    const values = row as unknown[];
    const doc = JSON.parse(values[0] as string) as RxDocumentData<RxDocType>;
    attachTexts(doc, paths, values, 1);
    return doc;
  };
  return { name: 'doc', path: [], columns: ['data', ...table.textColumns.map((c) => c.column)].join(', '), decode, whole: decode };
}

/** Text column `position` read as a BLOB: SQLite hands its bytes over as they are stored, no string is made. */
function bytesShape<RxDocType>(table: { readonly textColumns: readonly TextColumn[]; readonly textPaths: readonly TextPath[] }, position: number): RowShape<RxDocType> {
  const paths = table.textPaths;
  const columns = ['data', ...table.textColumns.map((c, i) => (i === position ? `CAST(${c.column} AS BLOB)` : c.column))].join(', ');
  const parse = (row: unknown, asText: boolean) => {
    const values = row as unknown[];
    const doc = JSON.parse(values[0] as string) as RxDocumentData<RxDocType>;
    attachTexts(doc, paths, values, 1); // every text column but this one, which is a Buffer here
    const bytes = values[1 + position];
    if (Buffer.isBuffer(bytes)) {
      attachAt(doc, paths[position]!, asText ? bytes.toString('utf8') : bytes);
    }
    return doc;
  };
  return { name: `bytes${position}`, path: paths[position]!, columns, decode: (row) => parse(row, false), whole: (row) => parse(row, true) };
}

export function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

function toFieldList(index: string | readonly string[]): string[] {
  return typeof index === 'string' ? [index] : [...index];
}

/**
 * Every schema index (RxDB already added `_deleted` and the primary key to the
 * user's ones, plus `[_meta.lwt, primary]`) becomes one BLOB column holding the
 * encoded RxDB index string, with its own SQLite index. `[_meta.lwt, primary]`
 * is added here too when a raw schema lacks it, because the change feed needs it.
 */
export function indexesOfSchema<RxDocType>(schema: RxJsonSchema<RxDocumentData<RxDocType>>): string[][] {
  const primaryPath = getPrimaryFieldOfPrimaryKey(schema.primaryKey) as string;
  const indexes = (schema.indexes ?? []).map(toFieldList);
  const lwtIndex = ['_meta.lwt', primaryPath];
  const seen = new Set<string>();
  const unique: string[][] = [];
  for (const index of [...indexes, lwtIndex]) {
    const key = index.join(',');
    if (!seen.has(key)) {
      seen.add(key);
      unique.push(index);
    }
  }
  return unique;
}

/**
 * The SQL side of one (database, collection, schema version): its table, its
 * index columns and its prepared statements. Shared by every open storage
 * instance of that collection on the same connection.
 */
export class SqliteTable<RxDocType> {
  readonly tableName: string;
  readonly attachmentsTable: string | undefined;
  readonly primaryPath: string;
  readonly indexColumns: readonly IndexColumn<RxDocType>[];
  readonly lwtColumn: IndexColumn<RxDocType>;
  /** See text-columns.ts: string fields stored beside the JSON rather than inside it. */
  readonly textColumns: readonly TextColumn[];
  readonly textPaths: readonly TextPath[];
  /** See projections.ts: field lists kept by every write as a JSON array in their own column. */
  readonly projections: readonly Projection[];
  /** How rows become whole documents: `data`, then the text columns. */
  readonly shape: RowShape<RxDocType>;
  private readonly bytesShapes = new Map<string, RowShape<RxDocType>>();
  readonly users = new Set<TableUser>();
  removed = false;

  private readonly byIndexKey: Map<string, IndexColumn<RxDocType>>;
  private readonly statements = new Map<string, Statement>();
  private readonly q: string;

  constructor(
    readonly connection: SqliteConnection,
    readonly registryId: number,
    schema: RxJsonSchema<RxDocumentData<RxDocType>>,
    hasAttachments: boolean,
    textPaths: readonly TextPath[] = [],
    projections: readonly (readonly string[])[] = [],
  ) {
    this.tableName = `rxc_${registryId}`;
    this.q = quote(this.tableName);
    this.attachmentsTable = hasAttachments ? `rxc_${registryId}_attachments` : undefined;
    this.primaryPath = getPrimaryFieldOfPrimaryKey(schema.primaryKey) as string;
    this.indexColumns = indexesOfSchema(schema).map((fields, position) => ({
      fields,
      column: `i${position}`,
      sqlIndex: `rxc_${registryId}_i${position}`,
      toIndexString: getIndexableStringMonad(schema, fields),
    }));
    this.byIndexKey = new Map(this.indexColumns.map((c) => [c.fields.join(','), c]));
    const lwtColumn = this.byIndexKey.get(['_meta.lwt', this.primaryPath].join(','));
    if (!lwtColumn) {
      throw new Error('laneway sqlite: the [_meta.lwt, primary] index column is missing');
    }
    this.lwtColumn = lwtColumn;
    checkTextPaths(textPaths, this.primaryPath, this.indexColumns);
    this.textPaths = textPaths;
    this.textColumns = textPaths.map((path, position) => ({ path, column: `t${position}` }));
    this.shape = wholeShape(this);
    this.projections = parseProjections(projections, textPaths);
  }

  get db(): Database.Database {
    return this.connection.db;
  }

  columnFor(index: readonly string[]): IndexColumn<RxDocType> | undefined {
    return this.byIndexKey.get(index.join(','));
  }

  ddl(): string[] {
    const columns = [
      ...this.indexColumns.map((c) => `${c.column} BLOB NOT NULL`),
      ...this.textColumns.map((c) => `${c.column} TEXT`),
      ...this.projections.map((p) => `${p.column} TEXT`),
    ].join(',\n  ');
    const statements = [
      // id is the encoded primary key, so even a plain `ORDER BY id` is JS order.
      `CREATE TABLE IF NOT EXISTS ${this.q} (
  id BLOB NOT NULL PRIMARY KEY,
  deleted INTEGER NOT NULL,
  lwt REAL NOT NULL,
  rev TEXT NOT NULL,
  data TEXT NOT NULL,
  ${columns}
)`,
      ...this.indexColumns.map(
        (c) => `CREATE INDEX IF NOT EXISTS ${quote(c.sqlIndex)} ON ${this.q} (${c.column})`,
      ),
      // Partial, so live documents do not pay for the tombstone purge index.
      `CREATE INDEX IF NOT EXISTS ${quote(`${this.tableName}_tombstones`)} ON ${this.q} (lwt) WHERE deleted = 1`,
    ];
    if (this.attachmentsTable) {
      statements.push(this.attachmentsDdl());
    }
    return statements;
  }

  attachmentsDdl(): string {
    return `CREATE TABLE IF NOT EXISTS ${quote(`rxc_${this.registryId}_attachments`)} (
  doc_id BLOB NOT NULL,
  attachment_id TEXT NOT NULL,
  digest TEXT NOT NULL,
  type TEXT NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (doc_id, attachment_id)
)`;
  }

  dropDdl(): string[] {
    const drops = [`DROP TABLE IF EXISTS ${this.q}`];
    drops.push(`DROP TABLE IF EXISTS ${quote(`rxc_${this.registryId}_attachments`)}`);
    return drops;
  }

  statement(key: string, sql: () => string, pluck = false): Statement {
    let statement = this.statements.get(key);
    if (!statement) {
      statement = this.db.prepare<unknown[], unknown>(sql());
      if (pluck) {
        statement.pluck(true);
      }
      this.statements.set(key, statement);
    }
    return statement;
  }

  /**
   * A statement reading documents in `shape` (`sql` gets its SELECT list); its rows become
   * documents with shape.decode. A shape of the JSON alone reads plucked strings, others arrays.
   */
  shapeStatement(shape: RowShape<RxDocType>, key: string, sql: (columns: string) => string): Statement {
    const cacheKey = `${shape.name}|${key}`;
    let statement = this.statements.get(cacheKey);
    if (!statement) {
      statement = this.db.prepare<unknown[], unknown>(sql(shape.columns));
      if (shape.columns === 'data') {
        statement.pluck(true);
      } else {
        statement.raw(true);
      }
      this.statements.set(cacheKey, statement);
    }
    return statement;
  }

  /** The shape whose documents leave the text at `path` out and carry its stored UTF-8 bytes there instead. */
  bytesShape(path: string): RowShape<RxDocType> {
    let shape = this.bytesShapes.get(path);
    if (!shape) {
      const position = this.textColumns.findIndex((c) => c.path.join('.') === path);
      if (position === -1) {
        throw new Error(`laneway sqlite: ${this.tableName} has no text column ${path}`);
      }
      shape = bytesShape(this, position);
      this.bytesShapes.set(path, shape);
    }
    return shape;
  }

  readDocument(id: string): RxDocumentData<RxDocType> | undefined {
    const row = this.shapeStatement(this.shape, 'get', (columns) => `SELECT ${columns} FROM ${this.q} WHERE id = ?`).get(
      encodeKey(id),
    );
    return row === undefined ? undefined : this.shape.decode(row);
  }

  /**
   * What a write's conflict check needs of the stored version (its revision and whether it is a
   * tombstone), without reading and parsing the document.
   */
  readRevision(id: string): StoredRevision | undefined {
    const row = this.statement('rev', () => `SELECT rev, deleted, ${this.indexColumns.map((c) => c.column).join(', ')} FROM ${this.q} WHERE id = ?`)
      .raw(true)
      .get(encodeKey(id)) as [string, number, ...Buffer[]] | undefined;
    return row === undefined ? undefined : { rev: row[0], deleted: row[1] === 1, keys: row.slice(2) as Buffer[] };
  }

  /**
   * An update that leaves out the index columns whose key is unchanged (`stored`, as read in the
   * same transaction by readRevision): SQLite rewrites the index entry of every column an UPDATE
   * sets, even to the same value, and a customer whose balance moved keeps its identifier.
   */
  updateChangedKeys(doc: RxDocumentData<RxDocType>, stored: StoredRevision): void {
    const values = this.valuesOf(doc);
    const keyAt = 4;
    let mask = 0;
    const kept: unknown[] = values.slice(0, keyAt);
    this.indexColumns.forEach((_, i) => {
      const key = values[keyAt + i] as Buffer;
      const old = stored.keys[i];
      if (!old || !key.equals(old)) {
        mask |= 1 << i;
        kept.push(key);
      }
    });
    kept.push(...values.slice(keyAt + this.indexColumns.length));
    const update = this.statement(`update:${mask}`, () => {
      const names = [
        'deleted', 'lwt', 'rev', 'data',
        ...this.indexColumns.filter((_, i) => mask & (1 << i)).map((c) => c.column),
        ...this.textColumns.map((c) => c.column),
        ...this.projections.map((p) => p.column),
      ];
      return `UPDATE ${this.q} SET ${names.map((n) => `${n} = ?`).join(', ')} WHERE id = ?`;
    });
    const result = update.run(...kept, this.idKeyOf(doc));
    if (result.changes !== 1) {
      throw new Error(`laneway sqlite: update of ${this.idOf(doc)} touched ${result.changes} rows`);
    }
  }

  insertDocument(doc: RxDocumentData<RxDocType>): void {
    const insert = this.statement('insert', () => {
      const names = ['id', 'deleted', 'lwt', 'rev', 'data', ...this.writtenColumns()];
      return `INSERT INTO ${this.q} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`;
    });
    insert.run(this.idKeyOf(doc), ...this.valuesOf(doc));
  }

  updateDocument(doc: RxDocumentData<RxDocType>): void {
    const update = this.statement('update', () => {
      const names = ['deleted', 'lwt', 'rev', 'data', ...this.writtenColumns()];
      return `UPDATE ${this.q} SET ${names.map((n) => `${n} = ?`).join(', ')} WHERE id = ?`;
    });
    const result = update.run(...this.valuesOf(doc), this.idKeyOf(doc));
    if (result.changes !== 1) {
      // The row was read in this same transaction, so this means a logic error.
      throw new Error(`laneway sqlite: update of ${this.idOf(doc)} touched ${result.changes} rows`);
    }
  }

  deleteRow(idKey: Buffer): void {
    this.statement('delete', () => `DELETE FROM ${this.q} WHERE id = ?`).run(idKey);
    if (this.attachmentsTable) {
      this.statement(
        'att-delete-doc',
        () => `DELETE FROM ${quote(this.attachmentsTable ?? '')} WHERE doc_id = ?`,
      ).run(idKey);
    }
  }

  putAttachment(docId: string, attachmentId: string, digest: string, type: string, data: Uint8Array): void {
    this.statement(
      'att-put',
      () =>
        `INSERT OR REPLACE INTO ${quote(this.requireAttachments())} (doc_id, attachment_id, digest, type, data) VALUES (?, ?, ?, ?, ?)`,
    ).run(encodeKey(docId), attachmentId, digest, type, data);
  }

  removeAttachment(docId: string, attachmentId: string): void {
    this.statement(
      'att-remove',
      () => `DELETE FROM ${quote(this.requireAttachments())} WHERE doc_id = ? AND attachment_id = ?`,
    ).run(encodeKey(docId), attachmentId);
  }

  readAttachment(docId: string, attachmentId: string): { digest: string; type: string; data: Buffer } | undefined {
    if (!this.attachmentsTable) {
      return undefined;
    }
    const row = this.statement(
      'att-get',
      () => `SELECT digest, type, data FROM ${quote(this.requireAttachments())} WHERE doc_id = ? AND attachment_id = ?`,
    ).get(encodeKey(docId), attachmentId);
    return row as { digest: string; type: string; data: Buffer } | undefined;
  }

  idOf(doc: RxDocumentData<RxDocType>): string {
    return (doc as Record<string, unknown>)[this.primaryPath] as string;
  }

  private idKeyOf(doc: RxDocumentData<RxDocType>): Buffer {
    return encodeKey(this.idOf(doc));
  }

  /** The derived columns every write sets after `data`: index keys, then text columns. */
  private writtenColumns(): string[] {
    return [...this.indexColumns.map((c) => c.column), ...this.textColumns.map((c) => c.column), ...this.projections.map((p) => p.column)];
  }

  private valuesOf(doc: RxDocumentData<RxDocType>): unknown[] {
    const { rest, texts } = this.textColumns.length === 0 ? { rest: doc, texts: [] } : detachTexts(doc, this.textPaths);
    const values: unknown[] = [doc._deleted ? 1 : 0, doc._meta.lwt, doc._rev, JSON.stringify(rest)];
    for (const c of this.indexColumns) {
      values.push(encodeKey(c.toIndexString(doc)));
    }
    values.push(...texts);
    for (const p of this.projections) {
      values.push(projectionJson(p, doc));
    }
    return values;
  }

  private requireAttachments(): string {
    if (!this.attachmentsTable) {
      throw new Error(`laneway sqlite: ${this.tableName} has no attachments in its schema`);
    }
    return this.attachmentsTable;
  }

  get quotedName(): string {
    return this.q;
  }
}

/**
 * A text path names a string field of the document body: never the primary key, an indexed
 * field (index keys are computed from the whole document) or RxDB's own `_` fields.
 */
function checkTextPaths(
  paths: readonly TextPath[],
  primaryPath: string,
  indexColumns: readonly { readonly fields: readonly string[] }[],
): void {
  const nested = (a: string, b: string) => a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`);
  const indexed = [primaryPath, ...indexColumns.flatMap((c) => c.fields)];
  const seen: string[] = [];
  for (const path of paths) {
    const dotted = path.join('.');
    if (path.some((part) => part === '' || part.startsWith('_')) || indexed.some((field) => nested(field, dotted))) {
      throw new Error(`laneway sqlite: ${dotted || '(empty)'} cannot be a text column`);
    }
    if (seen.some((other) => nested(other, dotted))) {
      throw new Error(`laneway sqlite: text column ${dotted} overlaps another one`);
    }
    seen.push(dotted);
  }
}
