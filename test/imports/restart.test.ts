import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
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
