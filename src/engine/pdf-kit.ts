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
