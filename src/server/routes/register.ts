import { Type } from '@sinclair/typebox';
import { defineRoute, type AnyRoute } from '../route';
import { requestLocale } from '../locale';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import {
  AddLine,
  Cashier,
  CashierCreate,
  CashierParams,
  CashierPatch,
  CashierWithCode,
  LineParams,
  LinePatch,
  Product,
  ProductCreate,
  ProductList,
  ProductParams,
  ProductPatch,
  ProductQuery,
  Receipt,
  ReceiptQuery,
  RefundInput,
  Register,
  RegisterParams,
  RegisterReport,
  RegisterSettings,
  ReversalParams,
  ReversalResult,
  Sale,
  SaleList,
  SaleListQuery,
  SaleParams,
  SaleStart,
  SettingsPatch,
  SettleInput,
  Shift,
  ShiftBody,
  ShiftOpen,
  ShiftParams,
  TenderInput,
  TenderResult,
  VoidInput,
  ZInput,
  ZList,
  ZParams,
} from '../../shared/schemas/register';

/**
 * The point of sale under /api/pos. The rules are the engine's (src/engine/register); this text is
 * what a client (the cashier screens, or an integration) reads.
 */
export const POS_RULES = `
**Cashiers and shifts**: a cashier signs in on a lane with their code (POST /api/pos/shifts) and gets a \`shift\` id, sent as \`shift\`
with every register call: it names the cashier and the lane, and is recorded on each sale, tender, refund and report. One shift per
lane: a new sign-in ends the previous one. Five wrong codes within an hour on a lane pause sign-in there for 30 seconds; each
further five pause it twice as long, up to 15 minutes (a right code in between does not clear the count).

**Sales**: a sale is a draft order (\`order\` = the sale id, \`order_items\` in the reference's shape) plus the register's record; the
order is published when the sale is fully paid. Lines come from the catalog (by code or barcode; a scanner's \`3*CODE\` sells 3) or
are open-price items. Prices are before tax. Each line: gross = unit price × quantity; discount (percent, rounded half up to the
cent, or an amount); net = gross − discount; **tax = net × the line's rate, in integer cents, rounded half up, per line**; total =
net + tax. The sale's tax is the sum of its lines' taxes. A price override needs a reason. Lines can change until the first payment;
after that, finish paying or void the sale.

**Tenders**: card (on the lane's terminal), cash (amount handed over; change given back), cheque (its number), gift card and the
shop's other tenders (settings). Split tender: pay part of the balance with each until nothing is due. Only cash may exceed the
balance; cash far above it (ten times or more, and change of 100 or more) needs \`confirm_change\`. Amounts in messages are written
in the request's Accept-Language locale. The drawer opens (event \`drawer.opened\`) for cash tenders and cash refunds only. A card tender's request stays open while
the customer pays at the terminal; follow the device with \`lane.status\` events on /api/events, cancel with the terminal command
\`Cancel\`. A declined or failed card is recorded on the sale (nothing charged) and the answer says what to do next.

**Voids and refunds**: an open sale is voided with whatever was paid so far going back; a paid sale with no refunds can be voided
while its card payments are still voidable (same processing day, before the cut-off or the day's Z), otherwise refunded. A refund
returns lines (or units of lines); the money goes back to the tenders the sale was paid with, the last tender first, each up to what
it paid: cards and gift cards through the gateway (void when the whole payment goes back the same day, else refund), cash from the
drawer, cheque and other tenders recorded for the shop to settle. A part the gateway refuses leaves the refund \`incomplete\`:
settle it by retrying or in cash.

**Reports**: X = the lane's totals since its last Z (by tender, by cashier, taxes; nothing changes). Z = those totals recorded as
closed, the lane's next period begins, then the processing day's card batch closes now (for the whole account).
`.trim();

const TAGS = ['Point of sale'];
const err = (description: string) => ({ description, schema: ref(ErrorBody) });
const shiftErrors = { 403: err('The shift is unknown or has ended (`shift_not_found`, `shift_closed`): the cashier signs in again') };
const notFound = (what: string) => ({ 404: err(what) });
const precondition = (what: string) => ({ 412: err(what) });
const conflict = (what: string) => ({ 409: err(what) });

/**
 * The register's bodies are small (a line, a tender, a refund of its sale's lines: under 20 KB by
 * their schemas) and a cashier's session reaches them: a larger body is refused before it is read.
 */
const REGISTER_BODY_LIMIT = '64kb';

