import { Type } from '@sinclair/typebox';
import { component, ref } from './components';
import { MAIL_MESSAGES_HEADER } from '../mail-header';

const count = (what: string) => Type.Integer({ minimum: 0, description: what });
const nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);


export const ReminderCounts = component(
  'ReminderResponse',
  Type.Object({
    requested: count('Invoices asked for'),
    sent: count('Invoices whose reminder was queued (one email per reachable contact)'),
    not_found: count('Not found (or deleted)'),
    suppressed: count("The customer's notifications are suppressed"),
    invoice_suppressed: count("The invoice's notifications are suppressed"),
    not_invited: count('The customer has no contact invited, activated or signed up'),
    paid: count('Nothing owing'),
    draft: count('A draft (invoices here are never drafts: always 0)'),
    credit: count('A credit (negative amount)'),
    scheduled: count('Scheduled for payment: the customer has an approved autopay'),
    on_plan: count('On a payment plan'),
  }),
);

export const BulkRemind = Type.Object({
  ids: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 1000, description: 'Invoice number, display_number or id' }),
});

export const DirectMessage = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 255, format: 'email' }),
  object_type: Type.Union([Type.Literal('invoice'), Type.Literal('order'), Type.Literal('payment_method')]),
  object_identifier: Type.Optional(Type.String({ maxLength: 100 })),
  customer_identifier: Type.Optional(Type.String({ maxLength: 100 })),
  create_contact: Type.Optional(Type.Boolean()),
  first_name: Type.Optional(Type.String({ maxLength: 200 })),
  last_name: Type.Optional(Type.String({ maxLength: 200 })),
});

export const RelayCheck = component(
  'MailRelayCheck',
  Type.Object(
    {
      ok: Type.Boolean({ description: 'The relay answered: connection, EHLO, TLS or STARTTLS as set, and AUTH when a user is set (no message is sent)' }),
      reason: Type.Union([Type.Literal('dns'), Type.Literal('refused'), Type.Literal('unreachable'), Type.Literal('timeout'), Type.Literal('tls'), Type.Literal('auth'), Type.Literal('other'), Type.Null()], {
        description: 'Why it did not answer: `dns` (the host name does not resolve), `refused` (nothing listens at the port), `unreachable`, `timeout` (no answer within 5 seconds), `tls`, `auth` (user name or password refused), `other`; null when ok',
      }),
      message: Type.String({ description: 'What was found, in a sentence' }),
      error: nullable(Type.String({ description: "The system's or the relay's own words" })),
      checked_at: Type.String({ format: 'date-time' }),
    },
    { description: 'What trying the relay found when it was saved' },
  ),
);

export const MailRelay = component(
  'MailRelay',
  Type.Object({
    host: Type.String(),
    port: Type.Integer(),
    secure: Type.Boolean(),
    user: Type.String(),
    password_set: Type.Boolean({ description: 'The password is never shown' }),
    from: Type.String(),
    updated_at: Type.String({ format: 'date-time' }),
    check: Type.Union([ref(RelayCheck), Type.Null()], { description: 'What trying the relay found when it was saved (null: saved before saves tried it). A relay that did not answer is saved all the same, its messages queued and retried.' }),
  }),
);

export const MailStatus = Type.Object(
  {
    state: Type.Union([Type.Literal('sandbox'), Type.Literal('untested'), Type.Literal('working'), Type.Literal('failing')], {
      description:
        '`sandbox`: no relay, messages go nowhere. `failing`: the newest delivery attempt through the relay as set failed (none yet: the try when it was saved did). `working`: the newest attempt delivered (none yet: the try when saved worked). `untested`: saved before saves tried the relay, nothing sent since',
    }),
    last_attempt_at: nullable(Type.String({ format: 'date-time', description: 'The newest delivery attempt through the relay as set, else the try when it was saved' })),
    last_error: nullable(Type.String({ description: 'failing: why' })),
    next_retry_at: nullable(Type.String({ format: 'date-time', description: 'When the outbox next tries a waiting message, if one waits' })),
    queued: count('Messages waiting in the outbox'),
  },
  { description: 'How the relay is doing, as the outbox shows it' },
);

export const MailSettings = Type.Object({
  mode: Type.Union([Type.Literal('smtp'), Type.Literal('sandbox')], { description: 'sandbox: no relay is set, messages stay in the local outbox' }),
  relay: Type.Union([MailRelay, Type.Null()]),
  status: MailStatus,
});

export const MailRelayInput = Type.Object(
  {
    host: Type.String({ minLength: 1, maxLength: 255 }),
    port: Type.Integer({ minimum: 1, maximum: 65535 }),
    secure: Type.Optional(
      Type.Boolean({
        description:
          'TLS from the first byte (default: port 465); otherwise STARTTLS. With a `user` and a relay not on this machine, STARTTLS is required: a relay that does not offer it gets no password and no message (it stays queued, the reason in the outbox); a relay on this machine (localhost, 127.0.0.0/8, ::1) may stay plaintext',
      }),
    ),
    user: Type.Optional(Type.String({ maxLength: 255 })),
    password: Type.Optional(Type.String({ maxLength: 1024, description: 'Kept encrypted; omitted keeps the stored one, empty removes it' })),
    from: Type.String({ minLength: 3, maxLength: 320, description: 'address, or "Name <address>"' }),
  },
  { additionalProperties: false },
);

export const MailMessage = component(
  'MailMessage',
  Type.Object({
    id: Type.String(),
    purpose: Type.String({ description: '`reminder`, `deposit_request`, `payment_method_request`' }),
    to: Type.String(),
    subject: Type.String(),
    text: Type.String(),
    attach_invoice: Type.Union([Type.String(), Type.Null()]),
    attachment: Type.Union([Type.Object({ file_name: Type.String(), size: Type.Integer() }), Type.Null()]),
    state: Type.Union([Type.Literal('queued'), Type.Literal('sent'), Type.Literal('failed')]),
    transport: Type.Union([Type.Literal('smtp'), Type.Literal('sandbox'), Type.Null()]),
    attempts: Type.Integer(),
    first_attempt_ms: Type.Integer(),
    next_attempt_ms: Type.Integer(),
    created_at: Type.String({ format: 'date-time' }),
    last_attempt_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the newest attempt to send it was made' }),
    sent_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    message_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The Message-ID header, chosen when the message is queued and sent with every attempt (a receiver can drop a retry of a message it already has). Null only on a message queued by an older version and not yet tried',
    }),
    error: Type.Union([Type.String(), Type.Null()]),
    watermark: Type.Integer(),
  }),
);

export const OutboxQuery = Type.Object({
  before: Type.Optional(Type.Integer({ minimum: 1, format: 'int64' })),
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
  ids: Type.Optional(
    Type.String({ maxLength: 4000, pattern: '^[A-Za-z0-9_, -]*$', description: `Only these messages (comma-separated ids, as the ${MAIL_MESSAGES_HEADER} header of the operation that queued them lists them), at most \`limit\`; \`before\` is then ignored` }),
  ),
});

export const OutboxPage = Type.Object({ messages: Type.Array(MailMessage), next_before: Type.Union([Type.Integer(), Type.Null()]) });
