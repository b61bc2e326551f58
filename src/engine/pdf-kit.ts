import type PDFKitDocument from 'pdfkit';

let loading: Promise<typeof PDFKitDocument> | undefined;

/**
 * pdfkit, loaded on the first document rather than at every start: it stays a package of
 * node_modules (its standard fonts are found through its own imports), and loading its files
 * added about a quarter of a second to `serve`'s start (bench:startup).
 */
export function loadPdfKit(): Promise<typeof PDFKitDocument> {
  loading ??= import('pdfkit').then((m) => m.default);
  return loading;
}

/** What the standard fonts' WinAnsi encoding holds beyond Latin-1 (Windows-1252's 0x80-0x9F). */
const CP1252 = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');
/** Letters with no decomposition to a base letter, and spaces Intl puts in amounts (fr-FR's narrow one). */
const NEAREST: Record<string, string> = { Ł: 'L', ł: 'l', Đ: 'D', đ: 'd', ı: 'i', '\u202f': '\u00a0', '\u2009': ' ', '\u2007': ' ', '\u2212': '-' };
const fits = (c: string) => {
  const n = c.codePointAt(0)!;
  return (n >= 0x20 && n <= 0x7e) || (n >= 0xa0 && n <= 0xff) || CP1252.has(c) || c === '\n';
};

/**
 * Text as the standard fonts (Helvetica) can draw it: they encode WinAnsi only, and pdfkit writes
 * any other character as unrelated glyphs ("Łódź" came out as "6Az"). Accents outside it are
 * dropped to their letter, a few letters and spaces replaced, anything else shown as "?".
 */
export function pdfText(text: string): string {
  let out = '';
  for (const c of text) {
    if (fits(c)) out += c;
    else if (NEAREST[c] !== undefined) out += NEAREST[c];
    else {
      const base = c.normalize('NFD').replace(/\p{M}/gu, '');
      out += base && [...base].every(fits) ? base : '?';
    }
  }
  return out;
}

/** A table column of the engine's PDFs (statements, invoices). */
export type Align = 'left' | 'right';
export interface Column {
  title: string;
  width: number;
  align: Align;
}

/** The page margin and a table row's height, the same on every document the engine prints. */
export const MARGIN = 50;
export const ROW = 16;

/** How a table row is drawn: its font size, and whether it is bold, shaded or ruled above. */
export interface RowStyle {
  size: number;
  bold?: boolean;
  shade?: string | undefined;
  rule?: boolean;
}

/** A row's height: a cell too long for its column wraps (a long description, a reason), never truncated. */
export function tableRowHeight(doc: PDFKit.PDFDocument, columns: Column[], cells: string[], style: Pick<RowStyle, 'size' | 'bold'>): number {
  doc.font(style.bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(style.size);
  const tallest = Math.max(...columns.map((c, i) => doc.heightOfString(cells[i] ?? '', { width: c.width - 6 })));
  return Math.max(ROW, Math.ceil(tallest) + 5);
}

/** One table row at the document's y, which it moves below the row. */
export function drawTableRow(doc: PDFKit.PDFDocument, columns: Column[], cells: string[], style: RowStyle): void {
  const y = doc.y;
  const total = columns.reduce((s, c) => s + c.width, 0);
  const height = tableRowHeight(doc, columns, cells, style);
  if (style.shade) doc.rect(MARGIN, y - 2, total, height).fill(style.shade);
  if (style.rule) doc.moveTo(MARGIN, y - 2).lineTo(MARGIN + total, y - 2).lineWidth(0.8).strokeColor('#000').stroke();
  doc.font(style.bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(style.size).fillColor('#000');
  let x = MARGIN;
  columns.forEach((c, i) => {
    doc.text(cells[i] ?? '', x + 3, y + 2, { width: c.width - 6, align: c.align });
    x += c.width;
  });
  doc.x = MARGIN;
  doc.y = y + height;
}
