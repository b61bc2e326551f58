import type PDFKitDocument from 'pdfkit';
import type { GlyphLog, PdfText } from './pdf-text';

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

/** A document being written: its pages, its text setter, and the bytes once `end()` is called. */
export interface OpenPdf {
  doc: PDFKit.PDFDocument;
  text: PdfText;
  done: Promise<Buffer>;
}

/**
 * A new US Letter document with the engine's margins. Its text is set by `text` (Helvetica, and
 * bundled fonts for what Helvetica lacks); `log` hears of a character no font draws.
 */
export async function openPdf(options: { info: PDFKit.DocumentInfo; log?: GlyphLog | undefined }): Promise<OpenPdf> {
  const [PDFDocument, { PdfText, loadTextKit }] = await Promise.all([loadPdfKit(), import('./pdf-text')]);
  const kit = await loadTextKit();
  const doc = new PDFDocument({ size: 'LETTER', margin: MARGIN, bufferPages: true, info: options.info });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  return { doc, text: new PdfText(doc, kit, options.log), done };
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
export function tableRowHeight(t: PdfText, columns: Column[], cells: string[], style: Pick<RowStyle, 'size' | 'bold'>): number {
  const type = { size: style.size, face: style.bold ? ('bold' as const) : ('regular' as const) };
  const tallest = Math.max(...columns.map((c, i) => t.heightOf(cells[i] ?? '', c.width - 6, type)));
  return Math.max(ROW, Math.ceil(tallest) + 5);
}

/** One table row at the document's y, which it moves below the row. */
export function drawTableRow(t: PdfText, columns: Column[], cells: string[], style: RowStyle): void {
  const { doc } = t;
  const y = doc.y;
  const total = columns.reduce((s, c) => s + c.width, 0);
  const height = tableRowHeight(t, columns, cells, style);
  if (style.shade) doc.rect(MARGIN, y - 2, total, height).fill(style.shade);
  if (style.rule) doc.moveTo(MARGIN, y - 2).lineTo(MARGIN + total, y - 2).lineWidth(0.8).strokeColor('#000').stroke();
  const type = { size: style.size, face: style.bold ? ('bold' as const) : ('regular' as const), color: '#000' };
  let x = MARGIN;
  columns.forEach((c, i) => {
    t.text(cells[i] ?? '', { x: x + 3, y: y + 2, width: c.width - 6, align: c.align }, type);
    x += c.width;
  });
  doc.x = MARGIN;
  doc.y = y + height;
}
