import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fail } from '../errors';

/** The reference's file size limit. */
export const MAX_FILE_BYTES = 25 * 1024 * 1024;
/** What is kept of the file's start to tell its kind before anything is written. */
const HEAD_BYTES = 64 * 1024;

/**
 * A file waiting to be imported stays in the data folder until its batch is done (a restart
 * resumes from it). A credit-card file holds full card numbers, which never rest in clear: every
 * upload is written encrypted (AES-256-CTR) under a key derived from the install's vault key,
 * which lives in the key file, not beside the data.
 */
export interface FileKeys {
  currentId(): string;
  key(id: string): Buffer | undefined;
}

const deriveKey = (vaultKey: Buffer) => createHmac('sha256', vaultKey).update('laneway import file v1').digest();
/**
 * The fingerprint is keyed (HMAC-SHA-256) rather than a plain SHA-256: a card file of one line is
 * a card number, a name and an expiry, and a plain hash of it, beside the wallet's first six and
 * last four digits, gives the number back in seconds of guessing. Keyed, it still tells the same
 * bytes apart on this install (the 24-hour duplicate refusal) and gives nothing to whoever reads it.
 */
const fingerprintKey = (vaultKey: Buffer) => createHmac('sha256', vaultKey).update('laneway import fingerprint v1').digest();

/**
 * What a fingerprint stored before they were keyed becomes: a plain SHA-256 of a card file gives
 * its card number back, so it is replaced by a keyed digest of itself (never matched again: a new
 * upload's fingerprint is of the bytes).
 */
export function rekeyedFingerprint(keys: FileKeys, plain: string): string {
  const vaultKey = keys.key(keys.currentId());
  if (!vaultKey) throw fail.internal('vault_key_missing', 'The vault key is missing');
  return createHmac('sha256', fingerprintKey(vaultKey)).update(`plain sha-256 ${plain}`).digest('hex');
}

export interface ReceivedFile {
  path: string;
  size: number;
  fingerprint: string;
  /** Physical lines, the header's included. */
  lines: number;
  /** The first bytes in clear (in memory only): the header and the first rows. */
  head: Buffer;
  /**
   * The first line holding bytes that are not UTF-8 (a spreadsheet saved in its "ANSI" code page,
   * Windows-1252), or undefined when the whole file is UTF-8. Checked over every byte as it
   * arrives: a file whose first rows are ASCII would otherwise import its later accented names
   * as replacement characters.
   */
  notUtf8Line?: number;
  keyId: string;
  iv: string;
}

export function uploadsDir(dataDir: string): string {
  const dir = join(dataDir, 'imports');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/**
 * Streams an upload to an encrypted file while fingerprinting it (keyed, of the bytes as sent) and
 * counting its lines; over the limit it is refused (413) and the file removed.
 */
export async function receiveFile(source: Readable, path: string, keys: FileKeys, limit = MAX_FILE_BYTES): Promise<ReceivedFile> {
  const keyId = keys.currentId();
  const vaultKey = keys.key(keyId);
  if (!vaultKey) throw fail.internal('vault_key_missing', 'The vault key is missing');
  const iv = randomBytes(16);
  const hash = createHmac('sha256', fingerprintKey(vaultKey));
  let size = 0;
  let lines = 0;
  let last = -1;
  const head: Buffer[] = [];
  let headBytes = 0;
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  let notUtf8Line: number | undefined;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > limit) return done(fail.tooLarge('file_too_large', `The file is over the ${limit / 1024 / 1024} MB limit`));
      hash.update(chunk);
      const linesBefore = lines;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      if (notUtf8Line === undefined) {
        try {
          utf8.decode(chunk, { stream: true });
        } catch {
          notUtf8Line = firstBadLine(chunk, linesBefore);
        }
      }
      last = chunk[chunk.length - 1] ?? last;
      if (headBytes < HEAD_BYTES) {
        head.push(chunk.subarray(0, HEAD_BYTES - headBytes));
        headBytes += Math.min(chunk.length, HEAD_BYTES - headBytes);
      }
      done(null, chunk);
    },
  });
  const out = createWriteStream(path, { mode: 0o600 });
  try {
    await pipeline(source, meter, createCipheriv('aes-256-ctr', deriveKey(vaultKey), iv), out);
  } catch (err) {
    // A source failed at once can reject the pipeline while the file is still being opened: removed
    // then, the open that completes after would leave an empty file behind for good.
    if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
    rmSync(path, { force: true });
    throw err;
  }
  if (size > 0 && last !== 10) lines++;
  if (notUtf8Line === undefined) {
    try {
      utf8.decode();
    } catch {
      notUtf8Line = lines;
    }
  }
  return { path, size, fingerprint: hash.digest('hex'), lines, head: Buffer.concat(head), keyId, iv: iv.toString('hex'), ...(notUtf8Line !== undefined ? { notUtf8Line } : {}) };
}

/**
 * The line (1-based) of the first byte in `chunk` that is not UTF-8, `before` lines having ended
 * ahead of it. A character cut at the chunk's start counts on the line the chunk starts on.
 */
function firstBadLine(chunk: Buffer, before: number): number {
  let line = before + 1;
  // The end of a character the previous chunk began, and the start of one the next chunk ends, are not errors.
  let start = 0;
  while (start < chunk.length && start < 3 && (chunk[start]! & 0xc0) === 0x80) start++;
  for (let i = start; i <= chunk.length; i++) {
    if (i === chunk.length || chunk[i] === 10) {
      const part = chunk.subarray(start, i);
      const cut = i === chunk.length ? [0, 1, 2, 3] : [0];
      if (!cut.some((n) => n <= part.length && isUtf8(part.subarray(0, part.length - n)))) return line;
      line++;
      start = i + 1;
    }
  }
  return before + 1;
}

/** The stored file, decrypted as it is read. */
export function readFile(path: string, keys: FileKeys, keyId: string, iv: string): Readable {
  const vaultKey = keys.key(keyId);
  if (!vaultKey) throw fail.internal('vault_key_missing', `The vault key ${keyId} of this file is gone`);
  const decipher = createDecipheriv('aes-256-ctr', deriveKey(vaultKey), Buffer.from(iv, 'hex'));
  const file = createReadStream(path);
  file.on('error', (err) => decipher.destroy(err));
  return file.pipe(decipher);
}

function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}
