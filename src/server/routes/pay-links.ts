import { defineRoute, type AnyRoute, type ResponseSpec } from '../route';
import { MAX_REFUSED, REFUSED_WINDOW_MS } from '../../engine/pay-links';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { PayLinkKey, PayLinkOutcome, PayLinkPaymentRequest, PayLinkView } from '../../shared/schemas/pay-links';

/**
 * Click-to-pay: what the page an invoice's pay_url opens (GET /pay/{key}) reads and sends. Open to
 * anyone holding the link, as the link is sent to the customer; a link pays its own invoice's
 * balance and nothing else.
 */
const TAGS = ['Click to pay'];
const err = (description: string): ResponseSpec => ({ description, schema: ref(ErrorBody) });

const RULES = `A pay_url (invoice import or view with \`echo=pay_urls\`) is \`<public URL>/pay/{key}\`: a page that shows the invoice in the payer's
locale and takes a card (or, for USD invoices, a bank account) for all the invoice still owes. The payment is a gateway sale (channel
\`ecommerce\`) recorded as an invoicing payment of the invoice (source arc, \`payment_method\` "Visa **0006"): it shows in the payment exports,
events and webhooks, settles with the day's batch, and a refund or void of the sale puts the invoice back owing. After ${MAX_REFUSED} declined payments in
${REFUSED_WINDOW_MS / 3_600_000} hours the link pauses (409 \`pay_link_paused\`) until the oldest of them is that old: a public form must not become a
card-testing tool. Card and account numbers are used once and never stored, logged or echoed (last four only).`;

const view = defineRoute({
  method: 'get',
  path: '/api/pay/:key',
  operationId: 'viewPayLink',
  tags: TAGS,
  summary: 'The invoice a click-to-pay link opens',
  description: `No credentials: the link is the key. An unknown key and a wrong token are the same 404.\n\n${RULES}`,
  auth: false,
  guessable: true,
  params: PayLinkKey,
  responses: { 200: { description: 'What the page shows', schema: ref(PayLinkView) }, 404: err('No such link') },
  async handler({ engine, params }) {
    return { body: await engine.payLinks.view(params.key) };
  },
});

const pay = defineRoute({
  method: 'post',
  path: '/api/pay/:key/payments',
  operationId: 'payPayLink',
  tags: TAGS,
  summary: 'Pay the invoice of a click-to-pay link',
  description: `No credentials: the link is the key. \`amount_cents\` is what the payer was shown; a balance that moved since is 409 \`amount_changed\`
and nothing is charged (one that moved while the card was charged: the sale is voided). \`attempt\` is one press of Pay: the same attempt sent again answers the first outcome, never a second charge. A
decline is 200 with \`status: declined\` and \`attempts_left\`.\n\n${RULES}`,
  auth: false,
  guessable: true,
  bodyLimit: '8kb',
  params: PayLinkKey,
  body: PayLinkPaymentRequest,
  responses: {
    200: { description: 'Approved, in progress (a bank payment) or declined', schema: ref(PayLinkOutcome) },
    400: err('A field is missing or malformed'),
    404: err('No such link'),
    409: err('Nothing left to pay, the amount changed, or the link is paused'),
    412: err('The card or account was refused before it reached the processor'),
  },
  async handler({ engine, params, body }) {
    return { body: await engine.payLinks.pay(params.key, body) };
  },
});

export const payLinkRoutes: AnyRoute[] = [view, pay];
