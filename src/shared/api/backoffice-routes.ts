/**
 * Where each call of the back-office screens goes: method and path (Express form), strings only,
 * so the renderer's bundle carries no schema; `backofficeEndpoints` (./backoffice.ts) adds the
 * schemas to these very entries. A section added later (imports, webhooks, settlement) adds its
 * calls here.
 */
export const backofficeRoutes = {
  signIn: { method: 'POST', path: '/api/session' },
  redeemLink: { method: 'POST', path: '/api/session/link' },
  session: { method: 'GET', path: '/api/session' },
  users: { method: 'GET', path: '/api/users' },
  createUser: { method: 'POST', path: '/api/users' },
  updateUser: { method: 'PATCH', path: '/api/users/:id' },
  userLink: { method: 'POST', path: '/api/users/:id/link' },
  search: { method: 'GET', path: '/api/backoffice/search' },
  customers: { method: 'GET', path: '/api/backoffice/customers' },
  customer: { method: 'GET', path: '/api/exports/customer/:identifier' },
  saveCustomer: { method: 'POST', path: '/api/imports/customer' },
  invoices: { method: 'GET', path: '/api/backoffice/invoices' },
  aging: { method: 'GET', path: '/api/backoffice/aging' },
  invoice: { method: 'GET', path: '/api/exports/invoice/:number_or_id' },
  payments: { method: 'GET', path: '/api/backoffice/payments' },
  payment: { method: 'GET', path: '/api/exports/payment/:reference_or_token' },
  recordPayment: { method: 'POST', path: '/api/imports/payment' },
  orders: { method: 'GET', path: '/api/backoffice/orders' },
  order: { method: 'GET', path: '/api/exports/order/:identifier' },
  transaction: { method: 'GET', path: '/api/gateway/v1/transaction/:token_or_reference' },
  capture: { method: 'POST', path: '/api/gateway/v1/orders/capture' },
  void: { method: 'POST', path: '/api/gateway/v1/orders/void' },
  refund: { method: 'POST', path: '/api/gateway/v1/orders/refund' },
  account: { method: 'GET', path: '/api/account' },
  updateAccount: { method: 'PATCH', path: '/api/account' },
  credentials: { method: 'GET', path: '/api/account/credentials' },
  createCredential: { method: 'POST', path: '/api/account/credentials' },
  disableCredential: { method: 'POST', path: '/api/account/credentials/:token/disable' },
} as const satisfies Record<string, { method: 'GET' | 'POST' | 'PATCH'; path: string }>;