export const registerRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/api/pos/settings',
    operationId: 'getPosSettings',
    tags: TAGS,
    summary: 'Register settings: accepted tenders, other tender names, keyed card entry, default tax rate, receipt footer',
    responses: { 200: { description: 'Settings', schema: ref(RegisterSettings) } },
    handler: ({ engine }) => ({ body: engine.register.settings() }),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/pos/settings',
    operationId: 'updatePosSettings',
    tags: TAGS,
    summary: 'Change the register settings',
    body: SettingsPatch,
    responses: { 200: { description: 'Settings', schema: ref(RegisterSettings) } },
    async handler({ engine, body }) {
      return { body: await engine.register.updateSettings(body) };
    },
  }),

  // ---- catalog ----
  defineRoute({
    method: 'get',
    path: '/api/pos/products',
    operationId: 'listPosProducts',
    tags: TAGS,
    summary: 'Search the product catalog',
    description: 'Active products by description, a page at a time (`limit`; the next page with `after` = the answer\'s `next`); `q` matches words in the description, code, barcode or category.',
    query: ProductQuery,
    responses: { 200: { description: 'Products', schema: ProductList }, 400: err('Invalid query') },
    async handler({ engine, query }) {
      return { body: await engine.register.productPage(query) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/pos/products',
    operationId: 'createPosProduct',
    tags: TAGS,
    summary: 'Add a product',
    description: 'A barcode must have a valid GTIN check digit and belong to one product; a UPC-A barcode is stored in its EAN-13 form (leading 0), so both scans find it.',
    body: ProductCreate,
    responses: { 201: { description: 'The product', schema: ref(Product) }, ...conflict('`product_exists`, `barcode_taken`') },
    async handler({ engine, body }) {
      return { status: 201, body: await engine.register.createProduct(body) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/pos/products/:code',
    operationId: 'getPosProduct',
    tags: TAGS,
    summary: 'One product',
    params: ProductParams,
    responses: { 200: { description: 'The product', schema: ref(Product) }, 400: err('Invalid code'), ...notFound('`product_not_found`') },
    async handler({ engine, params }) {
      return { body: await engine.register.product(params.code) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/api/pos/products/:code',
    operationId: 'updatePosProduct',
    tags: TAGS,
    summary: 'Change a product (price, tax rate, barcode; `active: false` stops its sale)',
    description: 'Lines already on a sale keep the price they were rung up at.',
    params: ProductParams,
    body: ProductPatch,
    responses: { 200: { description: 'The product', schema: ref(Product) }, ...notFound('`product_not_found`'), ...conflict('`barcode_taken`') },
    async handler({ engine, params, body }) {
      return { body: await engine.register.updateProduct(params.code, body) };
    },
  }),

  // ---- cashiers and shifts ----
  defineRoute({
    method: 'get',
    path: '/api/pos/cashiers',
    operationId: 'listPosCashiers',
    tags: TAGS,
    summary: 'Cashiers (their codes are never shown)',
    responses: { 200: { description: 'Cashiers', schema: Type.Object({ cashiers: Type.Array(ref(Cashier)) }) } },
    async handler({ engine }) {
      return { body: { cashiers: await engine.register.cashiers() } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/pos/cashiers',
    operationId: 'createPosCashier',
    tags: TAGS,
    summary: 'Add a cashier; Laneway makes their six-digit code unless one is sent (4 to 8 digits, unique on this install)',
    description:
      "Laneway's own operation. Without `code`, Laneway makes a six-digit code free on this install and answers it once as `code` (the way the back office adds cashiers); " +
      'a code that is sent is never echoed. Either way only a keyed hash of the code is stored.',
    body: CashierCreate,
    responses: { 201: { description: 'The cashier, with `code` when Laneway made it (shown this once)', schema: ref(CashierWithCode) }, ...conflict('`cashier_code_taken`: choose another code; `cashier_code_choice_paused`: three chosen codes were taken within the hour, so for an hour only a code Laneway makes is given (leave `code` out)') },
    async handler({ engine, body }) {
      return { status: 201, body: await engine.register.createCashier(body) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/api/pos/cashiers/:id',
    operationId: 'updatePosCashier',
    tags: TAGS,
    summary: 'Rename a cashier, change their code, or deactivate them (their open shifts end)',
    params: CashierParams,
    body: CashierPatch,
    responses: { 200: { description: 'The cashier', schema: ref(Cashier) }, ...notFound('`cashier_not_found`'), ...conflict('`cashier_code_taken`; `cashier_code_choice_paused` (see createCashier)') },
    async handler({ engine, params, body }) {
      return { body: await engine.register.updateCashier(params.id, body) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/pos/cashiers/:id/code',
    operationId: 'resetPosCashierCode',
    tags: TAGS,
    summary: "A new six-digit code for a cashier (a lost code), made by Laneway and answered once; the old code stops working",
    description: "Laneway's own operation, the same rule as `npm run admin -- reset-cashier-code`. The cashier's open shift, if any, goes on.",
    params: CashierParams,
    responses: { 200: { description: 'The cashier and the new code (shown this once)', schema: ref(CashierWithCode) }, ...notFound('`cashier_not_found`') },
    async handler({ engine, params }) {
      const { cashier, code } = await engine.register.resetCashierCode(params.id);
      return { body: { ...cashier, code } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/pos/shifts',
    operationId: 'openPosShift',
    tags: TAGS,
    summary: 'A cashier signs in on a lane with their code',
    description: `Answers the shift: send its \`id\` as \`shift\` with every register call. A previous shift on the lane ends (\`replaced\`). A wrong code is 403 \`cashier_code_invalid\`; after five within an hour, sign-in on that lane pauses for 30 seconds (403 \`cashier_sign_in_locked\`), and each further five pause it twice as long, up to 15 minutes; a right code in between does not clear the count.\n\n${POS_RULES}`,
    body: ShiftOpen,
    responses: {
      201: { description: 'The shift', schema: ref(Shift) },
      403: err('`cashier_code_invalid`, `cashier_sign_in_locked`'),
      ...notFound('`lane_not_found`'),
    },
    async handler({ engine, body }) {
      return { status: 201, body: await engine.register.signIn(body.laneid, body.code) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/pos/shifts/:shift/close',
    operationId: 'closePosShift',
    tags: TAGS,
    summary: 'The cashier signs out',
    params: ShiftParams,
    responses: { 200: { description: 'The closed shift', schema: ref(Shift) }, 400: err('Invalid shift'), ...notFound('`shift_not_found`') },
    async handler({ engine, params }) {
      return { body: await engine.register.signOut(params.shift) };
    },
  }),

  // ---- registers and reports ----
  defineRoute({
    method: 'get',
    path: '/api/pos/registers/:laneid',
    operationId: 'getPosRegister',
    tags: TAGS,
    summary: 'A lane\'s register: its terminal\'s status, who is signed in, the open sale, the period since the last Z',
    params: RegisterParams,
    responses: { 200: { description: 'The register', schema: ref(Register) }, 400: err('Invalid laneid'), ...notFound('`lane_not_found`') },
    async handler({ engine, params }) {
      return { body: await engine.register.register(params.laneid) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/pos/registers/:laneid/x',
    operationId: 'getPosXReport',
    tags: TAGS,
    summary: 'X report: the lane\'s totals since its last Z, by tender, by cashier and by tax rate (nothing changes)',
    description: 'Sales, voids and refunds are tax-included totals of what was sold and given back; tenders count money in and out (a refund part still owed is not out yet). `cash.net_cents` is what the drawer should hold beyond its float.',
    params: RegisterParams,
    responses: { 200: { description: 'The X report', schema: ref(RegisterReport) }, 400: err('Invalid laneid'), ...notFound('`lane_not_found`') },
    async handler({ engine, params }) {
      return { body: await engine.register.xReport(params.laneid) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/pos/registers/:laneid/z',
    operationId: 'closePosZReport',
    tags: TAGS,
    summary: 'Z report: record the lane\'s totals as closed, start its next period, then close the day\'s card batch',
    description:
      'Refused (412 `sale_in_progress`) while the lane\'s open sale is partly paid, (412 `z_empty`) when nothing happened since the last Z unless `confirm_empty`, and (409) while a refund is running. With `close_batch` (default) the processing day\'s card batch closes now for the whole account (every lane): its card payments can no longer be voided, only refunded; card payments made later that day go into a follow-on batch.',
    params: RegisterParams,
    body: ZInput,
    responses: {
      201: { description: 'The Z report', schema: ref(RegisterReport) },
      ...shiftErrors,
      ...notFound('`lane_not_found`'),
      ...conflict('`reversal_in_progress`'),
      ...precondition('`sale_in_progress`, `wrong_lane`'),
    },
    async handler({ engine, params, body }) {
      return { status: 201, body: await engine.register.zClose(params.laneid, body) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/pos/registers/:laneid/z',
    operationId: 'listPosZReports',
    tags: TAGS,
    summary: 'The lane\'s Z reports, newest first',
    params: RegisterParams,
    responses: { 200: { description: 'Z reports', schema: ZList }, 400: err('Invalid laneid') },
    async handler({ engine, params }) {
      return { body: { reports: await engine.register.zReports(params.laneid) } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/pos/registers/:laneid/z/:number',
    operationId: 'getPosZReport',
    tags: TAGS,
    summary: 'One Z report (reprint)',
    params: ZParams,
    responses: { 200: { description: 'The Z report', schema: ref(RegisterReport) }, 400: err('Invalid parameters'), ...notFound('`z_report_not_found`') },
    async handler({ engine, params }) {
      return { body: await engine.register.zReport(params.laneid, params.number) };
    },
  }),

  // ---- sales ----
  defineRoute({
    method: 'post',
    path: '/api/pos/sales',
    operationId: 'startPosSale',
    tags: TAGS,
    summary: 'Start a sale on the cashier\'s lane (or resume the lane\'s open sale), optionally with its first line',
    description: POS_RULES,
    body: SaleStart,
    responses: {
      200: { description: 'The lane\'s open sale, resumed', schema: ref(Sale) },
      201: { description: 'A new sale', schema: ref(Sale) },
      ...shiftErrors,
      ...notFound('`product_not_found`: no product with that code or barcode'),
      ...conflict('`tender_in_progress`'),
      ...precondition('`product_inactive`, `capability_disabled` (orders)'),
    },
    async handler({ engine, body, req }) {
      const { sale, created } = await engine.register.startSale(body, requestLocale(req));
      return { status: created ? 201 : 200, body: sale };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/pos/sales',
    operationId: 'listPosSales',
    tags: TAGS,
    summary: 'Recent sales, newest first (for reprints, voids and refunds)',
    query: SaleListQuery,
    responses: { 200: { description: 'Sales', schema: SaleList }, 400: err('Invalid query') },
    async handler({ engine, query }) {
      return { body: { sales: await engine.register.recentSales(query.laneid, query.limit ?? 20) } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/pos/sales/:sale',
    operationId: 'getPosSale',
    tags: TAGS,
    summary: 'A sale by id or receipt number',
    params: SaleParams,
    responses: { 200: { description: 'The sale', schema: ref(Sale) }, 400: err('Invalid sale'), ...notFound('`sale_not_found`') },
    async handler({ engine, params }) {
      return { body: await engine.register.sale(params.sale) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/pos/sales/:sale/lines',
    operationId: 'addPosSaleLine',
    tags: TAGS,
    summary: 'Add a line: `scan` (code or barcode, `3*CODE`), `product_code`, or `open` (an open-price item)',
    description: 'Scanning the product of the last line again adds to that line when it has no discount or price change.',
    params: SaleParams,
    body: AddLine,
    responses: {
      200: { description: 'The sale', schema: ref(Sale) },
      ...shiftErrors,
      ...notFound('`sale_not_found`, `product_not_found`'),
      ...conflict('`tender_in_progress`'),
      ...precondition('`sale_locked` (payment started), `sale_closed`, `product_inactive`, `too_many_lines`, `wrong_lane`'),
    },
    async handler({ engine, params, body, req }) {
      return { body: await engine.register.addLine(params.sale, body, requestLocale(req)) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/api/pos/sales/:sale/lines/:line',
    operationId: 'changePosSaleLine',
    tags: TAGS,
    summary: 'Change a line: quantity, discount, price override (with a reason)',
    params: LineParams,
    body: LinePatch,
    responses: {
      200: { description: 'The sale', schema: ref(Sale) },
      ...shiftErrors,
      ...notFound('`sale_not_found`, `line_not_found`'),
      ...conflict('`tender_in_progress`'),
      ...precondition('`sale_locked`, `sale_closed`, `line_voided`, `wrong_lane`'),
    },
    async handler({ engine, params, body, req }) {
      return { body: await engine.register.changeLine(params.sale, params.line, body, requestLocale(req)) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/pos/sales/:sale/lines/:line/void',
    operationId: 'voidPosSaleLine',
    tags: TAGS,
    summary: 'Void a line (it stays on the sale, struck out, and counts for nothing)',
    params: LineParams,
    body: ShiftBody,
    responses: {
      200: { description: 'The sale', schema: ref(Sale) },
      ...shiftErrors,
      ...notFound('`sale_not_found`, `line_not_found`'),
      ...conflict('`tender_in_progress`'),
      ...precondition('`sale_locked`, `sale_closed`, `line_voided`, `wrong_lane`'),
    },
    async handler({ engine, params, body }) {
      return { body: await engine.register.voidLine(params.sale, params.line, body.shift) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/pos/sales/:sale/tenders',
    operationId: 'takePosTender',
    tags: TAGS,
    summary: 'Take a payment: card on the lane\'s terminal, cash, cheque, gift card or another tender',
    description:
      'Answers when the payment is over, approved or not: 200 with the sale, the tender (`approved`, `declined` or `failed`; nothing is charged unless approved) and a message for the cashier. A card tender waits for the customer at the terminal (follow `lane.status` events; cancel with the terminal command `Cancel`). The tender id is the gateway request\'s `transaction_reference`, so a tender interrupted by a stop is settled from the gateway\'s record when Laneway starts again.',
    params: SaleParams,
    body: TenderInput,
    responses: {
      200: { description: 'The outcome', schema: TenderResult },
      ...shiftErrors,
      ...notFound('`sale_not_found`'),
      ...conflict('`tender_in_progress`'),
      ...precondition('`tender_not_allowed`, `sale_closed`, `sale_empty`, `wrong_lane`, cash: `confirm_change_required`, gift card: `gift_card_unknown`, `gift_card_inactive`, `gift_card_empty`, `incorrect_pin`'),
    },
    async handler({ engine, params, body, principal, req }) {
      return { body: await engine.register.tender(params.sale, body, principal?.credential ?? null, requestLocale(req)) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/pos/sales/:sale/void',
    operationId: 'voidPosSale',
    tags: TAGS,
    summary: 'Void a sale: the open one (what was paid goes back), or a paid one with no refunds whose card payments are still voidable',
    params: SaleParams,
    body: VoidInput,
    responses: {
      200: { description: 'The voided sale and the reversal of its payments (null when nothing was paid)', schema: ReversalResult },
      ...shiftErrors,
      ...notFound('`sale_not_found`'),
      ...conflict('`tender_in_progress`, `reversal_in_progress`'),
      ...precondition('`void_window_closed` (refund instead), `sale_has_refunds`, `sale_voided`, `wrong_lane`'),
    },
    async handler({ engine, params, body, principal, req }) {
      return { body: await engine.register.voidSale(params.sale, body, principal?.credential ?? null, requestLocale(req)) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/pos/sales/:sale/refunds',
    operationId: 'refundPosSale',
    tags: TAGS,
    summary: 'Refund lines of a paid sale back to its tenders (`dry_run` shows how, changing nothing)',
    description: POS_RULES,
    params: SaleParams,
    body: RefundInput,
    responses: {
      200: { description: 'The refund (`planned` for a dry run, `completed`, or `incomplete` with what is still owed)', schema: ReversalResult },
      ...shiftErrors,
      ...notFound('`sale_not_found`'),
      ...conflict('`tender_in_progress`, `reversal_in_progress`'),
      ...precondition('`sale_not_refundable`, `quantity_exceeds_sold`, `nothing_to_refund`'),
    },
    async handler({ engine, params, body, principal, req }) {
      return { body: await engine.register.refund(params.sale, body, principal?.credential ?? null, requestLocale(req)) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/pos/sales/:sale/reversals/:reversal/settle',
    operationId: 'settlePosReversal',
    tags: TAGS,
    summary: 'Settle an incomplete refund or void: retry its failed gateway steps, or give what is owed in cash',
    params: ReversalParams,
    body: SettleInput,
    responses: {
      200: { description: 'The refund or void', schema: ReversalResult },
      ...shiftErrors,
      ...notFound('`sale_not_found`, `reversal_not_found`'),
      ...conflict('`tender_in_progress`, `reversal_in_progress`'),
      ...precondition('`reversal_complete`, `nothing_to_retry`'),
    },
    async handler({ engine, params, body, principal, req }) {
      return { body: await engine.register.settleReversal(params.sale, params.reversal, body, principal?.credential ?? null, requestLocale(req)) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/pos/sales/:sale/receipt',
    operationId: 'getPosReceipt',
    tags: TAGS,
    summary: 'The receipt of a sale (or of one of its refunds or voids), for the screen and for printing',
    description: 'Card tenders carry the EMV details a card receipt needs and the signature image when one was captured on the device. `copy=true` marks a reprint. Amounts inside the lines\' notes ("3 @ 4,25 $ US") follow the request\'s Accept-Language.',
    params: SaleParams,
    query: ReceiptQuery,
    responses: { 200: { description: 'The receipt', schema: ref(Receipt) }, 400: err('Invalid parameters'), ...notFound('`sale_not_found`, `reversal_not_found`') },
    async handler({ engine, params, query, req }) {
      return { body: await engine.register.receipt(params.sale, { reversal: query.reversal, copy: query.copy, locale: requestLocale(req) }) };
    },
  }),
].map((route) => ({ bodyLimit: REGISTER_BODY_LIMIT, ...route }));
