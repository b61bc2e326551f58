import type { ErrorKind } from '../engine/errors';
import { EngineError, isEngineError } from '../engine/errors';
import { operationErrorResponseCode } from '../engine/gateway/reference-data';

/** The one mapping from engine error kinds to HTTP statuses (the spec's Errors table). */
export const STATUS_OF: Record<ErrorKind, number> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  precondition: 412,
  too_large: 413,
  unsupported_media: 415,
  rate_limited: 429,
  gateway: 500,
  unavailable: 503,
  internal: 500,
};

export const RATE_LIMIT_CODE = 1015;
export const RATE_LIMIT_TEXT = 'you are being rate limited';
/** What the reference's sandbox answers a request without valid credentials. */
export const UNAUTHORIZED_TEXT = 'Please log in or create an account to continue.';

export interface ErrorReply {
  status: number;
  body: Record<string, unknown>;
}

/** Turns anything thrown into a status and a body. Never a stack trace, never internals. */
export function toErrorReply(err: unknown): ErrorReply {
  const e: EngineError = isEngineError(err) ? err : new EngineError('internal', 'internal_error', 'Something went wrong on our side. It has been logged.');
  const status = STATUS_OF[e.kind];
  // Exactly the reference's shape: clients build their message from every key they find (an `error`
  // text would be read as a second error).
  if (e.kind === 'gateway') return { status, body: { success: false, errors: [e.code], response_code: operationErrorResponseCode(e.code) } };
  if (e.kind === 'rate_limited') return { status, body: { error: RATE_LIMIT_TEXT, code: RATE_LIMIT_CODE } };
  return { status, body: { error: e.message, code: e.code, ...(e.details ? { details: e.details } : {}), ...(e.extra ?? {}) } };
}
