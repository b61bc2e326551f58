import { createHash } from 'node:crypto';
import { fail } from '../errors';
import { putRecord } from '../records';
import type { Problems } from './problems';
import type { ReceivablesUnit } from './unit-of-work';
import type { InvoiceDoc } from './types';

export const ATTACHMENT_MAX_BYTES = 25 * 1024 * 1024;
const BASE64_RE = /^[A-Za-z0-9+/]*={0,2}$/;

export interface AttachmentInput {
  file_name: unknown;
  content: unknown;
  invoice_display?: unknown;
}

/**
 * Checks an attachment before anything is stored: base64 text (padded or not), decoded at most
 * 25 MB, a PDF (its header: what the content is decides, not the name), and a file name of at most
 * 255 characters with an extension, without path parts.
 */
export function decodeAttachment(input: AttachmentInput, problems: Problems, prefix = ''): { fileName: string; bytes: Buffer } | undefined {
  const fileName = typeof input.file_name === 'string' ? input.file_name : '';
  if (!fileName) problems.add(`${prefix}file_name`, 'missing_file_name', 'is required');
  else if (fileName.length > 255) problems.add(`${prefix}file_name`, 'file_name_too_long', 'must be at most 255 characters');
  // eslint-disable-next-line no-control-regex
  else if (/[/\\\u0000-\u001f]/.test(fileName) || !/^.+\.[A-Za-z0-9]{1,10}$/.test(fileName)) {
    problems.add(`${prefix}file_name`, 'invalid_file_name', 'must be a file name with an extension, without path separators');
  }
  const content = typeof input.content === 'string' ? input.content.replace(/\s+/g, '') : '';
  if (!content) {
    problems.add(`${prefix}content`, 'missing_content', 'is required (base64 PDF)');
    return undefined;
  }
  const unpadded = content.replace(/=+$/, '');
  if (!BASE64_RE.test(content) || unpadded.length % 4 === 1) {
    problems.add(`${prefix}content`, 'invalid_base64', 'must be base64 text');
    return undefined;
  }
  const decodedSize = Math.floor((unpadded.length * 3) / 4);
  if (decodedSize > ATTACHMENT_MAX_BYTES) {
    throw fail.tooLarge('attachment_too_large', `${prefix}content decodes to ${decodedSize} bytes; the limit is 25 MB (${ATTACHMENT_MAX_BYTES} bytes)`, [{ field: `${prefix}content`, message: 'over 25 MB decoded' }]);
  }
  const bytes = Buffer.from(content, 'base64');
  if (!bytes.subarray(0, 1024).includes('%PDF-')) {
    problems.add(`${prefix}content`, 'not_a_pdf', 'is not a PDF document (no %PDF- header)');
    return undefined;
  }
  return problems.empty ? { fileName, bytes } : undefined;
}

/**
 * Stores an attachment beside the invoice (records kind `invoice_attachment`, never inside the
 * invoice document, so exports stay small) and lists it on the invoice. A primary attachment
 * (invoice_display) becomes the invoice's rendering; the previous primary stays as supplementary.
 * The same file name replaces its earlier version.
 */
export async function attach(s: ReceivablesUnit, invoice: InvoiceDoc, file: { fileName: string; bytes: Buffer }, primary: boolean): Promise<void> {
  const sha256 = createHash('sha256').update(file.bytes).digest('hex');
  // Record keys are bounded (an invoice number and a 255-character name are not): a digest names it.
  const key = createHash('sha256').update(`${invoice.id}\u0000${file.fileName}`).digest('hex').slice(0, 40);
  await putRecord(
    s.tx,
    'invoice_attachment',
    key,
    { invoice: invoice.id, file_name: file.fileName, invoice_display: primary, size: file.bytes.length, sha256, content_base64: file.bytes.toString('base64') },
    { type: 'invoice_attachment.saved', entity: 'invoice_attachment', key, data: { invoice: invoice.id, file_name: file.fileName, size: file.bytes.length } },
    invoice.id,
  );
  const list = invoice.data.attachments.filter((a) => a.file_name !== file.fileName).map((a) => (primary ? { ...a, invoice_display: false } : a));
  list.push({ file_name: file.fileName, invoice_display: primary, size: file.bytes.length, sha256, added_at: s.tx.at });
  invoice.data.attachments = list;
  s.putInvoice(invoice);
}

