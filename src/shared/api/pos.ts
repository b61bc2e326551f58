import type { Static, TSchema } from '@sinclair/typebox';
import { LaneList, TerminalRequest, TerminalResponse } from '../schemas/lanes';
import {
  AddLine,
  LinePatch,
  ProductList,
  ProductQuery,
  Receipt,
  ReceiptQuery,
  RefundInput,
  Register,
  RegisterReport,
  ReversalResult,
  Sale,
  SaleList,
  SaleListQuery,
  SaleStart,
  SettleInput,
  Shift,
  ShiftBody,
  ShiftOpen,
  TenderInput,
  TenderResult,
  VoidInput,
  ZInput,
} from '../schemas/register';

/**
 * The calls the cashier screens make, declared once: method, path (Express form), and the TypeBox
 * schemas of the query, body and success answer. These are the very schema objects the server's
 * routes validate and document with (test/server/renderer-contract.test.ts holds each entry to its
 * route), so a schema change is a compile error in the renderer, not a surprise at the till.
 */
export interface Endpoint {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  query?: TSchema;
  body?: TSchema;
  response: TSchema;
}

export const posEndpoints = {
  lanes: { method: 'GET', path: '/api/lanes', response: LaneList },
  register: { method: 'GET', path: '/api/pos/registers/:laneid', response: Register },
  signIn: { method: 'POST', path: '/api/pos/shifts', body: ShiftOpen, response: Shift },
  signOut: { method: 'POST', path: '/api/pos/shifts/:shift/close', response: Shift },
  startSale: { method: 'POST', path: '/api/pos/sales', body: SaleStart, response: Sale },
  sale: { method: 'GET', path: '/api/pos/sales/:sale', response: Sale },
  recentSales: { method: 'GET', path: '/api/pos/sales', query: SaleListQuery, response: SaleList },
  addLine: { method: 'POST', path: '/api/pos/sales/:sale/lines', body: AddLine, response: Sale },
  changeLine: { method: 'PATCH', path: '/api/pos/sales/:sale/lines/:line', body: LinePatch, response: Sale },
  voidLine: { method: 'POST', path: '/api/pos/sales/:sale/lines/:line/void', body: ShiftBody, response: Sale },
  tender: { method: 'POST', path: '/api/pos/sales/:sale/tenders', body: TenderInput, response: TenderResult },
  voidSale: { method: 'POST', path: '/api/pos/sales/:sale/void', body: VoidInput, response: ReversalResult },
  refund: { method: 'POST', path: '/api/pos/sales/:sale/refunds', body: RefundInput, response: ReversalResult },
  settle: { method: 'POST', path: '/api/pos/sales/:sale/reversals/:reversal/settle', body: SettleInput, response: ReversalResult },
  receipt: { method: 'GET', path: '/api/pos/sales/:sale/receipt', query: ReceiptQuery, response: Receipt },
  products: { method: 'GET', path: '/api/pos/products', query: ProductQuery, response: ProductList },
  xReport: { method: 'GET', path: '/api/pos/registers/:laneid/x', response: RegisterReport },
  zClose: { method: 'POST', path: '/api/pos/registers/:laneid/z', body: ZInput, response: RegisterReport },
  terminal: { method: 'POST', path: '/api/gateway/v1/terminal', body: TerminalRequest, response: TerminalResponse },
} as const satisfies Record<string, Endpoint>;

export type PosEndpoints = typeof posEndpoints;

/** `:name` segments of an Express path, as a union of names. */
export type PathParams<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | PathParams<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

type Part<E, K extends string> = E extends Record<K, infer S extends TSchema> ? Static<S> : undefined;

/** What a call of endpoint E sends: path parameters, query and body, each typed from its schema. */
export type CallInput<E extends Endpoint> = ([PathParams<E['path']>] extends [never]
  ? { params?: undefined }
  : { params: Record<PathParams<E['path']>, string | number> }) &
  (E extends { query: TSchema } ? { query: Partial<Part<E, 'query'>> } : { query?: undefined }) &
  (E extends { body: TSchema } ? { body: Part<E, 'body'> } : { body?: undefined });

/** What a successful call of endpoint E answers. */
export type CallOutput<E extends Endpoint> = Static<E['response']>;
