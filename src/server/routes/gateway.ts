import { Type } from '@sinclair/typebox';
import { defineRoute, type AnyRoute } from '../route';
import { notFound } from '../../engine/errors';
import type { GatewayAction } from '../../engine/gateway';
import { ErrorBody, GatewayErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { OrderTransaction, TransactionRequest, TransactionResponse } from '../../shared/schemas/gateway';
import { PaymentView, PaymentViewQuery } from '../../shared/schemas/receivables-payments';

/**
 * Order transactions: POST /api/gateway/v1/orders/{verify,auth,capture,sale,void,refund,credit}.
 * The rules are the engine's (src/engine/gateway); this text is what a client reads.
 */
export const GATEWAY_RULES = `
**Payment method**: exactly one of \`fund_token\` (a vaulted card or bank account), \`credit_card\` (an object, or a fund token),
\`bank_account\` (an object, or a fund token), \`gift_card\` (\`{card_number, pin}\` or a gift card token; sales only) or
\`terminal\` (\`{laneid, enable_manual_entry}\`: the card is read on that lane; sale, auth, capture, credit).
A new card or bank account is verified first and, when approved, vaulted: the response's \`wallet\` and \`credit_card\`/\`bank_account\`
are reusable tokens. A card needs \`name\`, expiry, \`cvv\` and \`address\` (else \`fund_address_unspecified\`); its number and CVV
are used once and never stored. A CVV that fails the reference's validations answers its sentence as the error, e.g.
\`"Validation failed: CVV too short (minimum is 3 characters), CVV should be 3 digits"\`; a card past its expiry answers
\`"Validation failed: Credit card gateway token not found"\`.

**Outcome**: HTTP 200 with \`success: true\`, or a *decline*: HTTP 200, \`success: false\`, an integer \`response_code\` (see
GET /api/reference_data/v1/response_codes), the transaction in state \`declined\` with \`gateway_error_code\`/\`gateway_error_message\`
(the processor's decline: \`567.005\`/\`DECLINED\`, response code 999; a failed AVS check: \`gateway_response.errors\`
\`{"gateway": ["Failed AVS Check"]}\`). When a new card fails its verification the one transaction listed is that \`verify\` (for 0).
A request that cannot be carried out (unknown order or transaction, amount over what is left, a void after the cut-off, no payment
method, a body that fails its schema: \`validation_failed\`...) is HTTP 500 \`{"success": false, "errors": ["<code>"], "response_code": 999}\` (250 with
\`order_not_found\`) and records nothing.

**Sandbox processor** (sandbox environment; a production install has no processor and answers \`processor_unavailable\`):
- Cards (any future expiry): Visa 4895281000000006, Mastercard 5541032000004422, Discover 6011000990911111, Amex 341111597242000;
  Visa 4264280001234500 always declines. A number failing its check digit or unknown to the sandbox declines with 211.
- ACH: routing 122105278 with account 0000000016 (settles one processing day later) or 0000000024 (settles, then is returned R01
  three days after its processing day: state \`completed_but_nsfed\` and a settlement exception). EFT: institution 001, transit 00011, same accounts.
- An amount ending in .01 declines; a void whose amount ends in .02 declines.
- Chargebacks: an approved card sale or capture (keyed or on a lane) whose amount ends in .66 is charged back, for what is left after refunds,
  at the cut-off ten processing days after its processing day, reason 10.4 (GET /api/gateway/v1/settlement/exceptions). Move time with the sandbox clock
  (POST /api/sandbox/v1/clock/advance) instead of waiting.
- CVV: 123 P, 234 M, 345 N, 456 S, 567 U; Amex 6789 M, 1011 N, 1213 P; any other M.
- AVS, on the street line \`234 Elm Street\`: 80801 A, 80802 G, 80803 N, 80804 R, 80805 S, 80806 U, 808000000 X (W on another street),
  80809 Y, 80810 Z, 80815 I, 80818 E, K1A0A9 D, L6Y2N4 M, K0K2T0 P; any other zip and address Y. An AVS result of N fails a verify
  (and so a new card's first payment).

**Money**: a capture takes at most what the authorization still reserves (partial captures allowed, default: all of it); a void of an
authorization releases all or part of the reservation; a sale, capture, credit or refund can be voided (whole) only before the cut-off of
its processing day (the account's \`processing_cutoff\` in its \`timezone\`), when its settlement batch is transmitted: after it, void fails
\`void_window_closed\` and a refund is needed. A refund takes at most what was sold or captured minus earlier refunds. A capture, refund or void moves money in its
prior transaction's currency: \`currency\` may be left out or name that currency (any case); naming another is \`currency_mismatch\`. An uncaptured
authorization is released \`authorization_hold_days\` (2..14) after it was made. ACH/EFT sales stay \`in_progress\` until they settle.

**Retries**: a request carrying \`unique_reference\` is idempotent per action and order: repeating it (same amount and payment
method) answers the original transaction and charges nothing; the same reference with a different amount or payment method is
\`duplicate_unique_reference\`. Declines do not hold the reference. Without \`unique_reference\` every request is a new transaction.
\`transaction_reference\` is your free text (a PO number) and never deduplicates: two refunds under one PO are two refunds.
`.trim();

const errors = {
  500: { description: 'Gateway operation error, a malformed request included (`validation_failed`, `invalid_json`): nothing was charged or recorded. `errors` holds a stable code.', schema: ref(GatewayErrorBody) },
};

const ACTIONS: Array<{ path: string; action: GatewayAction; operationId: string; summary: string; extra: string }> = [
  { path: 'verify', action: 'verify', operationId: 'verifyTransaction', summary: 'Verify a card or bank account and get a reusable token', extra: 'No money moves; `amount_cents` defaults to 0. The response carries the wallet and fund tokens.' },
  { path: 'auth', action: 'authorize', operationId: 'authorizeTransaction', summary: 'Authorize: reserve funds on a card', extra: 'Cards and terminals only. Capture it later, or void it.' },
  { path: 'capture', action: 'capture', operationId: 'captureTransaction', summary: 'Capture a prior authorization', extra: 'Send `transaction` (the authorization) and optionally `amount_cents` (default: all that is still reserved). Or, as the reference\'s examples do, `order` alone: its one authorization still holding money (`transaction_unspecified` when it has several, `nothing_to_capture` when none; a card or fund sent beside it is not read: the authorization\'s card is captured).' },
  { path: 'sale', action: 'sale', operationId: 'saleTransaction', summary: 'Sale: charge a card, bank account, gift card or a card on a lane', extra: 'Cards close into the day\'s settlement batch at the cut-off; bank sales stay in_progress until they settle.' },
  { path: 'void', action: 'void', operationId: 'voidTransaction', summary: 'Void a prior transaction', extra: 'Send `transaction`; for an authorization optionally `amount_cents` (default: all still reserved), or `order` alone to void its one authorization still holding money. A financial transaction is voided whole, before its cut-off.' },
  { path: 'refund', action: 'refund', operationId: 'refundTransaction', summary: 'Refund a prior sale or capture (linked return)', extra: 'Send `transaction` and optionally `amount_cents` (default: all still refundable).' },
  { path: 'credit', action: 'credit', operationId: 'creditTransaction', summary: 'Credit: send money to a card or bank account (unlinked return)', extra: '' },
];

export const transactionRoutes: AnyRoute[] = ACTIONS.map((a) =>
  defineRoute({
    method: 'post',
    path: `/api/gateway/v1/orders/${a.path}`,
    operationId: a.operationId,
    tags: ['Order Transactions'],
    summary: a.summary,
    description: `${a.extra}\n\n${GATEWAY_RULES}`,
    body: TransactionRequest,
    errorShape: 'gateway',
    responses: { 200: { description: 'Approved (`success: true`) or declined (`success: false`, `response_code`)', schema: TransactionResponse }, ...errors },
    async handler({ engine, body, principal }) {
      const result = await engine.gateway.transact(a.action, body, principal?.credential ?? null);
      return { body: result.body };
    },
  }),
);

const notFoundReplies = {
  400: { description: 'Malformed token', schema: ref(ErrorBody) },
  404: { description: 'No transaction with that token or unique_reference', schema: ref(ErrorBody) },
};

function viewRoute(path: string, param: string, operationId: string, tags: string[], summary: string): AnyRoute {
  return defineRoute({
    method: 'get',
    path,
    operationId,
    tags,
    summary,
    description: 'Matched against the transaction `token`, then its `unique_reference` (as the client sent it; when several transactions share one, e.g. a sale and its refund, the most recent).',
    params: Type.Object({ [param]: Type.String({ minLength: 1, maxLength: 240 }) }),
    responses: { 200: { description: 'The transaction', schema: ref(OrderTransaction) }, ...notFoundReplies },
    async handler({ engine, params }) {
      const key = (params as Record<string, string>)[param]!;
      const view = await engine.gateway.view(key);
      if (!view) throw notFound('transaction_not_found', `No transaction ${key}`);
      return { body: view };
    },
  });
}

export const transactionViewRoutes: AnyRoute[] = [
  viewRoute('/api/exports/transaction/:token_or_reference', 'token_or_reference', 'viewTransaction', ['Order Transactions'], 'Export/view a transaction'),
  viewRoute('/api/gateway/v1/transaction/:token_or_reference', 'token_or_reference', 'viewGatewayTransaction', ['Order Transactions'], 'View a transaction (alias)'),
  viewRoute('/api/gateway/v1/transactions/:token', 'token', 'viewTransactionDetail', ['Settlement Reporting'], 'View transaction detail (alias)'),
];

export const viewPaymentDetail = defineRoute({
  method: 'get',
  path: '/api/gateway/v1/payments/:token',
  operationId: 'viewPaymentDetail',
  tags: ['Settlement Reporting'],
  summary: 'View invoicing payment detail (alias of GET /api/exports/payment/{reference_or_token})',
  description:
    'The invoicing payment by payment reference or payment transaction token, as the receivables domain records it: the same answer as GET /api/exports/payment/{reference_or_token}, options too (options[export_payment_tree]=true adds payment_tree; options[fx] changes nothing, no currency is converted).',
  params: Type.Object({ token: Type.String({ minLength: 1, maxLength: 240 }) }),
  query: PaymentViewQuery,
  responses: {
    200: { description: 'The payment record', schema: ref(PaymentView) },
    400: { description: 'Malformed token or query', schema: ref(ErrorBody) },
    404: { description: 'No such payment', schema: ref(ErrorBody) },
  },
  async handler({ engine, params, query }) {
    const port = engine.autopay.receivables();
    const payment = port?.viewPayment ? await port.viewPayment(params.token, { tree: query.options?.export_payment_tree === true }) : undefined;
    if (!payment) throw notFound('payment_not_found', `No payment ${params.token}`);
    return { body: payment };
  },
});

export const gatewayRoutes: AnyRoute[] = [...transactionRoutes, ...transactionViewRoutes, viewPaymentDetail];
