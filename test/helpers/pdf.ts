import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './tmp';

/** Poppler wraps right-to-left text it reads in embedding marks (U+202A-U+202E): not the document's text. */
const BIDI_MARKS = /[\u202a-\u202e]/g;

function withFile<T>(pdf: Buffer, read: (file: string) => T): T {
  const { dir, cleanup } = tempDir('laneway-pdf-');
  try {
    const file = join(dir, 'document.pdf');
    writeFileSync(file, pdf);
    return read(file);
  } finally {
    cleanup();
  }
}

/**
 * A PDF's text as poppler's pdftotext lays it out (columns kept on their line), with the no-break
 * spaces amounts carry in some locales ("1 234,56 $") read as plain spaces; and its page count.
 */
export function pdfLayoutText(pdf: Buffer): { text: string; pages: number } {
  return withFile(pdf, (file) => {
    const text = execFileSync('pdftotext', ['-layout', file, '-']).toString('utf8').replace(/[\u00a0\u202f]/g, ' ').replace(BIDI_MARKS, '');
    const pages = Number(/^Pages:\s+(\d+)/m.exec(execFileSync('pdfinfo', [file]).toString())?.[1]);
    return { text, pages };
  });
}

/** A PDF's text in reading order (pdftotext's default): a right-to-left line read right to left. */
export function pdfReadingText(pdf: Buffer): string {
  return withFile(pdf, (file) => execFileSync('pdftotext', [file, '-']).toString('utf8').replace(BIDI_MARKS, ''));
}

/** The fonts a PDF uses, as pdffonts names them (an embedded subset's "ABCDEF+" prefix dropped). */
export function pdfFonts(pdf: Buffer): string[] {
  return withFile(pdf, (file) =>
    execFileSync('pdffonts', [file])
      .toString('utf8')
      .split('\n')
      .slice(2)
      .map((line) => line.split(/\s+/)[0]!.replace(/^[A-Z]{6}\+/, ''))
      .filter(Boolean),
  );
}

/** A PDF's words with where they are drawn (pdftotext -bbox), in poppler's reading order. */
export function pdfWords(pdf: Buffer): Array<{ word: string; x: number; right: number; y: number }> {
  const html = withFile(pdf, (file) => execFileSync('pdftotext', ['-bbox', file, '-']).toString('utf8'));
  return [...html.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)"[^>]*>([^<]*)<\/word>/g)].map((m) => ({ word: m[4]!.replace(/&amp;/g, '&'), x: Number(m[1]), right: Number(m[3]), y: Number(m[2]) }));
}
