import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { WEBHOOK_EVENT_KINDS } from '../../engine/webhooks';
import {
  EmptyWebhookBody,
  SigningKeyRolled,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointCreated,
  WebhookEndpointPatch,
  WebhookResponse,
  WebhookResponsesPage,
  WebhookResponsesQuery,
  WebhookSettings,
} from '../../shared/schemas/webhooks';

const err = (description: string) => ({ description, schema: ref(ErrorBody) });
const TAGS = ['Account settings'];
const SCOPE_NOTE =
  'Needs the `credentials` scope (the API key, or a JWT minted with `options[jwt_scope]=api credentials`): an endpoint receives every record it subscribes to, so a screen JWT that leaked must not be able to add one.';

const READ_NOTE =
  'Read by the API key, the owner and a manager (the `settings` grant), never a clerk: a URL often carries the receiver\'s token, and the delivery log shows each URL and the start of each answer.';

const kindTable = Object.entries(WEBHOOK_EVENT_KINDS)
  .map(([kind, what]) => `| \`${kind}\` | ${what} |`)
  .join('\n');

export const WEBHOOKS_DESCRIPTION = `Deliveries (spec: Events): an HTTP POST of JSON to the endpoint's URL for each event of the kinds it takes, in the order of the engine's event stream (watermark). The body is exactly the record's export view as it stands when the delivery is made. Headers: \`X-Service-Signature\` (HMAC-SHA256 of the body bytes with the signing key, Base64 plus a line feed, URL-encoded; see docs/webhooks.md), \`X-Service-Event\` (the kind), \`X-Service-Watermark\` (the event's watermark), \`X-Service-Delivery\` (stable across retries: use it to drop duplicates), \`X-Service-Attempt\`.

Only a **200** acknowledges a delivery. Any other status (redirects are not followed), a timeout (10 s) or a refused connection is retried with exponential backoff (1 s doubling to at most 1 h, ±20% jitter) for three days; then the delivery is marked failed, the endpoint is turned off (\`disabled_reason: delivery_failed\`, event \`webhook_endpoint.disabled\`) and, once turned back on, resumes with the events after the failed one. Deliveries are kept in the store (the event outbox and a cursor per endpoint): a restart or a crash loses none, and may repeat some.

| Event kind | When, and the body |
|---|---|
${kindTable}`;

export const getWebhooks = defineRoute({
  method: 'get',
  path: '/api/account/webhooks',
  operationId: 'listWebhookEndpoints',
  tags: TAGS,
  summary: 'Webhook endpoints and the signing key (never the key itself)',
  description: `${READ_NOTE}\n\n${WEBHOOKS_DESCRIPTION}`,
  responses: { 200: { description: 'Settings', schema: WebhookSettings } },
  async handler({ engine }) {
    return { body: await engine.webhooks.settings() };
  },
});

const LASTING_NOTE =
  ' An endpoint goes on receiving records after the request: a JWT minted by GET /api/whoami (from the key or a session, narrowed or not) is refused with 403 `minted_jwt_cannot_create_credentials`, as for a new credential, and the caller needs `read` (403 `insufficient_scope`). Use the API key or an owner\'s session.';

export const createWebhook = defineRoute({
  method: 'post',
  path: '/api/account/webhooks',
  operationId: 'createWebhookEndpoint',
  scope: 'credentials',
  tags: TAGS,
  summary: 'Add a webhook endpoint (it receives the events after this call)',
  description: `${SCOPE_NOTE}${LASTING_NOTE}\n\n${WEBHOOKS_DESCRIPTION}`,
  body: WebhookEndpointCreate,
  responses: { 201: { description: 'Created', schema: WebhookEndpointCreated }, 400: err('`invalid_webhook_url`, `webhook_url_credentials`, `webhook_url_insecure` (production), `unknown_event_kind`') },
  async handler({ engine, body, principal }) {
    return { status: 201, body: await engine.webhooks.create(body, principal!) };
  },
});

const idParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const patchWebhook = defineRoute({
  method: 'patch',
  path: '/api/account/webhooks/:id',
  operationId: 'updateWebhookEndpoint',
  scope: 'credentials',
  tags: TAGS,
  summary: 'Change a webhook endpoint, or turn it off and on (on again: it resumes where it stopped)',
  description: `${SCOPE_NOTE}${LASTING_NOTE} Here that holds for a new \`url\` or \`events\`, and for \`enabled: true\`; turning an endpoint off or describing it does not.`,
  params: idParam,
  body: WebhookEndpointPatch,
  responses: { 200: { description: 'The endpoint', schema: ref(WebhookEndpoint) }, 400: err('As for create'), 404: err('`webhook_endpoint_not_found`') },
  async handler({ engine, params, body, principal }) {
    return { body: await engine.webhooks.update(params.id, body, principal!) };
  },
});

export const deleteWebhook = defineRoute({
  method: 'delete',
  path: '/api/account/webhooks/:id',
  operationId: 'deleteWebhookEndpoint',
  scope: 'credentials',
  tags: TAGS,
  summary: 'Remove a webhook endpoint (its delivery log stays)',
  description: SCOPE_NOTE,
  params: idParam,
  responses: { 200: { description: 'Removed', schema: Type.Object({}) }, 404: err('`webhook_endpoint_not_found`') },
  async handler({ engine, params }) {
    await engine.webhooks.remove(params.id);
    return { body: {} };
  },
});

export const rollWebhookKey = defineRoute({
  method: 'post',
  path: '/api/account/webhooks/signing_key',
  operationId: 'rollWebhookSigningKey',
  scope: 'credentials',
  tags: TAGS,
  summary: 'Make a new webhook signing key (shown in this answer only; the previous one stops signing at once)',
  description: `${SCOPE_NOTE} The key is kept encrypted with an install key (docs/key-management.md), never in clear.`,
  body: EmptyWebhookBody,
  responses: { 201: { description: 'The new key', schema: SigningKeyRolled } },
  async handler({ engine }) {
    return { status: 201, body: await engine.webhooks.rollSigningKey() };
  },
});

export const webhookResponses = defineRoute({
  method: 'get',
  path: '/api/developers/webhook_responses',
  operationId: 'listWebhookResponses',
  tags: ['Laneway'],
  summary: 'The webhook delivery log: each attempt, newest first',
  description: `Ours (the spec names the portal page \`/developers/webhook_responses\`). Pages of \`limit\` attempts older than \`before\`; \`next_before\` is null on the last page. ${READ_NOTE}`,
  query: WebhookResponsesQuery,
  responses: { 200: { description: 'A page', schema: WebhookResponsesPage }, 400: err('Invalid query') },
  async handler({ engine, query }) {
    return { body: await engine.webhooks.responses(query) };
  },
});

export const resendWebhook = defineRoute({
  method: 'post',
  path: '/api/developers/webhook_responses/:id/resend',
  operationId: 'resendWebhook',
  scope: 'credentials',
  tags: ['Laneway'],
  summary: "Send a logged attempt's event to its endpoint again, now",
  description: `Ours. The body is the record's export view as it stands now, signed with the current key; the attempt is logged (\`manual: true\`) and answered, whatever its outcome. It does not change the endpoint's queue. ${SCOPE_NOTE}`,
  params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
  body: EmptyWebhookBody,
  responses: { 200: { description: 'The attempt', schema: ref(WebhookResponse) }, 404: err('`webhook_response_not_found`, `webhook_endpoint_not_found`, `webhook_record_gone`') },
  async handler({ engine, params }) {
    return { body: await engine.webhooks.resend(params.id) };
  },
});

/** The signing-key route first: `/api/account/webhooks/signing_key` is not an endpoint id. */
export const webhookRoutes = [getWebhooks, createWebhook, rollWebhookKey, patchWebhook, deleteWebhook, webhookResponses, resendWebhook];
