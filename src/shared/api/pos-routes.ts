/**
 * Where each call of the cashier screens goes: method and path (Express form). Only strings, so the
 * renderer's bundle carries no schema; their types come from `posEndpoints` (./pos.ts), which adds
 * the schemas to these very entries.
 */
export const posRoutes = {
  lanes: { method: 'GET', path: '/api/lanes' },
  register: { method: 'GET', path: '/api/pos/registers/:laneid' },
  signIn: { method: 'POST', path: '/api/pos/shifts' },
  signOut: { method: 'POST', path: '/api/pos/shifts/:shift/close' },
  startSale: { method: 'POST', path: '/api/pos/sales' },
  sale: { method: 'GET', path: '/api/pos/sales/:sale' },
  recentSales: { method: 'GET', path: '/api/pos/sales' },
  addLine: { method: 'POST', path: '/api/pos/sales/:sale/lines' },
  changeLine: { method: 'PATCH', path: '/api/pos/sales/:sale/lines/:line' },
  voidLine: { method: 'POST', path: '/api/pos/sales/:sale/lines/:line/void' },
  tender: { method: 'POST', path: '/api/pos/sales/:sale/tenders' },
  voidSale: { method: 'POST', path: '/api/pos/sales/:sale/void' },
  refund: { method: 'POST', path: '/api/pos/sales/:sale/refunds' },
  settle: { method: 'POST', path: '/api/pos/sales/:sale/reversals/:reversal/settle' },
  receipt: { method: 'GET', path: '/api/pos/sales/:sale/receipt' },
  products: { method: 'GET', path: '/api/pos/products' },
  xReport: { method: 'GET', path: '/api/pos/registers/:laneid/x' },
  zClose: { method: 'POST', path: '/api/pos/registers/:laneid/z' },
  terminal: { method: 'POST', path: '/api/gateway/v1/terminal' },
  syncStatus: { method: 'GET', path: '/api/sync/status' },
} as const satisfies Record<string, { method: 'GET' | 'POST' | 'PATCH'; path: string }>;
