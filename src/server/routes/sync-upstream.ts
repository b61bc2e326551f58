import { Type } from '@sinclair/typebox';
import { defineRoute, type AnyRoute } from '../route';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { UpstreamSet, UpstreamView } from '../../shared/schemas/sync';

/**
 * Laneway's own operations (not in the reference): the upstream service a hub replicates its
 * customers, invoices and payments with (docs/sync.md, "Hub ↔ upstream"). Owner's settings: the
 * `settings` scope (the API key, an owner's or manager's session, a JWT minted with it), as
 * PATCH /api/account. Setting it sends the install's records to that address until removed, so
 * the screens' default JWT (a day long, `api` only) must not: the `api` scope alone would admit it.
 */
const TAGS = ['Sync'];
const err = (description: string) => ({ description, schema: ref(ErrorBody) });

const setUpstream = defineRoute({
  method: 'put',
  path: '/api/sync/upstream',
  operationId: 'setSyncUpstream',
  tags: TAGS,
  scope: 'settings',
  summary: 'Hub: replicate with an upstream service (Laneway)',
  description:
    "Sets the upstream's address and API key and (re)starts replication with it: its customers, invoices and payments exports are polled by the watermark protocol (list=true, limit 2500) and imported here by this install's import rules; records created or changed here are sent to its import operations, which upsert on their identifiers. " +
    'The key is sealed at rest under the install key (purpose `settings_secret`) and never answered back. A new address starts from watermark 0; the same address resumes from its checkpoints. Pause and resume with POST /api/sync/pause and /resume; state in GET /api/sync/status (peer `upstream`).',
  body: UpstreamSet,
  responses: { 200: { description: 'The upstream, without its key', schema: ref(UpstreamView) }, 400: err('`upstream_url_invalid`') },
  async handler({ engine, body }) {
    return { body: await engine.sync.setUpstream(body) };
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
