import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { BulkRemind, DirectMessage, MailRelay, MailRelayInput, MailSettings, OutboxPage, OutboxQuery, ReminderCounts } from '../../shared/schemas/notifications';
import { MAIL_HEADER_DOC, mailHeaders } from '../mail-headers';

const TAGS = ['Notifications'];
const err = (description: string) => ({ description, schema: ref(ErrorBody) });
const QUEUED = ' Counted `sent` means queued in the outbox, not delivered: the response header Laneway-Mail-Messages lists the messages, and `GET /api/notifications/outbox?ids=` says what became of each.';

const COUNTS = 'Checked in this order, each invoice counted once: not_found, credit, paid, suppressed (customer), invoice_suppressed, on_plan, scheduled (approved autopay), not_invited (no contact invited, activated or signed up), else sent: one email per such contact, with the invoice PDF when the customer opted in (`pdf_attachment_opt_in`). Emails go through the SMTP relay of the account settings, queued and retried for three days; without a relay (sandbox) they stay in the outbox (`GET /api/notifications/outbox`).';

export const remindOne = defineRoute({
  method: 'post',
  path: '/api/notifications/remind/:number_or_id',
  operationId: 'remindInvoice',
  tags: TAGS,
  summary: 'Single Invoice Reminder',
  description: COUNTS + QUEUED,
  params: Type.Object({ number_or_id: Type.String({ minLength: 1, maxLength: 100 }) }),
  responses: { 200: { description: 'Counts', schema: ref(ReminderCounts), headers: MAIL_HEADER_DOC } },
  async handler({ engine, params }) {
    const { counts, ...queued } = await engine.notifications.remind([params.number_or_id]);
    return { body: counts, headers: mailHeaders(queued) };
  },
});

export const remindMany = defineRoute({
  method: 'post',
  path: '/api/notifications/remind',
  operationId: 'remindInvoices',
  tags: TAGS,
  summary: 'Bulk Invoice Reminder',
  description: COUNTS + QUEUED,
  body: BulkRemind,
  responses: { 200: { description: 'Counts', schema: ref(ReminderCounts), headers: MAIL_HEADER_DOC } },
  async handler({ engine, body }) {
    const { counts, ...queued } = await engine.notifications.remind(body.ids);
    return { body: counts, headers: mailHeaders(queued) };
  },
});

export const directMessage = defineRoute({
  method: 'post',
  path: '/api/notifications/direct_message',
  operationId: 'directMessage',
  tags: TAGS,
  summary: 'Direct Message',
  description:
    'One email to `email` about the object: `invoice` a reminder, `order` a deposit request, `payment_method` a request to add a card. 400 when: object_identifier missing (invoice, order) or customer_identifier missing (payment_method); for an order, deposit requests not enabled (the `orders` capability), a draft, nothing owing, no deposit asked (`deposit_amount_cents` attribute), no customer; for a payment_method, the customer unknown, closed or suspended (`suspended` attribute), cards not accepted (the `wallets` capability off), the customer exempted (`credit_card_exempt` attribute); and, with create_contact false, the email not a contact of the customer (`contact_not_activated`), a disabled contact, or (payment_method) a disabled or read-only role; and (ours) the customer\'s notifications suppressed (`notification_suppressed`: `customer_notifications_suppressed`) or, for an invoice, the invoice\'s (`suppress_notifications`: `invoice_notifications_suppressed`), the rule reminders count `suppressed` and `invoice_suppressed` by: nothing is sent and no contact is created or activated. create_contact true makes the contact, activated; false activates an existing one.',
  body: DirectMessage,
  errorShape: 'message',
  responses: {
    200: { description: 'Queued (not yet delivered: see the Laneway-Mail-Messages header)', schema: Type.Object({}), headers: MAIL_HEADER_DOC },
    400: {
      description: 'Refused: the sentence in `error` and, as the reference gives it, in `errors.base` (a malformed request has the common error shape)',
      schema: Type.Union([Type.Object({ error: Type.String(), code: Type.String(), errors: Type.Object({ base: Type.Array(Type.String()) }) }), ref(ErrorBody)]),
    },
    404: err('`record_not_found`: no such invoice or order'),
  },
  async handler({ engine, body }) {
    return { body: {}, headers: mailHeaders(await engine.notifications.directMessage(body)) };
  },
});

export const mailSettings = defineRoute({
  method: 'get',
  path: '/api/account/mail',
  operationId: 'getMailSettings',
  tags: ['Account settings'],
  summary: 'The SMTP relay email is sent through (never its password), or sandbox mode',
  description: '`status` is how the relay is doing as the outbox shows it: `failing` when the newest delivery attempt through it failed (with `last_error`, and `next_retry_at` when the outbox tries again), `working` when it delivered; with no attempt yet, what trying the relay found when it was saved (`relay.check`).',
  responses: { 200: { description: 'Settings', schema: MailSettings } },
  async handler({ engine }) {
    return { body: await engine.notifications.relay() };
  },
});

export const putMailSettings = defineRoute({
  method: 'put',
  path: '/api/account/mail',
  operationId: 'setMailRelay',
  scope: 'credentials',
  tags: ['Account settings'],
  summary: 'Set the SMTP relay (the password is kept encrypted with an install key)',
  description:
    'Needs the `credentials` scope. Saving tries the relay first, within 5 seconds: connection, EHLO, TLS or STARTTLS as set, and AUTH when a `user` is set; no message is sent. The answer\'s `check` says what it found (`ok`, else `reason`: `dns`, `refused`, `unreachable`, `timeout`, `tls`, `auth`, `other`, with `message` and `error`). A relay that does not answer is saved all the same (200): its messages wait in the outbox and are retried for three days, and `GET /api/account/mail` says `status: failing` until one goes through. The user name and password are sent to the relay only over TLS: from the first byte (`secure`), else after STARTTLS, which is then required. A relay that does not offer STARTTLS gets no password and no message: each stays queued (then failed after the retry period) with the reason in `error` (GET /api/notifications/outbox). A relay on this machine (`localhost`, 127.0.0.0/8, ::1) may stay plaintext.',
  body: MailRelayInput,
  responses: { 200: { description: 'The relay', schema: ref(MailRelay) }, 400: err('`invalid_smtp_host`, `invalid_from`') },
  async handler({ engine, body }) {
    return { body: await engine.notifications.setRelay(body) };
  },
});

export const deleteMailSettings = defineRoute({
  method: 'delete',
  path: '/api/account/mail',
  operationId: 'removeMailRelay',
  scope: 'credentials',
  tags: ['Account settings'],
  summary: 'Remove the SMTP relay: back to sandbox mode',
  description: 'Needs the `credentials` scope.',
  responses: { 200: { description: 'Removed', schema: Type.Object({}) } },
  async handler({ engine }) {
    await engine.notifications.removeRelay();
    return { body: {} };
  },
});

export const outbox = defineRoute({
  method: 'get',
  path: '/api/notifications/outbox',
  operationId: 'listMailOutbox',
  tags: ['Laneway'],
  summary: 'The mail outbox: every message queued, sent or failed, newest first (ours)',
  query: OutboxQuery,
  responses: { 200: { description: 'A page', schema: OutboxPage }, 400: err('Invalid query') },
  async handler({ engine, query }) {
    return { body: await engine.notifications.outbox(query) };
  },
});

export const notificationRoutes = [remindOne, remindMany, directMessage, mailSettings, putMailSettings, deleteMailSettings, outbox];
