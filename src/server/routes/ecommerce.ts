import { Type, type TSchema } from '@sinclair/typebox';
import type { Request } from 'express';
import { defineRoute, type AnyRoute, type ResponseSpec, type RouteDef } from '../route';
import type { Engine } from '../../engine';
import { authorize } from '../../engine/account';
import { EngineError, fail, isEngineError } from '../../engine/errors';
import { SESSION_TTL_MS } from '../../engine/ecommerce';
import { authenticate } from '../auth';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import {
  ApplePayMerchantSession,
  ApplePayValidationRequest,
  Balance,
  BankAccountTokenUpdate,
  CreditCardTokenUpdate,
  EcommerceError,
  EcommercePaymentError,
  EcommerceSettings,
  EcommerceSettingsView,
  FinalizeRequest,
  FundToken,
  OrderId,
  PaymentRequest,
  PaymentResponse,
  SaleRequest,
  SaleResponse,
  SessionId,
  SessionRequest,
  SessionResponse,
  SessionView,
  SimpleRequest,
  TokenRequest,
  TokenResponse,
  WalletId,
  WalletResponse,
} from '../../shared/schemas/ecommerce';

/**
 * The public ecommerce API at /api/v2: the reference's 13 operations (ecommerce-api-2.0.0), paths,
 * camelCase shapes and statuses as it has them, so a shop written for the real service works by
 * changing its base URL. Shop-side operations carry the credentials in the body
 * (`gatewayAuthorization`) or as HTTP Basic; the frame's operations are reached with the session id.
 */
const TAG = 'Ecommerce';
const V2 = '/api/v2';

export const ECOMMERCE_RULES = `A session lives ${SESSION_TTL_MS / 60_000} minutes; after that every operation on it answers 404 (\`session expired\`).
Errors are \`{message, code, errors: [{path, message}]}\` (\`code\` is stable: assert it, not the message); a declined payment is 402 with \`errors[0].response_code\` (the gateway response code)
and \`orderId\` (the order stays, not finalized: add another payment). A sale is an order (a draft until finalized) and each payment a
gateway transaction on it (sale, or authorization when \`capture\` is false, cards only: \`capture: false\` for a gift card or ACH is
400 \`authorization_unsupported\`, nothing charged): they show in order and transaction exports, settlement, events and the back office
like any other. Retries never charge twice: a sale is keyed by session + \`orderNumber\`, a payment by sale + type + token + amount +
capture; a retried payment answers the first answer again, with the same \`transactionId\` (the same payment, charged once). Two entries
of one request's \`payments\` with the same type, token, amount and capture are not a retry: 400 \`duplicate_payment\` naming the second
entry, no order made and nothing charged; send one payment of the sum (a split between cards is separate payments). A card payment's
transaction records \`avs_response\` (the sale's billing address) and \`cvv_response\` (the CVV given at tokenization). A gift card pays at most its balance (\`amount\` in the answer says what was approved; the sale is then
not finalized). The session's \`avsRules\` are applied to the sandbox's AVS answer for the sale's billing address (see the gateway's
sandbox AVS table: street \`234 Elm Street\`, zip 80803 gives N...).`;

const err = (description: string): ResponseSpec => ({ description, schema: ref(EcommerceError) });
const common = {
  400: err('Bad input parameter'),
  403: { description: 'Refused (this session does not allow it), or a request from a web page on another site', schema: Type.Union([ref(EcommerceError), ref(ErrorBody)]) },
  413: err('Body over the size limit'),
  415: err('A body that is not JSON'),
};
const notFound = err('The session (or the sale, wallet entry or token it names) was not found, or the session expired');
const unauthorized = err('Gateway authentication error: gatewayAuthorization (or HTTP Basic) missing or invalid');
const declined = { description: 'Payment declined', schema: ref(EcommercePaymentError) };

const Sid = Type.Object({ id: SessionId });
const SidSale = Type.Object({ id: SessionId, saleid: OrderId });
const WalletEntry = (param: string) => Type.Object({ id: SessionId, walletid: WalletId, [param]: FundToken });

