import { Type } from '@sinclair/typebox';
import { component } from './components';

const count = (what: string) => Type.Integer({ minimum: 0, description: what });

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
  }),
);

export const MailSettings = Type.Object({
  mode: Type.Union([Type.Literal('smtp'), Type.Literal('sandbox')], { description: 'sandbox: no relay is set, messages stay in the local outbox' }),
  relay: Type.Union([MailRelay, Type.Null()]),
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
    sent_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    message_id: Type.Union([Type.String(), Type.Null()]),
    error: Type.Union([Type.String(), Type.Null()]),
    watermark: Type.Integer(),
  }),
);

export const OutboxQuery = Type.Object({
  before: Type.Optional(Type.Integer({ minimum: 1, format: 'int64' })),
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
});

export const OutboxPage = Type.Object({ messages: Type.Array(MailMessage), next_before: Type.Union([Type.Integer(), Type.Null()]) });
