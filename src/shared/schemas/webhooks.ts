import { Type, type Static } from '@sinclair/typebox';
import { component } from './components';

/** The event kinds an endpoint can take (src/engine/webhooks/kinds.ts describes each). */
export const WEBHOOK_KINDS = [
  'customer.created',
  'customer.updated',
  'invoice.created',
  'invoice.updated',
  'invoice.deleted',
  'payment.created',
  'payment.updated',
  'order.created',
  'order.updated',
  'transaction.created',
  'transaction.declined',
  'transaction.updated',
] as const;

export const WebhookEventKind = Type.Union(
  WEBHOOK_KINDS.map((k) => Type.Literal(k)),
  { description: 'An event kind (the `type` of the domain event); see the operation descriptions for what each body is' },
);

export const WebhookEndpoint = component(
  'WebhookEndpoint',
  Type.Object({
    id: Type.String(),
    url: Type.String({ description: 'Where deliveries are POSTed' }),
    events: Type.Array(WebhookEventKind),
    enabled: Type.Boolean(),
    description: Type.String(),
    concurrency: Type.Integer({ minimum: 1, maximum: 16, description: '1: strict watermark order (a delivery being retried holds back the later ones). More: deliveries of different records overlap; those of one record stay in order' }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    disabled_reason: Type.Union([Type.Literal('delivery_failed'), Type.Null()], { description: '`delivery_failed` when the service turned it off after a delivery failed for three days' }),
    disabled_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  }),
);

const endpointFields = {
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'http or https (https in production); no user name or password' }),
  events: Type.Array(WebhookEventKind, { minItems: 1, maxItems: WEBHOOK_KINDS.length, description: 'Default: every kind' }),
  enabled: Type.Boolean(),
  description: Type.String({ maxLength: 255 }),
  concurrency: Type.Integer({ minimum: 1, maximum: 16 }),
};

export const WebhookEndpointCreate = Type.Object(
  { url: endpointFields.url, events: Type.Optional(endpointFields.events), enabled: Type.Optional(endpointFields.enabled), description: Type.Optional(endpointFields.description), concurrency: Type.Optional(endpointFields.concurrency) },
  { additionalProperties: false },
);
export const WebhookEndpointPatch = Type.Partial(Type.Object(endpointFields), { additionalProperties: false });

export const SigningKeyInfo = component(
  'WebhookSigningKeyInfo',
  Type.Object({ created_at: Type.String({ format: 'date-time' }), hint: Type.String({ description: 'The last four characters of the key' }) }),
);

export const WebhookSettings = Type.Object({
  endpoints: Type.Array(WebhookEndpoint),
  signing_key: Type.Union([SigningKeyInfo, Type.Null()], { description: 'The key itself is shown only when it is made' }),
});

export const WebhookEndpointCreated = Type.Object({
  endpoint: WebhookEndpoint,
  signing_key: Type.Optional(Type.String({ description: "The account's first endpoint makes the signing key: shown in this answer only" })),
});

export const SigningKeyRolled = Type.Object({
  signing_key: Type.String({ description: 'Shown in this answer only; deliveries are signed with it from now on' }),
  created_at: Type.String({ format: 'date-time' }),
  hint: Type.String(),
});

export const WebhookResponse = component(
  'WebhookResponse',
  Type.Object({
    id: Type.String({ description: 'This attempt' }),
    delivery: Type.String({ description: '`<endpoint>.<event watermark>`, also sent as the X-Service-Delivery header' }),
    endpoint: Type.String(),
    url: Type.String(),
    event_watermark: Type.Integer(),
    event_type: Type.String(),
    entity: Type.String(),
    key: Type.String(),
    attempt: Type.Integer({ description: 'The attempt number of this delivery (X-Service-Attempt)' }),
    manual: Type.Boolean({ description: 'Sent again by hand' }),
    at: Type.String({ format: 'date-time' }),
    status: Type.Integer({ description: 'The HTTP status answered; 0 when none was (refused, timed out)' }),
    latency_ms: Type.Integer(),
    outcome: Type.Union([Type.Literal('delivered'), Type.Literal('retry'), Type.Literal('failed')]),
    error: Type.Union([Type.String(), Type.Null()]),
    body_excerpt: Type.String({ description: 'The first 200 characters of the answer' }),
    watermark: Type.Integer({
      format: 'int64',
      description:
        "This entry's place in the log, newest highest (its log record's watermark × 1000, plus its index when first attempts that succeeded are logged many to a record): pass it as `before` for the next page",
    }),
  }),
);
export type WebhookResponse = Static<typeof WebhookResponse>;

export const WebhookResponsesQuery = Type.Object({
  before: Type.Optional(Type.Integer({ minimum: 1, format: 'int64', description: 'Entries before this place in the log (the previous page\'s `next_before`, or an entry\'s `watermark`)' })),
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
  endpoint: Type.Optional(Type.String({ maxLength: 64 })),
});

export const WebhookResponsesPage = Type.Object({
  webhook_responses: Type.Array(WebhookResponse),
  next_before: Type.Union([Type.Integer(), Type.Null()]),
});

/** The empty body of roll and resend: one object, so the renderer's table (src/shared/api/backoffice.ts) names the route's very schema. */
export const EmptyWebhookBody = Type.Object({}, { additionalProperties: false });
