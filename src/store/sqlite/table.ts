import type Database from 'better-sqlite3';
import type { RxDocumentData, RxJsonSchema } from 'rxdb';
import { getIndexableStringMonad, getPrimaryFieldOfPrimaryKey } from 'rxdb';
import type { SqliteConnection } from './connection';
import { encodeKey } from './key-encoding';

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

type RegistryRow = {
  id: number;
  primary_path: string;
  indexes_json: string;
  has_attachments: number;
};

function quote(identifier: string): string {
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
  }

  get db(): Database.Database {
    return this.connection.db;
  }

  columnFor(index: readonly string[]): IndexColumn<RxDocType> | undefined {
    return this.byIndexKey.get(index.join(','));
  }

  ddl(): string[] {
    const columns = this.indexColumns.map((c) => `${c.column} BLOB NOT NULL`).join(',\n  ');
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

  readDocument(id: string): RxDocumentData<RxDocType> | undefined {
    const json = this.statement('get', () => `SELECT data FROM ${this.q} WHERE id = ?`, true).get(encodeKey(id));
    return typeof json === 'string' ? (JSON.parse(json) as RxDocumentData<RxDocType>) : undefined;
  }

  insertDocument(doc: RxDocumentData<RxDocType>): void {
    const insert = this.statement('insert', () => {
      const names = ['id', 'deleted', 'lwt', 'rev', 'data', ...this.indexColumns.map((c) => c.column)];
      return `INSERT INTO ${this.q} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`;
    });
    insert.run(this.idKeyOf(doc), ...this.valuesOf(doc));
  }

  updateDocument(doc: RxDocumentData<RxDocType>): void {
    const update = this.statement('update', () => {
      const names = ['deleted', 'lwt', 'rev', 'data', ...this.indexColumns.map((c) => c.column)];
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

  private valuesOf(doc: RxDocumentData<RxDocType>): unknown[] {
    const values: unknown[] = [doc._deleted ? 1 : 0, doc._meta.lwt, doc._rev, JSON.stringify(doc)];
    for (const c of this.indexColumns) {
      values.push(encodeKey(c.toIndexString(doc)));
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
 * Finds or creates the table of (database, collection, version) in the file's
 * registry. Another primary key under the same version is refused (documents
 * would be keyed wrongly); other indexes get their columns rebuilt.
 */
export function openTable<RxDocType>(
  connection: SqliteConnection,
  databaseName: string,
  collectionName: string,
  schema: RxJsonSchema<RxDocumentData<RxDocType>>,
): SqliteTable<RxDocType> {
  const primaryPath = getPrimaryFieldOfPrimaryKey(schema.primaryKey) as string;
  const indexesJson = JSON.stringify(indexesOfSchema(schema));
  const hasAttachments = !!schema.attachments;
  const db = connection.db;

  const create = db.transaction((): SqliteTable<RxDocType> => {
    const existing = db
      .prepare(
        `SELECT id, primary_path, indexes_json, has_attachments FROM laneway_rx_collections
         WHERE database_name = ? AND collection_name = ? AND schema_version = ?`,
      )
      .get(databaseName, collectionName, schema.version) as RegistryRow | undefined;

    if (existing) {
      if (existing.primary_path !== primaryPath) {
        throw new Error(
          `laneway sqlite: ${databaseName}/${collectionName} v${schema.version} already exists in ` +
            `${connection.filePath} with primary key ${existing.primary_path}; ` +
            `a schema that changes the primary key needs a new version`,
        );
      }
      const cached = connection.tables.get(`rxc_${existing.id}`) as SqliteTable<RxDocType> | undefined;
      const sameIndexes = existing.indexes_json === indexesJson;
      if (cached && !cached.removed && sameIndexes && (!hasAttachments || cached.attachmentsTable)) {
        return cached;
      }
      if (!sameIndexes && cached && !cached.removed && cached.users.size > 0) {
        throw new Error(
          `laneway sqlite: ${databaseName}/${collectionName} v${schema.version} is open with other indexes; ` +
            'close it before opening it with a different schema',
        );
      }
      const withAttachments = hasAttachments || existing.has_attachments === 1;
      const table = new SqliteTable<RxDocType>(connection, existing.id, schema, withAttachments);
      if (!sameIndexes) {
        rebuildIndexColumns(table, JSON.parse(existing.indexes_json) as string[][]);
        db.prepare('UPDATE laneway_rx_collections SET indexes_json = ? WHERE id = ?').run(indexesJson, existing.id);
      }
      if (withAttachments && existing.has_attachments !== 1) {
        db.exec(table.attachmentsDdl());
        db.prepare('UPDATE laneway_rx_collections SET has_attachments = 1 WHERE id = ?').run(existing.id);
      }
      return table;
    }

    const inserted = db
      .prepare(
        `INSERT INTO laneway_rx_collections
           (database_name, collection_name, schema_version, primary_path, indexes_json, has_attachments)
         VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(databaseName, collectionName, schema.version, primaryPath, indexesJson, hasAttachments ? 1 : 0);
    const table = new SqliteTable<RxDocType>(connection, Number(inserted.lastInsertRowid), schema, hasAttachments);
    for (const sql of table.ddl()) {
      db.exec(sql);
    }
    return table;
  });

  const table = create.immediate();
  connection.tables.set(table.tableName, table);
  return table;
}

/**
 * The index columns are derived data (the JSON is the truth), so a schema whose
 * indexes changed under the same version (RxDB's own internal store may do that
 * across RxDB releases) gets its columns recomputed instead of a refusal.
 * Runs inside the caller's transaction; a crash leaves the old layout.
 */
function rebuildIndexColumns<RxDocType>(table: SqliteTable<RxDocType>, oldIndexes: string[][]): void {
  const db = table.db;
  const name = table.quotedName;
  for (let position = 0; position < oldIndexes.length; position++) {
    db.exec(`DROP INDEX IF EXISTS ${quote(`${table.tableName}_i${position}`)}`);
    db.exec(`ALTER TABLE ${name} DROP COLUMN i${position}`);
  }
  for (const c of table.indexColumns) {
    db.exec(`ALTER TABLE ${name} ADD COLUMN ${c.column} BLOB NOT NULL DEFAULT x''`);
  }
  const page = db.prepare(`SELECT rowid AS r, data FROM ${name} WHERE rowid > ? ORDER BY rowid LIMIT 1000`);
  const update = db.prepare(
    `UPDATE ${name} SET ${table.indexColumns.map((c) => `${c.column} = ?`).join(', ')} WHERE rowid = ?`,
  );
  let after = 0;
  for (;;) {
    const rows = page.all(after) as Array<{ r: number; data: string }>;
    for (const row of rows) {
      const doc = JSON.parse(row.data) as RxDocumentData<RxDocType>;
      update.run(...table.indexColumns.map((c) => encodeKey(c.toIndexString(doc))), row.r);
      after = row.r;
    }
    if (rows.length < 1000) {
      break;
    }
  }
  for (const sql of table.ddl()) {
    db.exec(sql);
  }
}

/** Drops the table, its attachments and its registry entry in one transaction. */
export function dropTable<RxDocType>(table: SqliteTable<RxDocType>): void {
  const db = table.db;
  db.transaction(() => {
    for (const sql of table.dropDdl()) {
      db.exec(sql);
    }
    db.prepare('DELETE FROM laneway_rx_collections WHERE id = ?').run(table.registryId);
  }).immediate();
  table.removed = true;
  table.connection.tables.delete(table.tableName);
}
