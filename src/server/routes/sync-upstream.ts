import { Type } from '@sinclair/typebox';
import { defineRoute, type AnyRoute } from '../route';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { UpstreamSet, UpstreamView } from '../../shared/schemas/sync';

/**
 * Laneway's own operations (not in the reference): the upstream service a hub replicates its
 * customers, invoices and payments with (docs/sync.md, "Hub ↔ upstream"). Setting it sends the
 * install's records to that address until it is removed, as a webhook endpoint does, so it takes
 * what a webhook endpoint takes: the `credentials` scope (the API key or an owner's session), and
 * never a JWT minted by whoami, which the upstream would outlive. Reading it and removing it need
 * `settings` (a manager may stop it).
 */
const TAGS = ['Sync'];
const err = (description: string) => ({ description, schema: ref(ErrorBody) });

const setUpstream = defineRoute({
  method: 'put',
  path: '/api/sync/upstream',
  operationId: 'setSyncUpstream',
  tags: TAGS,
  scope: 'credentials',
  summary: 'Hub: replicate with an upstream service (Laneway)',
  description:
    "Sets the upstream's address and API key and (re)starts replication with it: its customers, invoices and payments exports are polled by the watermark protocol (list=true, limit 2500) and imported here by this install's import rules; records created or changed here are sent to its import operations, which upsert on their identifiers. " +
    'The key is sealed at rest under the install key (purpose `settings_secret`) and never answered back. A new address starts from watermark 0; the same address resumes from its checkpoints. Pause and resume with POST /api/sync/pause and /resume; state in GET /api/sync/status (peer `upstream`). ' +
    'Needs the `credentials` scope: the API key (HTTP Basic) or an owner\'s session. The upstream goes on receiving the install\'s records after the request, so a JWT minted by GET /api/whoami is refused (403 `minted_jwt_cannot_create_credentials`), as for webhook endpoints.',
  body: UpstreamSet,
  responses: { 200: { description: 'The upstream, without its key', schema: ref(UpstreamView) }, 400: err('`upstream_url_invalid`'), 403: err('`insufficient_scope`, `minted_jwt_cannot_create_credentials`') },
  async handler({ engine, body, principal }) {
    return { body: await engine.sync.setUpstream(body, principal!) };
  },
});

const getUpstream = defineRoute({
  method: 'get',
  path: '/api/sync/upstream',
  operationId: 'getSyncUpstream',
  tags: TAGS,
  summary: 'Hub: the upstream service this hub replicates with (Laneway)',
  responses: { 200: { description: 'The upstream (without its key), or null when there is none', schema: Type.Object({ upstream: Type.Union([ref(UpstreamView), Type.Null()]) }) } },
  async handler({ engine }) {
    return { body: { upstream: await engine.sync.upstream() } };
  },
});

const removeUpstream = defineRoute({
  method: 'delete',
  path: '/api/sync/upstream',
  operationId: 'removeSyncUpstream',
  tags: TAGS,
  scope: 'settings',
  summary: 'Hub: stop replicating with the upstream and forget its key (Laneway)',
  responses: { 200: { description: 'Removed', schema: Type.Object({ upstream: Type.Null() }) } },
  async handler({ engine }) {
    await engine.sync.removeUpstream();
    return { body: { upstream: null } };
  },
});

export const syncUpstreamRoutes: AnyRoute[] = [setUpstream, getUpstream, removeUpstream];