/** The credential of a shop-side call: `gatewayAuthorization` in the body, else HTTP Basic (or a JWT). */
async function actorOf(engine: Engine, req: Request, body: { gatewayAuthorization?: { apiToken: string; apiKey: string } | undefined }): Promise<string> {
  const auth = body.gatewayAuthorization;
  let principal = auth ? engine.account.credentials.verifyBasic(auth.apiToken, auth.apiKey) : null;
  if (!auth && req.headers.authorization) principal = await authenticate(engine, req).catch(() => null);
  if (!principal) throw fail.unauthorized('unauthorized', 'Gateway authentication failed: send gatewayAuthorization {apiToken, apiKey} (or HTTP Basic) with valid credentials');
  authorize(principal, 'api');
  // The route gate's rule (app.ts), which these open routes skip: a hosted merchant account's key
  // is an identity only, never a way to sell on this install's account.
  if (principal.account) throw fail.forbidden('account_not_hosted', 'This merchant account\'s credentials reach GET /api/whoami only: its data is not hosted on this install yet');
  return principal.credential;
}

/** The wallet operations answer bad input as the reference does (400), not as the wallets API (412). */
async function as400<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (isEngineError(e) && e.kind === 'precondition') throw new EngineError('invalid', e.code, e.message, e.details);
    throw e;
  }
}

/** An operation of the reference: open to all (credentials, when needed, are checked in the handler), answering in its error shape. */
function route<P extends TSchema | undefined = undefined, B extends TSchema | undefined = undefined>(def: Omit<RouteDef<P, undefined, B>, 'tags'>): AnyRoute {
  // A web shop's sale carries its cart: more than the 64 KB other open routes take.
  return defineRoute<P, undefined, B>({ bodyLimit: '256kb', ...def, tags: [TAG], auth: false, errorShape: 'ecommerce' });
}

const walletEntryRoutes = (kind: 'credit_card' | 'bank_account'): AnyRoute[] => {
  const segment = kind === 'credit_card' ? 'creditcards' : 'bankaccounts';
  const param = kind === 'credit_card' ? 'creditcardid' : 'bankaccountid';
  const label = kind === 'credit_card' ? 'CreditCard' : 'BankAccount';
  const path = `${V2}/sessions/:id/wallet/:walletid/${segment}/:${param}`;
  const responses = { 202: { description: 'The wallet has been updated' }, ...common, 404: notFound };
  return [
    route({
      method: 'patch',
      path,
      operationId: `updateWallet${label}`,
      summary: `update a ${kind.replace('_', ' ')} wallet entry`,
      description: 'Called by the frame. Needs the session\'s `wallet.allowEdit`; 403 otherwise.',
      params: WalletEntry(param),
      body: kind === 'credit_card' ? CreditCardTokenUpdate : BankAccountTokenUpdate,
      responses,
      async handler({ engine, params, body }) {
        const p = params as Record<string, string>;
        await as400(() => engine.ecommerce.updateWalletMethod(p.id!, p.walletid!, p[param]!, kind, body as CreditCardTokenUpdate));
        return { status: 202 };
      },
    }),
    route({
      method: 'delete',
      path,
      operationId: `deleteWallet${label}`,
      summary: `remove a ${kind.replace('_', ' ')} wallet entry`,
      description: 'Called by the frame. Needs the session\'s `wallet.allowDelete`; 403 otherwise. The entry is kept, inactive, so past transactions still name it.',
      params: WalletEntry(param),
      responses,
      async handler({ engine, params }) {
        const p = params as Record<string, string>;
        await as400(() => engine.ecommerce.deleteWalletMethod(p.id!, p.walletid!, p[param]!, kind));
        return { status: 202 };
      },
    }),
  ];
};

