import type { Request } from 'express';
import { fail, isEngineError } from '../engine/errors';
import type { BodyType } from './route';

/** What counts as a JSON body. */
export const JSON_TYPES = ['application/json', 'application/*+json', 'text/json'];
const TYPES_OF: Record<BodyType, string[]> = { json: JSON_TYPES, multipart: ['multipart/form-data'] };

/**
 * How deep a body may nest before it is refused unread. No operation's shape goes past a dozen
 * levels (free-form attributes are capped at 16 by the engine); the code that walks a body
 * (null-stripping, validation) recurses, and a few thousand levels would overflow its stack.
 */
export const MAX_BODY_DEPTH = 64;

/**
 * A body must come in one of the route's media types: 415 otherwise. A request without a body
 * (no length, no chunks) passes: `POST .../disable` needs none.
 */
export function checkBodyType(req: Request, types: readonly BodyType[]): void {
  const length = req.headers['content-length'];
  const hasBody = req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  if (!hasBody) return;
  const accepted = types.flatMap((t) => TYPES_OF[t]);
  if (req.headers['content-type'] && req.is(accepted)) return;
  throw fail.unsupportedMedia(
    'unsupported_media_type',
    `This operation takes a body of type ${accepted.filter((t) => !t.includes('*')).join(' or ')} (Content-Type: ${req.headers['content-type']?.slice(0, 100) ?? 'none'})`,
  );
}

/**
 * Fields one object of a body may have. No schema here has more than a few dozen; a map keyed by
 * position (the reference's `{"0": {...}, "1": {...}}` lists) or by name (attributes) stays well
 * under it. An object of 400,000 fields in a 5 MB body otherwise kept the server busy for seconds
 * per request (every later step walks it, and validation reports each unknown field).
 */
export const MAX_OBJECT_KEYS = 10_000;

/**
 * Refuses a value nested deeper than `max` (objects and arrays), or an object with more than
 * `maxKeys` fields, without recursing; before any other step reads the body.
 */
export function checkDepth(value: unknown, max: number, kind: 'invalid' | 'precondition', maxKeys = MAX_OBJECT_KEYS): void {
  const refuse = kind === 'precondition' ? fail.precondition : fail.invalid;
  let level: unknown[] = [value];
  for (let depth = 0; level.length > 0; depth++) {
    const next: unknown[] = [];
    for (const v of level) {
      if (v === null || typeof v !== 'object') continue;
      if (depth >= max) throw refuse('nesting_too_deep', `Request body nests deeper than ${max} levels`);
      const children = Array.isArray(v) ? v : Object.values(v);
      if (!Array.isArray(v) && children.length > maxKeys) throw refuse('too_many_fields', `An object of the request body has more than ${maxKeys} fields`);
      for (const child of children) if (child !== null && typeof child === 'object') next.push(child);
    }
    level = next;
  }
}

// A UTF-16 surrogate that is not half of a pair (JSON's `\ud800` escape), or a NUL character.
// eslint-disable-next-line no-control-regex
const BROKEN_TEXT = /[\ud800-\udfff\u0000]/u;

/**
 * Text that is not Unicode (a lone surrogate, sent as a `\udXXX` escape) or holds a NUL is refused
 * before anything stores it: exports repeat it in every page that holds the record, and strict
 * parsers (Rust's serde_json, Go's encoding/json replaces it, C strings stop at NUL) then fail or
 * change the whole page, not just the one field. Keys are checked as well as values.
 */
export function checkText(value: unknown, kind: 'invalid' | 'precondition'): void {
  const refuse = () => (kind === 'precondition' ? fail.precondition : fail.invalid)('invalid_text', 'Request body holds text that is not valid Unicode (a lone surrogate escape such as \\ud800) or a NUL character');
  if (typeof value === 'string' && BROKEN_TEXT.test(value)) throw refuse();
  // Objects and arrays are stacked, text is read where it is met: an array of a million numbers
  // is one walk, not a million pushes.
  const stack: unknown[] = [value];
  const visit = (child: unknown) => {
    if (typeof child === 'string') {
      if (BROKEN_TEXT.test(child)) throw refuse();
    } else if (child !== null && typeof child === 'object') stack.push(child);
  };
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) for (const child of v) visit(child);
    else
      for (const [k, child] of Object.entries(v)) {
        if (BROKEN_TEXT.test(k)) throw refuse();
        visit(child);
      }
  }
}

/**
 * JSON.parse keeps a `__proto__` key as a plain field, but any copy made with `out[key] = v` turns
 * it into the copy's prototype: its fields are then read by the rules as if sent, and missed by
 * every walk over own keys (card-number masking among them). No schema has such a field: it goes.
 */
export function dropPrototypeKeys(value: unknown): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Object.hasOwn(v, '__proto__')) delete (v as Record<string, unknown>)['__proto__'];
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === 'object') stack.push(child);
  }
}

interface HttpishError {
  type?: string;
  status?: number;
  limit?: number;
  code?: string;
}

/**
 * Errors raised below the routes (body-parser, the router's and the static files' path decoding)
 * become engine errors, so they get the one error shape and status table. A 4xx from them is
 * the client's mistake and stays a 4xx; only the unknown is 500.
 */
export function httpError(err: unknown): unknown {
  if (isEngineError(err)) return err;
  const e = (err ?? {}) as HttpishError;
  if (e.type === 'entity.too.large') return fail.tooLarge('payload_too_large', `Request body is over the ${e.limit ? `${e.limit} byte` : ''} limit for this operation`);
  if (e.type === 'entity.parse.failed') return fail.invalid('invalid_json', 'Request body is not valid JSON');
  if (e.type === 'charset.unsupported') return fail.unsupportedMedia('unsupported_charset', 'Request body must be UTF-8 JSON');
  if (e.type === 'encoding.unsupported') return fail.unsupportedMedia('unsupported_encoding', 'Unsupported Content-Encoding (identity, gzip, deflate or br)');
  // Content-Encoding says gzip (or deflate, br) but the body does not decompress: zlib's codes.
  if (typeof e.code === 'string' && e.code.startsWith('Z_')) return fail.invalid('invalid_body_encoding', 'Request body does not decompress as its Content-Encoding says');
  if (err instanceof URIError) return fail.invalid('invalid_path_encoding', 'The path is not valid percent-encoded UTF-8');
  switch (typeof e.status === 'number' ? e.status : 0) {
    case 400:
      return fail.invalid('bad_request', 'The request is malformed (a path not valid percent-encoded UTF-8, or a body cut short)');
    case 404:
      return fail.notFound('not_found', 'Not found');
    case 413:
      return fail.tooLarge('payload_too_large', 'Request body is over the limit for this operation');
    case 415:
      return fail.unsupportedMedia('unsupported_media_type', 'Unsupported media type or encoding');
    default:
      return err;
  }
}
