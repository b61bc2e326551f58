import { Type } from '@sinclair/typebox';
import { defineRoute, type AnyRoute } from '../route';
import { exportParams, exportShape } from '../exports';
import { fail } from '../../engine/errors';
import { ErrorBody, GatewayErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import {
  AutopayCreate,
  AutopayLookup,
  AutopayPreview,
  AutopayPreviewQuery,
  AutopayRetrieveResponse,
  AutopayRevoke,
  AutopayUpdate,
  GiftCardLoad,
  GiftCardLoadResponse,
  GiftCardRead,
  GiftCardReadResponse,
  GiftCardView,
  Wallet,
  WalletErrorBody,
  WalletMethodErrorBody,
  WalletExportPage,
  WalletExportQuery,
  WalletMethodPatch,
  WalletMethodRequest,
  WalletRequest,
  WalletResponse,
  WalletSearchQuery,
} from '../../shared/schemas/wallets';

const WALLET_RULES = `A wallet holds a customer's vaulted payment methods. Only the token, brand, BIN, last four and expiry of a card
(routing and last four of a bank account) are kept; a CVV is checked and dropped. In the sandbox only its test cards and accounts can be
vaulted (see the order transaction operations). Adding a card or account a wallet already holds answers its existing fund token.
The card's or account's \`nickname\`, \`locked\`, \`is_default\` and \`is_single_use\` are set as PATCH sets them (also on a method the
wallet already holds); a method made default takes the default from the wallet's other methods.`;

const walletFailure = {
  412: {
    description: 'Precondition failed (reference codes such as customer_not_found, name_unspecified, fund_address_unspecified, payment_method_not_found), or a request failing its schema (validation_failed, with `details`): the wallet shape',
    schema: ref(WalletErrorBody),
  },
  503: { description: 'Production install without a payment processor: methods cannot be vaulted', schema: ref(ErrorBody) },
};
const methodFailure = {
  412: {
    description: 'Precondition failed: the reference\'s `{"error": "<code>"}` (payment_method_not_found, payment_method_inactive, card_expired...), with `code` and `message`. A malformed request has the common error shape.',
    schema: Type.Union([ref(WalletMethodErrorBody), ref(ErrorBody)]),
  },
};

const WalletParams = Type.Object({ wallet_token: Type.String({ minLength: 1, maxLength: 40 }) });
const MethodParams = Type.Object({ wallet_token: Type.String({ minLength: 1, maxLength: 40 }), fund_token: Type.String({ minLength: 1, maxLength: 40 }) });

export const searchWallets = defineRoute({
  method: 'get',
  path: '/api/gateway/v1/wallets/search',
  operationId: 'searchWallets',
  tags: ['Wallets'],
  summary: 'Search wallets by contact email, customer identifier, fund token or vault token',
  query: WalletSearchQuery,
  invalidKind: 'precondition',
  responses: { 200: { description: 'Matching wallets', schema: Type.Object({ wallets: Type.Array(ref(Wallet)) }) }, ...methodFailure },
  async handler({ engine, query }) {
    return { body: { wallets: await engine.wallets.search(query.type, query.locator) } };
  },
});

export const createWallet = defineRoute({
  method: 'post',
  path: '/api/gateway/v1/wallets',
  operationId: 'createWallet',
  tags: ['Wallets'],
  summary: 'Create a wallet, empty or with a payment method (or add one to a known `wallet`)',
  description: `${WALLET_RULES}\n\nAll parts are optional: \`{}\` makes an empty wallet. \`customer\` is an identifier or \`{identifier, name}\`; \`contact\` adds a contact email (searchable).`,
  body: WalletRequest,
  invalidKind: 'precondition',
  responses: { 200: { description: 'The wallet, and the new fund token (null when no method was added)', schema: WalletResponse }, ...walletFailure },
  errorShape: 'wallet',
  async handler({ engine, body }) {
    return { body: await engine.wallets.create(body) };
  },
});

export const viewWallet = defineRoute({
  method: 'get',
  path: '/api/gateway/v1/wallets/:wallet_token',
  operationId: 'viewWallet',
  tags: ['Wallets'],
  summary: 'View a wallet',
  params: WalletParams,
  invalidKind: 'precondition',
  responses: { 200: { description: 'The wallet', schema: Type.Object({ wallets: Type.Array(ref(Wallet)) }) }, ...walletFailure },
  errorShape: 'wallet',
  async handler({ engine, params }) {
    return { body: { wallets: [await engine.wallets.view(params.wallet_token)] } };
  },
});

export const addWalletMethods = defineRoute({
  method: 'post',
  path: '/api/gateway/v1/wallets/:wallet_token/methods',
  operationId: 'addWalletMethods',
  tags: ['Wallets'],
  summary: 'Add a payment method to a known wallet',
  description: WALLET_RULES,
  params: WalletParams,
  body: WalletMethodRequest,
  invalidKind: 'precondition',
  responses: { 200: { description: 'The wallet and the fund token', schema: WalletResponse }, ...walletFailure },
  errorShape: 'wallet',
  async handler({ engine, params, body }) {
    return { body: await engine.wallets.addMethods(params.wallet_token, body) };
  },
});

export const updateWalletMethod = defineRoute({
  method: 'patch',
  path: '/api/gateway/v1/wallets/:wallet_token/methods/:fund_token',
  operationId: 'updateWalletMethod',
  tags: ['Wallets'],
  summary: 'Update a payment method: nickname, lock, expiry, address, bank details',
  description: "A locked method stays visible but cannot pay (`fund_protected`). `is_default: true` takes the default from the wallet's other methods. A card number cannot be changed: add a new card.",
  params: MethodParams,
  body: WalletMethodPatch,
  invalidKind: 'precondition',
  errorShape: 'wallet_method',
  responses: { 200: { description: 'Updated', schema: Type.Object({ fund_token: Type.String() }) }, ...methodFailure },
  async handler({ engine, params, body }) {
    return { body: await engine.wallets.updateMethod(params.wallet_token, params.fund_token, body) };
  },
});

export const removeWalletMethod = defineRoute({
  method: 'delete',
  path: '/api/gateway/v1/wallets/:wallet_token/methods/:fund_token',
  operationId: 'removeWalletMethod',
  tags: ['Wallets'],
  summary: 'Remove a payment method from a wallet',
  description:
    "It no longer shows in the wallet and can no longer pay; past transactions still name its token. An autopay agreement using it stays on without a fund it can charge (`fund_problem: removed` in GET /api/autopay): each due date's sale is refused and listed in the agreement's `last_failures`, and its invoices stay owing, until the agreement is moved to another fund (PUT /api/autopay) or revoked and made again.",
  params: MethodParams,
  invalidKind: 'precondition',
  errorShape: 'wallet_method',
  responses: { 200: { description: 'Removed', schema: Type.Object({ fund_token: Type.String() }) }, ...methodFailure },
  async handler({ engine, params }) {
    return { body: await engine.wallets.removeMethod(params.wallet_token, params.fund_token) };
  },
});

export const exportWallets = defineRoute({
  method: 'get',
  path: '/api/exports/wallets',
  operationId: 'exportWallets',
  tags: ['Wallets'],
  summary: 'Export wallets changed since the watermark',
  description: 'A wallet\'s watermark moves when it or one of its payment methods changes.',
  query: WalletExportQuery,
  responses: { 200: { description: 'Wallets keyed by watermark, or a list', schema: WalletExportPage }, 400: { description: 'Bad query', schema: ref(ErrorBody) }, ...methodFailure },
  async handler({ engine, query }) {
    const p = exportParams(query);
    return { body: { wallets: exportShape(await engine.wallets.exportWallets({ after: p.after, limit: p.limit }), p.list) } };
  },
});

export const exportRecentWallets = defineRoute({
  method: 'get',
  path: '/api/exports/wallets/recent',
  operationId: 'exportRecentWallets',
  tags: ['Wallets'],
  summary: 'Export wallets updated in the past 7 days, since the watermark',
  query: WalletExportQuery,
  responses: { 200: { description: 'Wallets keyed by watermark, or a list', schema: WalletExportPage }, 400: { description: 'Bad query', schema: ref(ErrorBody) }, ...methodFailure },
  async handler({ engine, query }) {
    const p = exportParams(query);
    return { body: { wallets: exportShape(await engine.wallets.exportRecent({ after: p.after, limit: p.limit }), p.list) } };
  },
});

// ---- Autopay ----

const AUTOPAY_RULES = `An agreement lets the service charge a customer's vaulted fund (in a wallet of that customer) on each due date.
Without \`autopay_reference\` it covers the customer's invoices that no specific agreement claims; with references it covers the
invoices whose \`auto_debit_reference\` it lists. Once per local day the due open invoices (auto_debit not N) are charged in one sale per
currency and recorded as an invoicing payment; a decline is tried again the next day while the invoices stay due.
An invoice whose charged money came back is not charged again by autopay: after a refund or void of the sale (for the invoices it put
back owing), a chargeback, or a bank return other than for missing funds. A return for missing funds (R01, R09) is presented again at most
twice, then held. Creating a new agreement for the customer (a new authorization) releases its held invoices.
A new agreement's first run is the next tick (within seconds): it charges at once every covered invoice already due, overdue ones too;
GET /api/autopay/preview says which and how much before it is made. A sale not made (declined, or refused because the fund was removed
or locked) is listed in the agreement's \`last_failures\` until its next run.`;

const autopayFailure = { 412: { description: 'Precondition failed (customer_not_found, payment_method_not_found, fund_not_authorized, autopay_exists, autopay_not_found)', schema: ref(ErrorBody) } };

export const createAutopay = defineRoute({
  method: 'post',
  path: '/api/autopay',
  operationId: 'createAutopay',
  tags: ['Autopay'],
  summary: 'Create an autopay agreement',
  description: AUTOPAY_RULES,
  body: AutopayCreate,
  invalidKind: 'precondition',
  responses: { 201: { description: 'Created: the agreement token', schema: Type.Object({ token: Type.String() }) }, ...autopayFailure },
  async handler({ engine, body }) {
    return { status: 201, body: await engine.autopay.create(body) };
  },
});

export const updateAutopay = defineRoute({
  method: 'put',
  path: '/api/autopay',
  operationId: 'updateAutopay',
  tags: ['Autopay'],
  summary: 'Move a customer\'s agreements from one fund (`token`) to another (`fund_token`)',
  body: AutopayUpdate,
  invalidKind: 'precondition',
  responses: { 201: { description: 'Updated: the new fund token', schema: Type.Object({ token: Type.String() }) }, ...autopayFailure },
  async handler({ engine, body }) {
    return { status: 201, body: await engine.autopay.update(body) };
  },
});

export const retrieveAutopay = defineRoute({
  method: 'get',
  path: '/api/autopay',
  operationId: 'retrieveAutopay',
  tags: ['Autopay'],
  summary: 'Retrieve a customer\'s autopay agreements',
  description:
    '`customer_identifier` in the query (or, as the reference sends it, in a JSON body). Answers 201 like the reference. The top-level fields describe the newest active agreement; `autopays` lists them all.',
  query: AutopayLookup,
  body: AutopayLookup,
  invalidKind: 'precondition',
  responses: { 201: { description: 'The agreements', schema: AutopayRetrieveResponse }, ...autopayFailure },
  async handler({ engine, query, body }) {
    const customer = query.customer_identifier ?? (body as { customer_identifier?: string }).customer_identifier;
    if (!customer) throw fail.precondition('customer_identifier_unspecified', 'customer_identifier is required');
    return { status: 201, body: await engine.autopay.retrieve(customer) };
  },
});

export const previewAutopay = defineRoute({
  method: 'get',
  path: '/api/autopay/preview',
  operationId: 'previewAutopay',
  tags: ['Autopay'],
  summary: 'What creating an autopay agreement would charge at once',
  description:
    "Laneway's own operation (not in the reference API). An agreement made now runs at the next tick and charges, in one sale per currency, every invoice it covers that is due on or before today (the account's time zone), overdue ones too. This answers those sales as that run would make them: the same invoices (auto_debit not N, owing, not claimed by another agreement's references), each for what it owes less an early-payment discount still open today. Held invoices count, because a new agreement releases them. Nothing is charged or stored. `autopay_reference` as the create would send it.",
  query: AutopayPreviewQuery,
  invalidKind: 'precondition',
  responses: { 200: { description: 'The sales a new agreement would make at once (none: nothing is due yet)', schema: ref(AutopayPreview) }, ...autopayFailure },
  async handler({ engine, query }) {
    return { body: await engine.autopay.preview(query) };
  },
});

export const revokeAutopay = defineRoute({
  method: 'post',
  path: '/api/autopay/revoke',
  operationId: 'revokeAutopay',
  tags: ['Autopay'],
  summary: 'Revoke an autopay agreement',
  description: 'The agreement stops charging at once and is no longer listed by retrieve.',
  body: AutopayRevoke,
  invalidKind: 'precondition',
  responses: { 200: { description: 'Revoked', schema: Type.Object({}) }, ...autopayFailure },
  async handler({ engine, body }) {
    await engine.autopay.revoke(body);
    return { body: {} };
  },
});

// ---- Gift cards ----

const giftErrors = {
  500: {
    description: 'Gateway error (invalid_card_number, incorrect_pin, pin_tries_exceeded, pin_check_in_progress, gift_card_mismatch, balance_limit, processor_unavailable), or a malformed request (validation_failed)',
    schema: ref(GatewayErrorBody),
  },
};

export const loadGiftCard = defineRoute({
  method: 'post',
  path: '/api/gateway/v1/gift_card',
  operationId: 'loadGiftCard',
  tags: ['Gift Cards'],
  summary: 'Activate, deactivate and/or load a gift card',
  description:
    'An unknown card number is provisioned (inactive, balance 0) with the expiry and PIN sent. `activated` "true"/"false" activates/deactivates; omitted leaves it. `load_amount_cents` is added to the balance. A card that has a PIN needs it. A gift card pays a sale as `gift_card: {card_number, pin}` or by its token; an inactive card, a wrong PIN or a short balance declines.',
  body: GiftCardLoad,
  errorShape: 'gateway',
  responses: { 200: { description: 'Done, with the resulting balance', schema: GiftCardLoadResponse }, ...giftErrors },
  async handler({ engine, body }) {
    return { body: await engine.giftCards.load(body) };
  },
});

export const readGiftCard = defineRoute({
  method: 'post',
  path: '/api/gateway/v1/gift_card/read',
  operationId: 'readGiftCard',
  tags: ['Gift Cards'],
  summary: 'Read a gift card balance',
  description: 'An unknown card (or another expiry) reads `{balance: 0, activated: false}`. The token pays sales without the number.',
  body: GiftCardRead,
  errorShape: 'gateway',
  responses: { 200: { description: 'Balance', schema: GiftCardReadResponse }, ...giftErrors },
  async handler({ engine, body }) {
    return { body: await engine.giftCards.read(body) };
  },
});

const GiftCardToken = Type.Object({ token: Type.String({ minLength: 1, maxLength: 64 }) });
const PIN_RULES = `Wrong PINs are counted per card: after 3 in a row each further one pauses PIN checks on the card (30 s, doubling, at most an hour), and
the 10th locks its PIN until it is unlocked here. While paused or locked no PIN is checked, not even the right one (a sale declines with
response code 208, a read or load answers \`pin_tries_exceeded\`). The right PIN resets the count. An attempt is counted before its PIN
is checked; a card closed only by attempts still being checked (the same card tried twice at once) answers response code 209,
\`pin_check_in_progress\`: try again in a moment.`;

export const viewGiftCard = defineRoute({
  method: 'get',
  path: '/api/gateway/v1/gift_card/:token',
  operationId: 'viewGiftCard',
  tags: ['Gift Cards'],
  summary: "A gift card by token, for the back office: balance, status and its PIN attempts",
  description: PIN_RULES,
  params: GiftCardToken,
  responses: { 200: { description: 'The gift card (never its number or PIN)', schema: GiftCardView }, 404: { description: 'No such gift card', schema: ref(ErrorBody) } },
  async handler({ engine, params }) {
    return { body: await engine.giftCards.view(params.token) };
  },
});

export const unlockGiftCardPin = defineRoute({
  method: 'post',
  path: '/api/gateway/v1/gift_card/:token/unlock_pin',
  operationId: 'unlockGiftCardPin',
  tags: ['Gift Cards'],
  summary: "Clear a gift card's wrong-PIN count, pause and lock",
  description: `For the back office, once the card holder is known. ${PIN_RULES}`,
  params: GiftCardToken,
  responses: { 200: { description: 'The gift card after the unlock', schema: GiftCardView }, 404: { description: 'No such gift card', schema: ref(ErrorBody) } },
  async handler({ engine, params }) {
    return { body: await engine.giftCards.unlockPin(params.token) };
  },
});

export const walletRoutes: AnyRoute[] = [
  searchWallets,
  createWallet,
  viewWallet,
  addWalletMethods,
  updateWalletMethod,
  removeWalletMethod,
  exportWallets,
  exportRecentWallets,
  createAutopay,
  updateAutopay,
  retrieveAutopay,
  previewAutopay,
  revokeAutopay,
  loadGiftCard,
  readGiftCard,
  viewGiftCard,
  unlockGiftCardPin,
];
