import { apiFetch, type Credentials } from './client';
import type { CallInput, CallOutput, PosEndpoints } from '../../../shared/api/pos';
import { posRoutes } from '../../../shared/api/pos-routes';
import type { Lane } from '../../../shared/schemas/lanes';
import type { LineInput, LinePatch, Product, Receipt, RefundInput, Register, RegisterReport, Reversal, Sale, Shift, Tender, TenderInput } from '../../../shared/schemas/register';

export type { Lane, Product, Receipt, Register, RegisterReport, Reversal, Sale, Shift, Tender };
/** A line's change as the screen builds it; the call adds the shift. */
export type LineChange = Omit<LinePatch, 'shift'>;
export type ReversalOutcome = CallOutput<PosEndpoints['refund']>;

/** The endpoint's path with its `:name` segments filled, and its query, if any. */
function urlOf(endpoint: { path: string }, params: Record<string, string | number> = {}, query: Record<string, unknown> = {}): string {
  const path = endpoint.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(params[name])));
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) search.set(key, String(value));
  const qs = search.toString();
  return qs ? `${path}?${qs}` : path;
}

/** The register's calls, typed from the endpoint table the server's routes are held to (src/shared/api/pos.ts). */
export function posApi(creds: Credentials) {
  const call = <K extends keyof PosEndpoints>(name: K, input: CallInput<PosEndpoints[K]>): Promise<CallOutput<PosEndpoints[K]>> => {
    const endpoint = posRoutes[name];
    const { params, query, body } = input as { params?: Record<string, string | number>; query?: Record<string, unknown>; body?: unknown };
    return apiFetch(creds, endpoint.method, urlOf(endpoint, params, query), body);
  };
  return {
    lanes: () => call('lanes', {}),
    register: (laneid: string) => call('register', { params: { laneid } }),
    signIn: (laneid: string, code: string) => call('signIn', { body: { laneid, code } }),
    signOut: (shift: string) => call('signOut', { params: { shift } }),
    startSale: (shift: string, line?: LineInput) => call('startSale', { body: { shift, ...(line ? { line } : {}) } }),
    sale: (idOrNumber: string) => call('sale', { params: { sale: idOrNumber } }),
    recentSales: (laneid: string) => call('recentSales', { query: { laneid, limit: 12 } }),
    addLine: (sale: string, shift: string, line: LineInput) => call('addLine', { params: { sale }, body: { shift, ...line } }),
    changeLine: (sale: string, line: number, body: LinePatch) => call('changeLine', { params: { sale, line }, body }),
    voidLine: (sale: string, line: number, shift: string) => call('voidLine', { params: { sale, line }, body: { shift } }),
    tender: (sale: string, input: TenderInput) => call('tender', { params: { sale }, body: input }),
    voidSale: (sale: string, shift: string, approval_code?: string) => call('voidSale', { params: { sale }, body: { shift, ...(approval_code ? { approval_code } : {}) } }),
    refund: (sale: string, input: RefundInput) => call('refund', { params: { sale }, body: input }),
    settle: (sale: string, reversal: number, shift: string, method: 'retry' | 'cash') => call('settle', { params: { sale, reversal }, body: { shift, method } }),
    receipt: (sale: string, options: { reversal?: number; copy?: boolean } = {}) =>
      call('receipt', { params: { sale }, query: { ...(options.reversal ? { reversal: options.reversal } : {}), copy: options.copy ?? false } }),
    products: (q: string) => call('products', { query: { q, limit: 30 } }),
    xReport: (laneid: string) => call('xReport', { params: { laneid } }),
    zClose: (laneid: string, shift: string, confirmEmpty = false) =>
      call('zClose', { params: { laneid }, body: { shift, ...(confirmEmpty ? { confirm_empty: true } : {}) } }),
    cancelOnTerminal: (laneid: string) => call('terminal', { body: { laneid, command: 'Cancel' } }),
    syncStatus: () => call('syncStatus', {}),
  };
}

export type PosApi = ReturnType<typeof posApi>;
