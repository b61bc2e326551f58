import type { RxDocumentData, RxJsonSchema } from 'rxdb';
import { getPrimaryFieldOfPrimaryKey } from 'rxdb';
import type { SqliteConnection } from './connection';
import type { RelayoutNotice } from './types';
import { relayoutProjections } from './projections';
import { indexesOfSchema, SqliteTable } from './table';
import { rebuildIndexColumns, relayoutTextColumns } from './table-relayouts';
import { parseTextPaths, type TextPath } from './text-columns';

/* Creating and dropping a collection's table, and finding it again in the file's registry. */

type RegistryRow = {
  id: number;
  primary_path: string;
  indexes_json: string;
  has_attachments: number;
  text_columns: string;
  projections: string;
};

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
  textPaths: readonly TextPath[] = [],
  projections: readonly (readonly string[])[] = [],
  onRelayout?: (notice: RelayoutNotice) => void,
): SqliteTable<RxDocType> {
  const primaryPath = getPrimaryFieldOfPrimaryKey(schema.primaryKey) as string;
  const indexesJson = JSON.stringify(indexesOfSchema(schema));
  const textJson = JSON.stringify(textPaths.map((p) => p.join('.')));
  const projectionsJson = JSON.stringify(projections);
  const hasAttachments = !!schema.attachments;
  const db = connection.db;

  const create = db.transaction((): SqliteTable<RxDocType> => {
    const existing = db
      .prepare(
        `SELECT id, primary_path, indexes_json, has_attachments, text_columns, projections FROM laneway_rx_collections
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
      const sameTexts = existing.text_columns === textJson;
      const sameProjections = existing.projections === projectionsJson;
      if (cached && !cached.removed && sameIndexes && sameTexts && sameProjections && (!hasAttachments || cached.attachmentsTable)) {
        return cached;
      }
      if ((!sameIndexes || !sameTexts || !sameProjections) && cached && !cached.removed && cached.users.size > 0) {
        throw new Error(
          `laneway sqlite: ${databaseName}/${collectionName} v${schema.version} is open with other ` +
            `${sameIndexes ? 'text columns' : 'indexes'}; close it before opening it with a different layout`,
        );
      }
      const withAttachments = hasAttachments || existing.has_attachments === 1;
      const table = new SqliteTable<RxDocType>(connection, existing.id, schema, withAttachments, textPaths, projections);
      /** Tells onRelayout a relayout starts; what it returns tells how many more rows are done. */
      const notify = (change: RelayoutNotice['change']): ((rows: number) => void) => {
        if (!onRelayout) return () => undefined;
        const rows = db.prepare(`SELECT COUNT(*) FROM ${table.quotedName}`).pluck().get() as number;
        let done = 0;
        onRelayout({ collection: collectionName, rows, change, done });
        return (more) => {
          done = Math.min(rows, done + more);
          onRelayout({ collection: collectionName, rows, change, done });
        };
      };
      if (!sameTexts) {
        const progress = notify('text columns');
        relayoutTextColumns(table, parseTextPaths(JSON.parse(existing.text_columns) as string[]), progress);
        db.prepare('UPDATE laneway_rx_collections SET text_columns = ? WHERE id = ?').run(textJson, existing.id);
      }
      if (!sameProjections) {
        const progress = notify('projections');
        // After the text columns: a projection is filled from the document JSON, which now holds
        // every field a projection may name.
        relayoutProjections(db, table.quotedName, (JSON.parse(existing.projections) as unknown[]).length, table.projections, progress);
        db.prepare('UPDATE laneway_rx_collections SET projections = ? WHERE id = ?').run(projectionsJson, existing.id);
      }
      if (!sameIndexes) {
        const progress = notify('indexes');
        rebuildIndexColumns(table, JSON.parse(existing.indexes_json) as string[][], progress);
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
           (database_name, collection_name, schema_version, primary_path, indexes_json, has_attachments, text_columns, projections)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(databaseName, collectionName, schema.version, primaryPath, indexesJson, hasAttachments ? 1 : 0, textJson, projectionsJson);
    const table = new SqliteTable<RxDocType>(
      connection,
      Number(inserted.lastInsertRowid),
      schema,
      hasAttachments,
      textPaths,
      projections,
    );
    for (const sql of table.ddl()) {
      db.exec(sql);
    }
    return table;
  });

  const table = create.immediate();
  connection.tables.set(table.tableName, table);
  return table;
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
