import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { getBatch } from '../../src/engine/imports/records';
import { openTestEngine, type TestEngine } from '../helpers/harness';
import { tempDir } from '../helpers/tmp';

const open: TestEngine[] = [];
const dirs: Array<() => void> = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
  for (const d of dirs.splice(0)) d();
});

const invoices = (count: number) => `number,customer_identifier,date,amount\n${Array.from({ length: count }, (_, i) => `R${i},CUST${i % 50},2026-03-01,${100 + i}`).join('\n')}\n`;
const meta = async () => ({ fileName: 'night.csv', contentType: 'text/csv', force: false });

async function uploadAndStop(dir: string, csv: string) {
  const t = await openTestEngine({ dir });
  const batch = await t.engine.imports.upload(Readable.from([Buffer.from(csv)]), meta);
  // Closing stops the run between two units of work, as a shutdown does.
  await t.engine.close();
  return batch;
}

describe('an engine closed mid-batch', () => {
  it('resumes at its next start where the last unit left it', async () => {
    const tmp = tempDir();
    dirs.push(tmp.cleanup);
    const batch = await uploadAndStop(tmp.dir, invoices(3000));
    const t = await openTestEngine({ dir: tmp.dir });
    open.push(t);
    const stopped = await t.engine.imports.view(batch.id);
    expect(stopped.status).toBe('processing');
    expect(stopped.lines_done).toBeLessThan(3001);
    await t.engine.imports.idle();
    expect(await t.engine.imports.view(batch.id)).toMatchObject({ status: 'completed', result_message: '3000 invoices', lines_done: 3001 });
    const created = (await t.engine.core.eventsSince(0, 100_000)).filter((e) => e.type === 'invoice.created');
    expect(created).toHaveLength(3000);
  });

  it('marks the batch failed with the reason when its file is gone, never processing forever', async () => {
    const tmp = tempDir();
    dirs.push(tmp.cleanup);
    const batch = await uploadAndStop(tmp.dir, invoices(3000));
    for (const f of readdirSync(join(tmp.dir, 'imports'))) rmSync(join(tmp.dir, 'imports', f));
    const t = await openTestEngine({ dir: tmp.dir });
    open.push(t);
    await t.engine.imports.idle();
    const failed = await t.engine.imports.view(batch.id);
    expect(failed).toMatchObject({ status: 'failed', error: 'The uploaded file is no longer in the data folder; upload it again' });
    expect(failed.complete_at).not.toBeNull();
  });

  it('takes the same file again once its batch failed (it did not import it), without force, as its message asks', async () => {
    const tmp = tempDir();
    dirs.push(tmp.cleanup);
    const csv = invoices(3000);
    const batch = await uploadAndStop(tmp.dir, csv);
    for (const f of readdirSync(join(tmp.dir, 'imports'))) rmSync(join(tmp.dir, 'imports', f));
    const t = await openTestEngine({ dir: tmp.dir });
    open.push(t);
    await t.engine.imports.idle();
    expect(await t.engine.imports.view(batch.id)).toMatchObject({ status: 'failed' });
    const again = await t.engine.imports.upload(Readable.from([Buffer.from(csv)]), meta);
    expect(again).toMatchObject({ status: 'processing', file_fingerprint: batch.file_fingerprint });
    await t.engine.imports.idle();
    expect(await t.engine.imports.view(again.id)).toMatchObject({ status: 'completed', result_message: '3000 invoices' });
    // Imported now: the same bytes are refused within 24 hours, naming the batch that imported them.
    await expect(t.engine.imports.upload(Readable.from([Buffer.from(csv)]), meta)).rejects.toMatchObject({ code: 'duplicate_file', message: expect.stringContaining(`imported in the last 24 hours (batch ${again.id})`) });
  });

  it('refuses the same file while a batch is importing it, saying so; a forced copy that fails does not free it', async () => {
    const tmp = tempDir();
    dirs.push(tmp.cleanup);
    const csv = invoices(3000);
    const t = await openTestEngine({ dir: tmp.dir });
    const first = await t.engine.imports.upload(Readable.from([Buffer.from(csv)]), meta);
    await expect(t.engine.imports.upload(Readable.from([Buffer.from(csv)]), meta)).rejects.toMatchObject({
      code: 'duplicate_file',
      message: expect.stringContaining(`This file is being imported now (batch ${first.id}`),
    });
    expect((await t.engine.imports.view(first.id)).status).toBe('processing');
    // A second copy, forced, stopped with the first: at the next start its file is gone and it fails.
    const forced = await t.engine.imports.upload(Readable.from([Buffer.from(csv)]), async () => ({ ...(await meta()), force: true }));
    const keepName = (await getBatch(t.engine.core, first.id))?.file?.name;
    await t.engine.close();
    for (const f of readdirSync(join(tmp.dir, 'imports'))) if (f !== keepName) rmSync(join(tmp.dir, 'imports', f));
    const t2 = await openTestEngine({ dir: tmp.dir });
    open.push(t2);
    await t2.engine.imports.idle();
    expect(await t2.engine.imports.view(forced.id)).toMatchObject({ status: 'failed' });
    expect(await t2.engine.imports.view(first.id)).toMatchObject({ status: 'completed', result_message: '3000 invoices' });
    // The forced copy failed, but the first batch imported these bytes: still refused, naming it.
    await expect(t2.engine.imports.upload(Readable.from([Buffer.from(csv)]), meta)).rejects.toMatchObject({ code: 'duplicate_file', message: expect.stringContaining(`imported in the last 24 hours (batch ${first.id})`) });
  });

  it('removes at its next start the upload a crash cut short (a file no batch names), and resumes the batch whose file it is', async () => {
    const tmp = tempDir();
    dirs.push(tmp.cleanup);
    const batch = await uploadAndStop(tmp.dir, invoices(3000));
    // What a crash mid-upload leaves: part of a file, encrypted, that no batch was made for.
    writeFileSync(join(tmp.dir, 'imports', 'upload-0123456789abcdef01234567.csv.enc'), Buffer.alloc(4096, 7));
    const t = await openTestEngine({ dir: tmp.dir });
    open.push(t);
    await t.engine.imports.idle();
    expect(await t.engine.imports.view(batch.id)).toMatchObject({ status: 'completed', result_message: '3000 invoices' });
    expect(readdirSync(join(tmp.dir, 'imports'))).toEqual([]);
  });
});
