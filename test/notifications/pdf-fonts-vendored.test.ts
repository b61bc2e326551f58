import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FAMILIES, pdfFontsDir } from '../../src/engine/pdf-fonts';

/**
 * The PDF fonts kept in resources/pdf-fonts/ (scripts/vendor-pdf-fonts.mjs copies them from the
 * @fontsource packages): every family the font chain looks in is there, with its licence and a
 * 400-weight WOFF for every range its unicode.json names, the file the chain opens for it.
 */
describe('the PDF fonts kept in resources/pdf-fonts', () => {
  it('has every family, its SIL OFL licence, and a WOFF file for every range of its unicode.json', () => {
    for (const id of FAMILIES) {
      const dir = pdfFontsDir(id);
      expect(readFileSync(join(dir, 'LICENSE'), 'utf8'), id).toContain('SIL Open Font License, Version 1.1');
      const ranges = Object.keys(JSON.parse(readFileSync(join(dir, 'unicode.json'), 'utf8')) as Record<string, string>);
      expect(ranges.length, id).toBeGreaterThan(0);
      for (const range of ranges) {
        const slice = range.replace(/^\[(\d+)\]$/, '$1');
        expect(existsSync(join(dir, 'files', `${id}-${slice}-400-normal.woff`)), `${id} ${range}`).toBe(true);
      }
    }
    // Nothing else is kept: the folders are the families, the files only the ones read.
    const root = join(pdfFontsDir(FAMILIES[0]!), '..');
    expect(readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort()).toEqual([...FAMILIES].sort());
    for (const id of FAMILIES) for (const f of readdirSync(join(root, id, 'files'))) expect(f, id).toMatch(new RegExp(`^${id}-[a-z0-9-]+-400-normal\\.woff$`));
  });
});