export const ecommerceRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: `${V2}/sessions`,
    operationId: 'createSession',
    summary: 'create a session',
    description: `Options shape the frame: \`paymentTypes\` (creditCard, ach, giftCard, applePay; labels, promoted, fields), \`avsRules\`, \`wallet\`
(id or customerId; tokens, allowAdd, allowEdit, allowDelete, saveByDefault). Laneway adds \`amount\`: with it a gift card short of it is a
partial payment in the frame; it must be more than zero with no more decimals than the account's currency (400 naming \`/options/amount\`).\n\n${ECOMMERCE_RULES}`,
    body: SessionRequest,
    responses: { 201: { description: 'The session has been created', schema: SessionResponse }, ...common, 401: unauthorized },
    async handler({ engine, req, body }) {
      const actor = await actorOf(engine, req, body);
      return { status: 201, body: await engine.ecommerce.createSession(body.options, actor) };
    },
  }),
  route({
    method: 'get',
    path: `${V2}/sessions/:id`,
    operationId: 'getSessionById',
    summary: 'get a session',
    description: 'The session\'s options, for the frame: payment types with labels, and the wallet\'s cards and bank accounts (last four, never a number).',
    params: Sid,
    responses: { 200: { description: 'The session was found', schema: ref(SessionView) }, ...common, 404: notFound },
    async handler({ engine, params }) {
      return { body: await engine.ecommerce.session(params.id) };
    },
  }),
  route({
    method: 'post',
    path: `${V2}/sessions/:id/tokens`,
    operationId: 'getToken',
    summary: 'get a token',
    description: `Called by the frame only (a request from a page on another site is refused). The card or account number is used once to
vault the method (brand, last four, fingerprint) and is never stored, logged or echoed. 412: the payment method failed verification (Luhn,
expiry, unknown to the sandbox, CVV, the issuer declining the card: the sandbox's always-declining Visa, code
\`payment_method_verification_failed\`, wrong gift card PIN), \`errors[0].path\` naming the request's field. \`cardVerificationValue\`,
optional in the reference, is required here: without it 412 \`cvv_required\` (\`/cardVerificationValue\`). 403: the session does not
take that payment type.`,
    params: Sid,
    body: TokenRequest,
    responses: {
      201: { description: 'The token was created', schema: TokenResponse },
      ...common,
      404: notFound,
      412: err('Payment method verification failed'),
      500: err('Internal server error'),
      503: err('No payment processor: a production install cannot tokenize'),
    },
    async handler({ engine, params, body }) {
      return { status: 201, body: await engine.ecommerce.createToken(params.id, body) };
    },
  }),
  route({
    method: 'post',
    path: `${V2}/wallets`,
    operationId: 'createEcommerceWallet',
    summary: 'create a wallet for a known user',
    description: 'The reference\'s createWallet (named apart from the wallets API\'s own createWallet).',
    body: SimpleRequest,
    responses: { 201: { description: 'The wallet has been created', schema: WalletResponse }, ...common, 401: unauthorized },
    async handler({ engine, req, body }) {
      await actorOf(engine, req, body);
      return { status: 201, body: await as400(() => engine.ecommerce.createWallet()) };
    },
  }),
  ...walletEntryRoutes('credit_card'),
  ...walletEntryRoutes('bank_account'),
  route({
    method: 'post',
    path: `${V2}/sessions/:id/sales`,
    operationId: 'createSale',
    summary: 'process a sale',
    description: `Creates the order (lines in decimal currency units) and takes \`payment\` (or each of \`payments\`). Approved in full: the
order is finalized. Without a payment it is not: add payments, then PATCH to finalize. Each line's amount (price x quantity less its
discount) and the sale's total (lines, shipping and tax less the discount) must be at most 99,999,999,999 minor units either way, what
an order holds (999,999,999.99 in a currency of two decimals): else 400 naming \`/lines/{i}\` or \`/lines\`, nothing recorded. One payment
takes at most 999,999,999 minor units (one gateway transaction; 400 naming its \`amount\`): a larger sale is paid in several.\n\n${ECOMMERCE_RULES}`,
    params: Sid,
    body: SaleRequest,
    responses: { 201: { description: 'The order has been created', schema: ref(SaleResponse) }, ...common, 401: unauthorized, 402: declined, 404: notFound },
    async handler({ engine, req, params, body }) {
      const actor = await actorOf(engine, req, body);
      const outcome = await engine.ecommerce.createSale(params.id, body, actor);
      return { status: outcome.status, body: outcome.body };
    },
  }),
  route({
    method: 'patch',
    path: `${V2}/sessions/:id/sales/:saleid`,
    operationId: 'finalizeSale',
    summary: 'update a sale',
    description: 'Finalizes the order: it is published (exports of published orders, the ERP) and takes no more payments.',
    params: SidSale,
    body: FinalizeRequest,
    responses: { 202: { description: 'The order has been updated', schema: ref(SaleResponse) }, ...common, 401: unauthorized, 404: notFound },
    async handler({ engine, req, params, body }) {
      await actorOf(engine, req, body);
      return { status: 202, body: await engine.ecommerce.finalizeSale(params.id, params.saleid) };
    },
  }),
  route({
    method: 'post',
    path: `${V2}/sessions/:id/sales/:saleid/payments`,
    operationId: 'createPayment',
    summary: 'process a payment',
    description: 'One more payment on an existing, not finalized sale.',
    params: SidSale,
    body: PaymentRequest,
    responses: { 201: { description: 'The payment has been created', schema: ref(PaymentResponse) }, ...common, 401: unauthorized, 402: declined, 404: notFound },
    async handler({ engine, req, params, body }) {
      const actor = await actorOf(engine, req, body);
      const { gatewayAuthorization: _a, ...payment } = body;
      const outcome = await engine.ecommerce.addPayment(params.id, params.saleid, payment, actor);
      return { status: outcome.status, body: outcome.body };
    },
  }),
  route({
    method: 'get',
    path: `${V2}/sessions/:id/balance/:giftcardid`,
    operationId: 'getGiftCardBalance',
    summary: 'check the balance of a payment method fund token',
    description: 'Gift card tokens made on this session only; any other token is 404.',
    params: Type.Object({ id: SessionId, giftcardid: FundToken }),
    responses: { 200: { description: 'The balance was retrieved.', schema: Balance }, ...common, 404: notFound },
    async handler({ engine, params }) {
      return { body: await engine.ecommerce.giftCardBalance(params.id, params.giftcardid) };
    },
  }),
  route({
    method: 'post',
    path: `${V2}/sessions/:id/applepay-validatemerchant`,
    operationId: 'validateApplePayMerchant',
    summary: 'Validate Apple Pay merchant',
    description: `A production install answers 400: Apple Pay needs a merchant identity certificate from Apple, which this install does not
have. The sandbox answers a **simulated** merchant session (the fields Apple answers, \`pspId\` LANEWAYSANDBOX, a signature that is not
Apple's) so a shop's Apple Pay code path can be exercised; no real Apple Pay sheet accepts it.`,
    params: Sid,
    body: ApplePayValidationRequest,
    responses: { 200: { description: 'Merchant validation successful (sandbox: simulated).', schema: ApplePayMerchantSession }, ...common, 404: notFound },
    async handler({ engine, params, body }) {
      return { body: await engine.ecommerce.applePayMerchantSession(params.id, body) };
    },
  }),
];

