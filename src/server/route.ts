import type { Static, TSchema } from '@sinclair/typebox';
import type { Request, Response } from 'express';
import type { Engine } from '../engine';
import type { Principal, Scope } from '../engine/account';
import type { ErrorShape } from './errors';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Media types a route's body may come in. JSON only by default: a browser form can post
 * urlencoded, multipart or text/plain across sites without asking first, never JSON. `multipart`
 * is for an operation that uploads a file (the reference's CSV import): such a route declares
 * `multipartBody` and streams the parts itself (busboy); a JSON `body` schema cannot take it.
 */
export type BodyType = 'json' | 'multipart';

export interface Reply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Non-JSON bodies (CSV, PDF, HTML): sent as-is with this content type. */
  contentType?: string;
}

export interface RouteContext<P, Q, B> {
  engine: Engine;
  principal: Principal | null;
  /** The server's configured public base URL (no trailing slash), for links in answers. */
  publicUrl: string;
  params: P;
  query: Q;
  body: B;
  /** Only for the few routes that stream (SSE) or read raw uploads. */
  req: Request;
  res: Response;
}

export interface ResponseSpec {
  description: string;
  schema?: TSchema;
  contentType?: string;
  /** Other media types the same status may answer (a statement as PDF beside its JSON). */
  alsoContent?: Record<string, TSchema>;
  /** Response headers of ours that the answer carries (documented; the handler sets them in its Reply). */
  headers?: Record<string, { description: string; schema: TSchema }>;
}

type StaticOr<T, D> = T extends TSchema ? Static<T> : D;

export interface RouteDef<P extends TSchema | undefined = undefined, Q extends TSchema | undefined = undefined, B extends TSchema | undefined = undefined> {
  method: Method;
  /** Express path, e.g. `/api/exports/customer/:identifier`. */
  path: string;
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  /** Default true: the route needs Basic or Bearer credentials. */
  auth?: boolean;
  /**
   * With `auth: false`: the request carries a secret someone may try to guess (a password, a
   * sign-in link, a pay link's key, a pairing code). Its tries spend the client address's budget
   * whatever credentials come with them: a cashier's session must not buy a guesser ten times the
   * tries. Other open routes (reference data) spend the budget of the credentials sent, if any.
   */
  guessable?: boolean;
  /** The scope the credential must hold (default `api`); see src/engine/account/scopes.ts. */
  scope?: Scope;
  /**
   * The route also serves credentials of a hosted merchant account (src/engine/account/merchant-accounts.ts);
   * by default they are refused, since the install's data is its own account's.
   */
  anyAccount?: boolean;
  /** Media types the body may come in (default JSON only): anything else is 415. */
  bodyTypes?: readonly BodyType[];
  params?: P;
  query?: Q;
  body?: B;
  /**
   * A multipart/form-data upload the handler reads itself from `req` (streamed, never held in
   * memory): the schema documents its parts; nothing is parsed or validated before the handler.
   */
  multipartBody?: TSchema;
  /** Body size limit for this route (default 1mb). */
  bodyLimit?: string;
  /**
   * How a request that fails schema validation is answered. The reference API answers its import
   * operations with 412 Precondition Failed; everything else is 400.
   */
  invalidKind?: 'invalid' | 'precondition';
  /** The reference's own error shape for what the handler throws (see ErrorShape in errors.ts). */
  errorShape?: ErrorShape;
  /** The route writes the response itself (Server-Sent Events). */
  streams?: boolean;
  /**
   * A field sent as null is a field not sent (the engine's rule for import fields): clients
   * generated from the reference often send every field, null where they have no value, and the
   * reference's request schemas are not nullable. Nulls are dropped from the body's objects before
   * validation.
   */
  nullMeansAbsent?: boolean;
  responses: Record<number, ResponseSpec>;
  handler(ctx: RouteContext<StaticOr<P, Record<string, string>>, StaticOr<Q, Record<string, unknown>>, StaticOr<B, unknown>>): Promise<Reply> | Reply;
}

// The handler's parameter types depend on the schemas; the route table stores them erased.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteDef<any, any, any>;

export function defineRoute<P extends TSchema | undefined = undefined, Q extends TSchema | undefined = undefined, B extends TSchema | undefined = undefined>(
  def: RouteDef<P, Q, B>,
): AnyRoute {
  return def as AnyRoute;
}
