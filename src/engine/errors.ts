/**
 * The one error model. Engine code throws EngineError with a stable `code` (what tests and clients
 * assert) and a `kind` (what the HTTP edge maps to a status, in exactly one table:
 * src/server/errors.ts). Messages are for people and may change; codes may not.
 */
export type ErrorKind =
  | 'invalid' // the request is malformed or breaks a field rule
  | 'unauthorized' // no valid credentials
  | 'forbidden' // credentials are valid but the action is not allowed for this resource
  | 'not_found' // the addressed record does not exist
  | 'conflict' // the record already exists
  | 'precondition' // a business precondition failed (the reference API's 412)
  | 'too_large' // body or file over its size limit
  | 'unsupported_media' // a body in a media type or encoding the operation does not take
  | 'rate_limited' // too many requests
  | 'gateway' // a gateway operation could not be carried out (the reference API's 500 + errors[])
  | 'unavailable' // a dependency (device, processor) is not reachable right now
  | 'internal'; // a bug: never carries internals to the client

export interface ErrorDetail {
  field?: string;
  code?: string;
  message: string;
}

export class EngineError extends Error {
  override readonly name = 'EngineError';

  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    /** More fields for the reply's body, where the reference shows some (update_identifier's `importer`). */
    readonly extra?: Record<string, string>,
  ) {
    super(message);
  }
}

export function isEngineError(err: unknown): err is EngineError {
  return err instanceof EngineError;
}

const make =
  (kind: ErrorKind) =>
  (code: string, message: string, details?: ErrorDetail[]): EngineError =>
    new EngineError(kind, code, message, details);

/** Shorthands: `throw fail.invalid('invalid_amount', 'amount must be positive')`. A missing record: `notFound` below. */
export const fail = {
  invalid: make('invalid'),
  unauthorized: make('unauthorized'),
  forbidden: make('forbidden'),
  notFound: make('not_found'),
  conflict: make('conflict'),
  precondition: make('precondition'),
  tooLarge: make('too_large'),
  unsupportedMedia: make('unsupported_media'),
  rateLimited: make('rate_limited'),
  gateway: make('gateway'),
  unavailable: make('unavailable'),
  internal: make('internal'),
};

/**
 * "No such record", said one way everywhere: a code ending in `_not_found`, of kind `not_found`
 * (HTTP 404). Where the reference API answers a missing record otherwise (the gateway's 500 with
 * `order_not_found`, a 412), `kind` says so; the code keeps its shape.
 */
export function notFound(code: `${string}_not_found`, message: string, kind: Extract<ErrorKind, 'not_found' | 'gateway' | 'precondition' | 'forbidden'> = 'not_found'): EngineError {
  return new EngineError(kind, code, message);
}

/** Whether an error says a record does not exist (whatever status its API answers it with). */
export function isNotFound(err: unknown): boolean {
  return isEngineError(err) && err.code.endsWith('_not_found');
}

/**
 * Whether an error says a payment priced against what its invoices owed found them owing something
 * else when it was to be written (receivables' recordPayment with `owing_cents`): nothing was
 * recorded, and the caller gives the money back.
 */
export function isBalanceMoved(err: unknown): boolean {
  return isEngineError(err) && err.kind === 'conflict' && err.code === 'amount_changed';
}