/**
 * The account setting behind the frame's frame-ancestors (Laneway's own operations, with
 * credentials), answered with what the sandbox allows besides it and the script URL a shop's page
 * loads: the back office's Payment frame screen shows both without knowing either rule.
 */
const settingsView = async (engine: Engine, settings: { allowedOrigins: string[] }, publicUrl: string) => ({
  allowedOrigins: settings.allowedOrigins,
  sandboxOrigins: engine.ecommerce.sandboxOrigins(),
  // Without a public URL (an app made in-process) the path alone: a page resolves it against its own address.
  clientScriptUrl: `${publicUrl}/client.js`,
});

export const ecommerceSettingsRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/api/ecommerce/settings',
    operationId: 'getEcommerceSettings',
    tags: [TAG],
    summary: 'Origins allowed to show the payment frame',
    responses: { 200: { description: 'The setting', schema: ref(EcommerceSettingsView) } },
    async handler({ engine, publicUrl }) {
      return { body: await settingsView(engine, await engine.ecommerce.settings(), publicUrl) };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/ecommerce/settings',
    operationId: 'putEcommerceSettings',
    tags: [TAG],
    summary: 'Set the origins allowed to show the payment frame',
    description: 'The frame\'s Content-Security-Policy `frame-ancestors`. The sandbox always allows http(s)://localhost:* besides these.',
    body: EcommerceSettings,
    responses: { 200: { description: 'The setting as stored', schema: ref(EcommerceSettingsView) } },
    async handler({ engine, body, publicUrl }) {
      return { body: await settingsView(engine, await engine.ecommerce.setSettings(body), publicUrl) };
    },
  }),
];

export const allEcommerceRoutes: AnyRoute[] = [...ecommerceRoutes, ...ecommerceSettingsRoutes];
