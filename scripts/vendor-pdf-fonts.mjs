#!/usr/bin/env node
// The fonts the PDFs draw other scripts with (src/engine/pdf-fonts.ts, docs/pdf-fonts.md) are kept
// in the repository, in resources/pdf-fonts/, not installed from npm: the @fontsource packages
// they come from are ~300 MB and ~10,700 files (nine weights, WOFF and WOFF2, CSS) that every
// `npm ci` unpacked (~25 s on its own on a 2-core machine); the PDFs read ~20 MB of them. This script makes that copy again, to update the fonts:
// it fetches each package below with `npm pack` (npm's own client and cache; nothing is installed)
// and copies from it only what src/engine/pdf-fonts.ts reads, with the package's licence:
//
//   resources/pdf-fonts/<id>/LICENSE                         SIL Open Font License 1.1, the font's copyright
//   resources/pdf-fonts/<id>/unicode.json                    which code points each file holds
//   resources/pdf-fonts/<id>/files/<id>-<slice>-400-normal.woff
//
// Usage: node scripts/vendor-pdf-fonts.mjs            the versions listed below
//        node scripts/vendor-pdf-fonts.mjs --latest   each package's latest version (then update the list)
// Then run the PDF tests (test/notifications/invoice-pdf.test.ts, test/settlement/reports.test.ts).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Every family FontChain looks in (src/engine/pdf-fonts.ts), at the version the copy was made from. */
const FONTS = {
  'noto-sans': '5.3.0',
  'ibm-plex-sans-arabic': '5.3.0',
  'noto-sans-arabic': '5.3.0',
  'noto-sans-hebrew': '5.3.0',
  'noto-sans-thai': '5.3.0',
  'noto-sans-bengali': '5.3.0',
  'noto-sans-tamil': '5.3.0',
  'noto-sans-kannada': '5.3.0',
  'noto-sans-malayalam': '5.3.0',
  'noto-sans-georgian': '5.3.0',
  'noto-sans-armenian': '5.3.0',
  'noto-sans-khmer': '5.3.0',
  'noto-sans-myanmar': '5.3.0',
  'noto-sans-thaana': '5.3.0',
  'noto-sans-jp': '5.3.0',
  'noto-sans-sc': '5.3.0',
  'noto-sans-tc': '5.3.0',
  'noto-sans-kr': '5.3.0',
  'noto-sans-symbols-2': '5.3.0',
  'noto-emoji': '5.3.2',
};

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'resources', 'pdf-fonts');
const latest = process.argv.includes('--latest');
const work = mkdtempSync(join(tmpdir(), 'laneway-pdf-fonts-'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const made = [];
try {
  rmSync(target, { recursive: true, force: true });
  for (const [id, pinned] of Object.entries(FONTS)) {
    const spec = `@fontsource/${id}@${latest ? 'latest' : pinned}`;
    const packed = JSON.parse(execFileSync(npm, ['pack', spec, '--json', '--pack-destination', work], { encoding: 'utf8', shell: process.platform === 'win32' }));
    const { filename, version } = packed[0];
    const unpacked = join(work, id);
    mkdirSync(unpacked);
    execFileSync('tar', ['-xzf', join(work, filename), '-C', unpacked]);
    const from = join(unpacked, 'package');
    const to = join(target, id);
    mkdirSync(join(to, 'files'), { recursive: true });
    cpSync(join(from, 'LICENSE'), join(to, 'LICENSE'));
    cpSync(join(from, 'unicode.json'), join(to, 'unicode.json'));
    const woff = readdirSync(join(from, 'files')).filter((f) => f.startsWith(`${id}-`) && f.endsWith('-400-normal.woff'));
    for (const f of woff) cpSync(join(from, 'files', f), join(to, 'files', f));
    // Every range unicode.json names must have its file: that is the file FontChain opens.
    const slices = Object.keys(JSON.parse(readFileSync(join(from, 'unicode.json'), 'utf8'))).map((s) => s.replace(/^\[(\d+)\]$/, '$1'));
    const missing = slices.filter((s) => !woff.includes(`${id}-${s}-400-normal.woff`));
    if (missing.length) throw new Error(`${spec}: no 400-weight WOFF for ${missing.join(', ')}`);
    made.push({ id, version, files: woff.length });
    console.log(`${spec} -> ${version}: ${woff.length} files`);
  }
  writeFileSync(
    join(target, 'README.md'),
    [
      '# Fonts of the PDFs',
      '',
      'Copied by `node scripts/vendor-pdf-fonts.mjs` from npm\'s `@fontsource` packages (Google Fonts\' builds):',
      'of each, its `LICENSE` (SIL Open Font License 1.1), `unicode.json` and the 400-weight WOFF files,',
      'what `src/engine/pdf-fonts.ts` reads (see docs/pdf-fonts.md). Run the script again to update them.',
      '',
      '| folder | from |',
      '|---|---|',
      ...made.map((m) => `| \`${m.id}/\` | \`@fontsource/${m.id}@${m.version}\` (${m.files} files) |`),
      '',
    ].join('\n'),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
