import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './tmp';

/**
 * A PDF's text as poppler's pdftotext lays it out (columns kept on their line), with the no-break
 * spaces amounts carry in some locales ("1 234,56 $") read as plain spaces; and its page count.
 */
export function pdfLayoutText(pdf: Buffer): { text: string; pages: number } {
  const { dir, cleanup } = tempDir('laneway-pdf-');
  try {
    const file = join(dir, 'document.pdf');
    writeFileSync(file, pdf);
    const text = execFileSync('pdftotext', ['-layout', file, '-']).toString('utf8').replace(/[\u00a0\u202f]/g, ' ');
    const pages = Number(/^Pages:\s+(\d+)/m.exec(execFileSync('pdfinfo', [file]).toString())?.[1]);
    return { text, pages };
  } finally {
    cleanup();
  }
}
