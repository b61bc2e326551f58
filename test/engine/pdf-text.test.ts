import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MARGIN, openPdf } from '../../src/engine/pdf-kit';
import type { TextStyle } from '../../src/engine/pdf-text';
import { pdfFonts, pdfReadingText, pdfWords } from '../helpers/pdf';

/**
 * Text on the engine's PDFs in any script, read back from the file with poppler: Helvetica for
 * what it has, the bundled fonts for the rest, each line in the order a reader reads it back.
 */
async function pdf(texts: string[], options: { width?: number; style?: TextStyle; log?: { warn(details: object, message: string): void } } = {}): Promise<Buffer> {
  const { doc, text, done } = await openPdf({ info: { Title: 'test' }, log: options.log });
  for (const t of texts) text.text(t, { x: MARGIN, width: options.width ?? 400 }, options.style ?? { size: 12 });
  doc.end();
  return done;
}

const lines = (raw: string) => raw.split('\n').map((l) => l.trim()).filter((l) => l && l !== '\f');

describe('text on a PDF', () => {
  it('keeps English in the standard Helvetica: no font is embedded', async () => {
    const file = await pdf(['Invoice total: $1,234.56 — Café crème, 5 × 2']);
    expect(pdfFonts(file)).toEqual(['Helvetica']);
    expect(lines(pdfReadingText(file))).toEqual(['Invoice total: $1,234.56 — Café crème, 5 × 2']);
  });

  it('reads back Japanese, Chinese, Korean, Cyrillic, Greek, Arabic and Hebrew as typed; Thai and Devanagari letter for letter', async () => {
    const texts = ['田中コーヒー 3 (本店)', '北京烤鸭礼盒', '臺灣烏龍茶', '서울 커피 원두', 'Кофе в зёрнах', 'Καφές φίλτρου', 'مقهى السلام', 'קפה טחון'];
    const shaped = ['กาแฟคั่วเข้ม', 'क्षत्रिय कॉफ़ी बीन्स'];
    const file = await pdf([...texts, ...shaped]);
    const got = lines(pdfReadingText(file));
    expect(got.slice(0, texts.length)).toEqual(texts);
    // Their vowel signs and tone marks are drawn around the letter they belong to (ि before it),
    // and a reader puts them back by where they are drawn: the letters themselves must all be there.
    const letters = (s: string) => s.replace(/[\p{M}\s]/gu, '');
    expect(got.slice(texts.length).map(letters)).toEqual(shaped.map(letters));
    expect(new Set(pdfFonts(file))).toEqual(
      new Set(['Helvetica', 'NotoSansJP-Regular', 'NotoSansSC-Regular', 'NotoSansKR-Regular', 'NotoSans-Regular', 'IBMPlexSansArabic-Regular', 'NotoSansHebrew-Regular', 'NotoSansThai-Regular']),
    );
  });

  it('reads back Arabic letters that share a shape and the lam-alef ligature as typed', async () => {
    // Dots told apart (بتث are one shape with dots) and لا, one glyph for two letters.
    const texts = ['بتث ثبت نبي', 'السلام عليكم', 'لا'];
    expect(lines(pdfReadingText(await pdf(texts)))).toEqual(texts);
  });

  it('sets a right-to-left line from right to left, its number left to right', async () => {
    const words = pdfWords(await pdf(['قهوة عربية 250 غ']));
    // Poppler gives an Arabic word's letters in drawing order: turned back to compare.
    const visual = [...words].sort((a, b) => a.x - b.x).map((w) => (/\p{Script=Arabic}/u.test(w.word) ? [...w.word].reverse().join('') : w.word));
    expect(visual).toEqual(['غ', '250', 'عربية', 'قهوة']);
  });

  it('wraps CJK text that has no spaces between its characters, inside the column, every character kept', async () => {
    const long = '毎週火曜日と金曜日に東京都内の各店舗へ焙煎したてのコーヒー豆を配送いたします。ご不明な点がございましたらお気軽にお問い合わせください。';
    const file = await pdf([long], { width: 150 });
    const got = lines(pdfReadingText(file));
    expect(got.length).toBeGreaterThan(3);
    expect(got.join('')).toBe(long);
    for (const w of pdfWords(file)) expect(w.right).toBeLessThanOrEqual(MARGIN + 150);
  });

  it('prints a character no bundled font has as its code point, visibly, and logs it once', async () => {
    const warnings: object[] = [];
    const log = { warn: (details: object) => warnings.push(details) };
    // Cherokee: a script the app ships no font for.
    const first = await pdf(['Coffee Ꮳ time'], { log });
    const second = await pdf(['More Ꮳ'], { log });
    expect(lines(pdfReadingText(first))).toEqual(['Coffee [U+13E3] time']);
    expect(lines(pdfReadingText(second))).toEqual(['More [U+13E3]']);
    expect(warnings).toEqual([{ code_point: 'U+13E3' }]);
  });

  it('draws emoji and symbols in one colour; a variation selector no font draws is left out, not marked', async () => {
    const file = await pdf(['Café ☕\ufe0f ★ 😀']);
    expect(lines(pdfReadingText(file))).toEqual(['Café ☕ ★ 😀']);
    expect(pdfFonts(file)).toContain('NotoEmoji-Regular');
  });

  it('draws bold text in other scripts heavier, at the same width', async () => {
    const regular = await pdf(['田中コーヒー'], { style: { size: 16 } });
    const bold = await pdf(['田中コーヒー'], { style: { size: 16, face: 'bold' } });
    expect(lines(pdfReadingText(bold))).toEqual(['田中コーヒー']);
    // Fill and stroke (text render mode 2) in the bold one's content only.
    const mode = (b: Buffer) => pdfContent(b).includes('2 Tr');
    expect([mode(regular), mode(bold)]).toEqual([false, true]);
    const right = (b: Buffer) => pdfWords(b)[0]!.right;
    expect(right(bold)).toBe(right(regular));
  });
});

/** The PDF's page content, inflated. */
function pdfContent(file: Buffer): string {
  let out = '';
  const text = file.toString('latin1');
  for (const m of text.matchAll(/stream\r?\n/g)) {
    const start = m.index + m[0].length;
    const end = text.indexOf('endstream', start);
    try {
      out += inflateSync(file.subarray(start, end)).toString('latin1');
    } catch {
      // Not deflated (or not content): skipped.
    }
  }
  return out;
}
