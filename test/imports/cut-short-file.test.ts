import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { receiveFile } from '../../src/engine/imports/file';

const dir = mkdtempSync(join(tmpdir(), 'cut-short-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const keys = { currentId: () => 'k1', key: () => Buffer.alloc(32, 7) };

describe('an upload failed before its file is open', () => {
  it('leaves no file behind, even when the failure beats the open of the file', async () => {
    // A client gone before its first byte fails the part at once; the open of the encrypted file is
    // still in flight then. Each try is a fresh race; most lost it before the file waited for its close.
    for (let i = 0; i < 50; i++) {
      const part = new PassThrough();
      const received = receiveFile(part, join(dir, `upload-${i}.csv.enc`), keys);
      part.destroy(new Error('The upload was cut short'));
      await expect(received).rejects.toThrow('cut short');
    }
    await new Promise((r) => setTimeout(r, 100));
    expect(readdirSync(dir)).toEqual([]);
  });
});
