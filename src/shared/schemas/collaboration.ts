import { Type } from '@sinclair/typebox';
import { component } from './components';

const nullableString = Type.Union([Type.String(), Type.Null()]);

export const Dispute = component(
  'Dispute',
  Type.Object({
    closed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Null while open' }),
    opened_at: Type.String({ format: 'date-time' }),
    opener: Type.String(),
    closer: nullableString,
    opening_comment_text: Type.String(),
    closing_comment_text: nullableString,
    invoice_number: Type.String(),
    invoice_balance: Type.Record(Type.String(), Type.Integer(), { description: 'Owing, in cents, keyed by lower-case currency' }),
    dispute_reason_identifier: nullableString,
    dispute_reason_label_en: Type.String(),
    dispute_reason_label_fr: Type.String(),
    opening_comment_users_notified: Type.Array(Type.String()),
    closing_comment_user_notified: Type.Union([Type.Array(Type.String()), Type.Literal('')], { description: 'An empty string (not an array) while the dispute is open, as the reference says' }),
    creator_business_name: Type.String(),
    closer_business_name: nullableString,
    invoice_amount_paid: Type.String({ description: 'Paid to date, dollars and cents' }),
    invoice_identifier: Type.String({ description: '`<sender_identifier>|<invoice number>`' }),
    invoice_external_id: nullableString,
    watermark: Type.Optional(Type.Integer({ description: 'With list=true: the dispute id (not a watermark to send back)' })),
  }),
);

export const Comment = component(
  'Comment',
  Type.Object({
    identifier: Type.String(),
    customer_identifier: Type.String(),
    customer_name: Type.String(),
    comment: Type.String(),
    regarding: Type.String({ description: '`Invoice <number>` or `Customer <identifier>`' }),
    target_users: Type.String({ description: 'Semicolon-separated' }),
    dispute: Type.Union([Type.Literal('Y'), Type.Literal('N')]),
    internal: Type.Union([Type.Literal('Y'), Type.Literal('N')]),
    timestamp: Type.String({ format: 'date-time' }),
    user: Type.String(),
    email: Type.String(),
    organization: Type.String(),
    watermark: Type.Optional(Type.Integer()),
  }),
);

export const DisputesQuery = Type.Object({
  watermark: Type.Optional(Type.String({ maxLength: 19, description: 'yyyy-mm-dd or yyyy-mm-ddThh:mm:ss (the account\'s time zone): open disputes opened and closed disputes closed since then' })),
  list: Type.Optional(Type.Boolean({ default: false })),
});

export const DisputeClose = Type.Object({
  closer: Type.Optional(Type.String({ maxLength: 255, description: 'Name or email of who closes it (default: the account name)' })),
  comment: Type.Optional(Type.String({ maxLength: 65_536, description: 'A closing comment, recorded as a comment too' })),
});

export const DisputeOpen = Type.Object(
  {
    opener: Type.String({ minLength: 1, maxLength: 255, description: 'Name or email of the customer contact who raised it' }),
    comment: Type.String({ minLength: 1, maxLength: 65_536 }),
    reason_identifier: Type.Optional(Type.String({ maxLength: 64 })),
    reason_label_en: Type.Optional(Type.String({ maxLength: 255 })),
    reason_label_fr: Type.Optional(Type.String({ maxLength: 255 })),
  },
  { additionalProperties: false },
);

export const CommentCreate = Type.Object(
  {
    comment: Type.String({ minLength: 1, maxLength: 65_536 }),
    user: Type.Optional(Type.String({ maxLength: 255, description: 'Who wrote it (default: the account name)' })),
    email: Type.Optional(Type.String({ maxLength: 255 })),
    internal: Type.Optional(Type.Boolean({ description: 'Seen by the supplier only' })),
    target_users: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 50 })),
    by_customer: Type.Optional(Type.Boolean({ description: 'Taken down on the customer\'s behalf: the organization is the customer' })),
  },
  { additionalProperties: false },
);

export const IdentifierMessage = Type.Object({ identifier: Type.String(), message: Type.String() });
