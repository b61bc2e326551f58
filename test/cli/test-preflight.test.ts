import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/tmp';

/**
 * `npm test` checks for Debian's chromium and socat before running anything. On a machine where
 * they cannot be installed here (no apt-get on PATH), it stops at once naming the command.
 */
function preflight(path: string, chromium: string) {
  const started = Date.now();
  const r = spawnSync(process.execPath, ['scripts/test-preflight.mjs'], { cwd: process.cwd(), env: { ...process.env, PATH: path, LANEWAY_CHROMIUM: chromium }, encoding: 'utf8' });
  return { code: r.status, output: `${r.stdout}${r.stderr}`, ms: Date.now() - started };
}

describe('npm test preflight', () => {
  it('is what npm test runs first', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.test!.startsWith('node scripts/test-preflight.mjs && ')).toBe(true);
  });

  it('stops at once naming the one command when the real parts are missing and cannot be installed here', () => {
    const { dir, cleanup } = tempDir('laneway-preflight-');
    try {
      const bin = join(dir, 'bin');
      mkdirSync(bin);
      symlinkSync(process.execPath, join(bin, 'node'));
      const r = preflight(bin, join(dir, 'no-chromium'));
      expect(r.code).toBe(1);
      expect(r.output).toContain('sudo apt-get install -y chromium socat nats-server poppler-utils');
      expect(r.ms).toBeLessThan(5_000);

      // Only socat missing: the command names socat alone.
      const fakeChromium = join(dir, 'chromium');
      writeFileSync(fakeChromium, '#!/bin/sh\n');
      chmodSync(fakeChromium, 0o755);
      for (const tool of ['nats-server', 'pdftoppm']) {
        writeFileSync(join(bin, tool), '#!/bin/sh\n');
        chmodSync(join(bin, tool), 0o755);
      }
      const one = preflight(bin, fakeChromium);
      expect(one.code).toBe(1);
      expect(one.output).toContain('sudo apt-get install -y socat\n');
      expect(one.output).toContain('socat for the serial tests');

      // All there: it says nothing and lets the tests run.
      const fakeSocat = join(bin, 'socat');
      writeFileSync(fakeSocat, '#!/bin/sh\n');
      chmodSync(fakeSocat, 0o755);
      const ok = preflight(bin, fakeChromium);
      expect(ok.code).toBe(0);
      expect(ok.output).toBe('');
    } finally {
      cleanup();
    }
  });
});
