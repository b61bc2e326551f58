import { expect, it } from 'vitest';
import { card } from '../helpers/gateway';
import { openHarness, openTestEngine } from '../helpers/harness';
import { tempDir } from '../helpers/tmp';
import { DATA_FILE, stripMeta, type StoredDoc } from '../../src/store';
import { openStore } from '../../src/store/database';
import { defineCollection, keyField, watermarkField } from '../../src/store/schema';
import { getRxStorageSqlite } from '../../src/store/sqlite';

/**
 * A data folder written before a collection's indexes changed (1de0d47 dropped the transactions'
 * watermark index, under the same schema version): RxDB refused to open it (DB6) and the app did
 * not start. It opens, its rows found through the indexes as they are now.
 */
it('opens a data folder whose collection was stored with other indexes, and finds its rows by the current ones', async () => {
  const source = await openTestEngine();
  const sale = (await source.engine.gateway.transact('sale', { amount_cents: 3100, unique_reference: 'ERP-OLD-1', credit_card: card() }, null)).body.transaction!;
  const raw = stripMeta((await source.store.get('transactions', sale))!) as StoredDoc;
  await source.close();

  const folder = tempDir();
  try {
    const before = defineCollection('transactions', {
      fields: { order_id: keyField(100), unique_reference: keyField(240), due_at: watermarkField, batch_id: keyField(120), fund: keyField(40), recency: watermarkField },
      indexes: [['watermark'], ['order_id', 'watermark'], ['unique_reference'], ['due_at'], ['batch_id', 'watermark'], ['fund', 'recency']],
      idLength: 40,
    });
    const old = await openStore({ storage: getRxStorageSqlite({ directory: folder.dir, fileName: DATA_FILE }) as never, collections: [before] });
    await old.commit([{ collection: 'transactions', doc: { ...raw, watermark: 1 } }]);
    await old.close();

    for (let start = 0; start < 2; start++) {
      const upgraded = await openHarness({ dir: folder.dir, api: true });
      try {
        expect((await upgraded.api.get<{ token: string }>(`/api/exports/transaction/${sale}`)).body.token).toBe(sale);
        // Through the unique_reference index, whose column was laid out again.
        const byKey = await upgraded.api.get<{ token: string }>(`/api/exports/transaction/${encodeURIComponent(String(raw.unique_reference))}`);
        expect([byKey.status, byKey.body.token]).toEqual([200, sale]);
      } finally {
        await upgraded.close();
      }
    }
  } finally {
    folder.cleanup();
  }
});

it('still refuses a stored collection whose fields, not only indexes, differ under the same version', async () => {
  const folder = tempDir();
  try {
    const other = defineCollection('transactions', { fields: { something_else: keyField(10) }, indexes: [['something_else']], idLength: 40 });
    const old = await openStore({ storage: getRxStorageSqlite({ directory: folder.dir, fileName: DATA_FILE }) as never, collections: [other] });
    await old.close();
    await expect(openHarness({ dir: folder.dir, api: true })).rejects.toThrow(/DB6/);
  } finally {
    folder.cleanup();
  }
});
