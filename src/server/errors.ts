import type { ErrorKind } from '../engine/errors';
import { EngineError, fail, isEngineError } from '../engine/errors';
import { operationErrorResponseCode } from '../engine/gateway/reference-data';
import type { GatewayErrorWords } from '../shared/error-header';
import { applicationErrors } from './onboarding-errors';

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
  /** A gateway error's words for people, sent as the GATEWAY_ERROR_HEADER beside the reference's code-only body. */
  words?: GatewayErrorWords;
}

/**
 * Operations whose failures the reference answers in a shape of their own; a route names its shape
 * (RouteDef.errorShape). What its handler throws takes it; a malformed request takes it only for the
 * shapes in SHAPES_FOR_MALFORMED_REQUESTS (the others answer it in the common shape):
 * - `gateway` (the gateway operations that answer `{success, errors, response_code}`: order
 *   transactions, terminal commands, gift card load and read): a malformed request (kind `invalid`:
 *   a body failing its schema, JSON that does not parse) is a gateway operation error too, HTTP 500
 *   `{success: false, errors: [<code>], response_code: 999}`, so a client reading `success`/`errors`
 *   finds it. A `gateway` error is the gateway's on any route, declared or not;
 * - `wallet`: a 412 is `{wallet_token: null, fund_token: null, wallets: {error: <code>}}` plus our
 *   `error`/`code`/`details`, a request failing its schema included (these routes answer it 412);
 * - `wallet_method` (changing or removing one payment method): a 412 is the reference's
 *   `{error: <code>}`, with our `code` and the sentence as `message`;
 * - `message` (a direct message): a 400 carries the reference's `errors: {base: [<sentence>]}`
 *   beside our `error`, which the reference also uses for some of them;
 * - `importer`: a 412 carries, beside our fields, `importer`: the importer's errors as Ruby prints a
 *   hash, e.g. `{:customer=>["not found."]}`.
 * - `ecommerce`: the ecommerce API's (/api/v2) `{message, errors: [{path, message}]}`, for malformed
 *   requests too; a gateway failure there is the shop's bad request (400), not the gateway's 500.
 * - `onboarding`: a 400 is the reference's ApplicationErrorResponse (`address_errors`, `tax_id_errors`,
 *   `field_errors`, see onboarding-errors.ts) plus our `error`/`code`/`details`, for malformed requests too.
 */
export type ErrorShape = 'gateway' | 'wallet' | 'wallet_method' | 'message' | 'importer' | 'ecommerce' | 'onboarding';

/**
 * The shapes a route's failures take before its request is known to be valid (bad JSON, a body or
 * query failing its schema) as well as after: the one place route families choose this. The other
 * shapes are for what the handler throws; a malformed request there has the common shape.
 */
export const SHAPES_FOR_MALFORMED_REQUESTS: ReadonlySet<ErrorShape> = new Set<ErrorShape>(['gateway', 'wallet', 'ecommerce', 'onboarding']);

function importerText(e: EngineError): string {
  const errors: Record<string, string[]> =
    e.code === 'customer_not_found'
      ? { customer: ['not found.'] }
      : Object.fromEntries((e.details ?? [{ field: 'identifier', message: e.message }]).map((d) => [d.field === 'new_identifier' ? 'identifier' : d.field, [`${d.message}.`]]));
  const fields = Object.entries(errors).map(([field, messages]) => `:${field}=>[${messages.map((m) => JSON.stringify(m)).join(', ')}]`);
  return `{${fields.join(', ')}}`;
}

/** Turns anything thrown into a status and a body, in the route's shape. Never a stack trace, never internals. */
export function toErrorReply(err: unknown, shape?: ErrorShape): ErrorReply {
  const thrown: EngineError = isEngineError(err) ? err : new EngineError('internal', 'internal_error', 'Something went wrong on our side. It has been logged.');
  // On a gateway operation a malformed request is one more operation error, answered below as every other.
  const e = shape === 'gateway' && thrown.kind === 'invalid' ? fail.gateway(thrown.code, thrown.message, thrown.details) : thrown;
  const status = STATUS_OF[e.kind];
  if (shape === 'ecommerce' && e.kind !== 'rate_limited') return ecommerceReply(e, status);
  // Exactly the reference's shape: clients build their message from every key they find (an `error`
  // text would be read as a second error).
  // The engine's words go beside it, in a header of ours (GATEWAY_ERROR_HEADER).
  if (e.kind === 'gateway') {
    return { status, body: { success: false, errors: [e.code], response_code: operationErrorResponseCode(e.code) }, words: { error: e.message, code: e.code, ...(e.details ? { details: e.details } : {}) } };
  }
  if (e.kind === 'rate_limited') return { status, body: { error: RATE_LIMIT_TEXT, code: RATE_LIMIT_CODE } };
  const details = e.details ? { details: e.details } : {};
  if (e.kind === 'precondition' && shape === 'wallet') {
    return { status, body: { wallet_token: null, fund_token: null, wallets: { error: e.code }, error: e.message, code: e.code, ...details } };
  }
  if (e.kind === 'invalid' && shape === 'message') return { status, body: { error: e.message, code: e.code, errors: { base: [e.message] }, ...details } };
  if (e.kind === 'precondition' && shape === 'wallet_method') return { status, body: { error: e.code, code: e.code, message: e.message, ...details } };
  if (e.kind === 'invalid' && shape === 'onboarding') return { status, body: { ...applicationErrors(e), error: e.message, code: e.code, ...details } };
  if (e.kind === 'precondition' && shape === 'importer') return { status, body: { error: e.message, code: e.code, ...details, importer: importerText(e) } };
  return { status, body: { error: e.message, code: e.code, ...details, ...(e.extra ?? {}) } };
}

/** `lines.0.price` -> `/lines/0/price` (a JSON pointer, as the reference's error paths are). */
const pointer = (field: string | undefined) => (!field || field === 'body' ? '' : field.startsWith('/') ? field : `/${field.replace(/\./g, '/')}`);

function ecommerceReply(e: EngineError, status: number): ErrorReply {
  const errors = (e.details ?? [{ message: e.message }]).map((d) => ({ path: pointer(d.field), message: d.message }));
  // `code`: the engine's stable code (payment_method_verification_failed...), as the other shapes carry it.
  return { status: e.kind === 'gateway' ? 400 : status, body: { message: e.message, code: e.code, errors } };
}
