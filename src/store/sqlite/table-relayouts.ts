import type { RxDocumentData } from 'rxdb';
import { encodeKey } from './key-encoding';
import { quote, type SqliteTable } from './table';
import { attachTexts, detachTexts, type TextPath } from './text-columns';

/*
 * Relayouts: what openTable (table-creation.ts) does to the rows of a table stored with another
 * layout than the one it is opened with. Projection columns are relaid by projections.ts.
 */

/**
 * The index columns are derived data (the JSON is the truth), so a schema whose
 * indexes changed under the same version (RxDB's own internal store may do that
 * across RxDB releases) gets its columns recomputed instead of a refusal.
 * Runs inside the caller's transaction; a crash leaves the old layout.
 */
export function rebuildIndexColumns<RxDocType>(table: SqliteTable<RxDocType>, oldIndexes: string[][], progress: (rows: number) => void): void {
  const db = table.db;
  const name = table.quotedName;
  for (let position = 0; position < oldIndexes.length; position++) {
    db.exec(`DROP INDEX IF EXISTS ${quote(`${table.tableName}_i${position}`)}`);
    db.exec(`ALTER TABLE ${name} DROP COLUMN i${position}`);
  }
  for (const c of table.indexColumns) {
    db.exec(`ALTER TABLE ${name} ADD COLUMN ${c.column} BLOB NOT NULL DEFAULT x''`);
  }
  const page = db
    .prepare(`SELECT rowid, ${table.shape.columns} FROM ${name} WHERE rowid > ? ORDER BY rowid LIMIT 1000`)
    .raw(true);
  const update = db.prepare(
    `UPDATE ${name} SET ${table.indexColumns.map((c) => `${c.column} = ?`).join(', ')} WHERE rowid = ?`,
  );
  let after = 0;
  for (;;) {
    const rows = page.all(after) as unknown[][];
    for (const row of rows) {
      const doc = JSON.parse(row[1] as string) as RxDocumentData<RxDocType>;
      attachTexts(doc, table.textPaths, row, 2);
      after = row[0] as number;
      update.run(...table.indexColumns.map((c) => encodeKey(c.toIndexString(doc))), after);
    }
    progress(rows.length);
    if (rows.length < 1000) {
      break;
    }
  }
  for (const sql of table.ddl()) {
    db.exec(sql);
  }
}

/**
 * Moves string fields into or out of text columns when a collection is opened with other text
 * paths than it was stored with: every row is read with the old layout and written with the new
 * one, inside the caller's transaction (a crash leaves the old layout). Index columns do not
 * change: text paths are never indexed fields.
 */
export function relayoutTextColumns<RxDocType>(table: SqliteTable<RxDocType>, oldPaths: readonly TextPath[], progress: (rows: number) => void): void {
  const db = table.db;
  const name = table.quotedName;
  const newCount = table.textColumns.length;
  for (let position = oldPaths.length; position < newCount; position++) {
    db.exec(`ALTER TABLE ${name} ADD COLUMN t${position} TEXT`);
  }
  const oldColumns = ['data', ...oldPaths.map((_, position) => `t${position}`)].join(', ');
  const page = db
    .prepare(`SELECT rowid, ${oldColumns} FROM ${name} WHERE rowid > ? ORDER BY rowid LIMIT 1000`)
    .raw(true);
  const update = db.prepare(
    `UPDATE ${name} SET ${['data', ...table.textColumns.map((c) => c.column)].map((c) => `${c} = ?`).join(', ')} WHERE rowid = ?`,
  );
  let after = 0;
  for (;;) {
    const rows = page.all(after) as unknown[][];
    for (const row of rows) {
      const doc = JSON.parse(row[1] as string) as RxDocumentData<RxDocType>;
      attachTexts(doc, oldPaths, row, 2);
      const { rest, texts } = detachTexts(doc, table.textPaths);
      after = row[0] as number;
      update.run(JSON.stringify(rest), ...texts, after);
    }
    progress(rows.length);
    if (rows.length < 1000) {
      break;
    }
  }
  for (let position = newCount; position < oldPaths.length; position++) {
    db.exec(`ALTER TABLE ${name} DROP COLUMN t${position}`);
  }
}
