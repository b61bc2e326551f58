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
import { posRoutes } from './pos-routes';
import { SyncStatus } from '../schemas/sync';

/**
 * The calls the cashier screens make, declared once: method and path (./pos-routes.ts), and the
 * TypeBox schemas of the query, body and success answer. The renderer imports this module for its
 * types only (`import type`), so the schemas stay out of its bundle. These are the very schema objects the server's
 * routes validate and document with (test/server/renderer-contract.test.ts holds each entry to its
 * route), so a schema change is a compile error in the renderer, not a surprise at the till.
 */
export interface Endpoint {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  query?: TSchema;
  body?: TSchema;
  response: TSchema;
}

export const posEndpoints = {
  lanes: { ...posRoutes.lanes, response: LaneList },
  register: { ...posRoutes.register, response: Register },
  signIn: { ...posRoutes.signIn, body: ShiftOpen, response: Shift },
  signOut: { ...posRoutes.signOut, response: Shift },
  startSale: { ...posRoutes.startSale, body: SaleStart, response: Sale },
  sale: { ...posRoutes.sale, response: Sale },
  recentSales: { ...posRoutes.recentSales, query: SaleListQuery, response: SaleList },
  addLine: { ...posRoutes.addLine, body: AddLine, response: Sale },
  changeLine: { ...posRoutes.changeLine, body: LinePatch, response: Sale },
  voidLine: { ...posRoutes.voidLine, body: ShiftBody, response: Sale },
  tender: { ...posRoutes.tender, body: TenderInput, response: TenderResult },
  voidSale: { ...posRoutes.voidSale, body: VoidInput, response: ReversalResult },
  refund: { ...posRoutes.refund, body: RefundInput, response: ReversalResult },
  settle: { ...posRoutes.settle, body: SettleInput, response: ReversalResult },
  receipt: { ...posRoutes.receipt, query: ReceiptQuery, response: Receipt },
  products: { ...posRoutes.products, query: ProductQuery, response: ProductList },
  xReport: { ...posRoutes.xReport, response: RegisterReport },
  zClose: { ...posRoutes.zClose, body: ZInput, response: RegisterReport },
  terminal: { ...posRoutes.terminal, body: TerminalRequest, response: TerminalResponse },
  syncStatus: { ...posRoutes.syncStatus, response: SyncStatus },
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
