import { apiFetch, type Credentials } from './client';
import type { Lane, TerminalResponse } from '../../../shared/schemas/lanes';
import type {
  LineInput,
  Product,
  Receipt,
  RefundInput,
  Register,
  RegisterReport,
  Reversal,
  Sale,
  Shift,
  Tender,
  TenderInput,
} from '../../../shared/schemas/register';

export type { Lane, Product, Receipt, Register, RegisterReport, Reversal, Sale, Shift, Tender };
export type TenderOutcome = { sale: Sale; tender: Tender; message: string };
export type ReversalOutcome = { sale: Sale; reversal: Reversal | null; message: string };

const enc = encodeURIComponent;

/** The register's calls, typed from the same schemas the server validates with. */
export function posApi(creds: Credentials) {
  const call = <T>(method: string, path: string, body?: unknown) => apiFetch<T>(creds, method, path, body);
  return {
    lanes: () => call<{ lanes: Lane[] }>('GET', '/api/lanes'),
    register: (laneid: string) => call<Register>('GET', `/api/pos/registers/${enc(laneid)}`),
    signIn: (laneid: string, code: string) => call<Shift>('POST', '/api/pos/shifts', { laneid, code }),
    signOut: (shift: string) => call<Shift>('POST', `/api/pos/shifts/${enc(shift)}/close`),
    startSale: (shift: string, line?: LineInput) => call<Sale>('POST', '/api/pos/sales', { shift, ...(line ? { line } : {}) }),
    sale: (idOrNumber: string) => call<Sale>('GET', `/api/pos/sales/${enc(idOrNumber)}`),
    recentSales: (laneid: string) => call<{ sales: Sale[] }>('GET', `/api/pos/sales?laneid=${enc(laneid)}&limit=12`),
    addLine: (sale: string, shift: string, line: LineInput) => call<Sale>('POST', `/api/pos/sales/${enc(sale)}/lines`, { shift, ...line }),
    changeLine: (sale: string, line: number, body: Record<string, unknown>) => call<Sale>('PATCH', `/api/pos/sales/${enc(sale)}/lines/${line}`, body),
    voidLine: (sale: string, line: number, shift: string) => call<Sale>('POST', `/api/pos/sales/${enc(sale)}/lines/${line}/void`, { shift }),
    tender: (sale: string, input: TenderInput) => call<TenderOutcome>('POST', `/api/pos/sales/${enc(sale)}/tenders`, input),
    voidSale: (sale: string, shift: string, reason?: string) => call<ReversalOutcome>('POST', `/api/pos/sales/${enc(sale)}/void`, { shift, ...(reason ? { reason } : {}) }),
    refund: (sale: string, input: RefundInput) => call<ReversalOutcome>('POST', `/api/pos/sales/${enc(sale)}/refunds`, input),
    settle: (sale: string, number: number, shift: string, method: 'retry' | 'cash') => call<ReversalOutcome>('POST', `/api/pos/sales/${enc(sale)}/reversals/${number}/settle`, { shift, method }),
    receipt: (sale: string, options: { reversal?: number; copy?: boolean } = {}) =>
      call<Receipt>('GET', `/api/pos/sales/${enc(sale)}/receipt?${options.reversal ? `reversal=${options.reversal}&` : ''}copy=${options.copy ? 'true' : 'false'}`),
    products: (q: string) => call<{ products: Product[] }>('GET', `/api/pos/products?q=${enc(q)}&limit=30`),
    xReport: (laneid: string) => call<RegisterReport>('GET', `/api/pos/registers/${enc(laneid)}/x`),
    zClose: (laneid: string, shift: string, confirmEmpty = false) => call<RegisterReport>('POST', `/api/pos/registers/${enc(laneid)}/z`, { shift, ...(confirmEmpty ? { confirm_empty: true } : {}) }),
    cancelOnTerminal: (laneid: string) => call<TerminalResponse>('POST', '/api/gateway/v1/terminal', { laneid, command: 'Cancel' }),
  };
}

export type PosApi = ReturnType<typeof posApi>;
