import { parse } from 'csv-parse/browser/esm/sync';
import { headParseOptions, readHeader, type FileKind, type HeaderRefusal } from '../../../shared/import-kinds';

/** The start of a file read for its header row, as the engine reads an upload's (its first bytes). */
const HEAD_BYTES = 64 * 1024;

/** What the screen reads of a chosen file before it is sent: the kind it names, or why the upload will be refused. */
export interface ChosenFile {
  /** None when the header names none, cannot be read, or is refused: nothing to act on. */
  kind: FileKind | undefined;
  /** The engine's own refusal of its header row (a column given twice), in the API's words. */
  refusal?: HeaderRefusal;
}

/**
 * The kind a chosen file's header row names, by the engine's own rule (src/shared/import-kinds)
 * and the same parser (csv-parse's browser build): the screen says what the file will do, or why
 * it will be refused, before it is sent. No kind when the header names none or cannot be read;
 * the upload's answer then says why.
 */
export async function kindOfFile(file: Blob): Promise<ChosenFile> {
  const head = await file.slice(0, HEAD_BYTES).text();
  try {
    const { kind, refusal } = readHeader((delimiter) => parse(head, headParseOptions(delimiter, 1))[0] ?? []);
    return refusal ? { kind: undefined, refusal } : { kind };
  } catch {
    return { kind: undefined };
  }
}

/**
 * The files this screen uploaded, by batch, while the page stays open: a reconciliation whose
 * closing was held back is confirmed by sending its own file again, without choosing it anew.
 */
export const sentFiles = new Map<number, File>();
