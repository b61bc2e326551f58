import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/**
 * An install's RxDB replication record of one document (a row of a `rx-replication-meta-*` table
 * in its SQLite file: the version RxDB takes for the other side's), read and put back while the
 * install is stopped.
 */
export interface MetaRecord {
  data: { _rev: string; docData: Record<string, unknown> } & Record<string, unknown>;
  /** Puts `data` back as the record, with a new revision. */
  replace(data: Record<string, unknown>): void;
}

export function metaRecordOf(dir: string, match: (docData: Record<string, unknown>) => boolean): MetaRecord | undefined {
  const file = readdirSync(dir).find((f) => f.endsWith('.sqlite'))!;
  const db = new Database(join(dir, file));
  try {
    const tables = db.prepare("SELECT id FROM laneway_rx_collections WHERE collection_name LIKE 'rx-replication-meta-%'").all() as Array<{ id: number }>;
    for (const { id: table } of tables) {
      for (const r of db.prepare(`SELECT id, data FROM rxc_${table}`).all() as Array<{ id: Buffer; data: string }>) {
        const data = JSON.parse(r.data) as MetaRecord['data'] & { isCheckpoint?: string };
        if (data.isCheckpoint !== '0' || !match(data.docData)) continue;
        return {
          data,
          replace(next) {
            const rev = `${Number(data._rev.split('-')[0]) + 1}-replaced`;
            const w = new Database(join(dir, file));
            w.prepare(`UPDATE rxc_${table} SET data = ?, rev = ? WHERE id = ?`).run(JSON.stringify({ ...next, _rev: rev }), rev, r.id);
            w.close();
          },
        };
      }
    }
    return undefined;
  } finally {
    db.close();
  }
}
