import { parse } from 'csv-parse/browser/esm/sync';
import { headParseOptions, readHeader, type FileKind } from '../../../shared/import-kinds';

/** The start of a file read for its header row, as the engine reads an upload's (its first bytes). */
const HEAD_BYTES = 64 * 1024;

/**
 * The kind a chosen file's header row names, by the engine's own rule (src/shared/import-kinds)
 * and the same parser (csv-parse's browser build): the screen says what the file will do before
 * it is sent. Undefined when the header names no kind or cannot be read; the upload's answer then
 * says why.
 */
export async function kindOfFile(file: Blob): Promise<FileKind | undefined> {
  const head = await file.slice(0, HEAD_BYTES).text();
  try {
    return readHeader((delimiter) => parse(head, headParseOptions(delimiter, 1))[0] ?? []).kind;
  } catch {
    return undefined;
  }
}

/**
 * The files this screen uploaded, by batch, while the page stays open: a reconciliation whose
 * closing was held back is confirmed by sending its own file again, without choosing it anew.
 */
export const sentFiles = new Map<number, File>();
