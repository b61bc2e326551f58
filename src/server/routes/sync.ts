import { defineRoute, type AnyRoute } from '../route';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import {
  JoinedHub,
  JoinHub,
  PairedLane,
  PairedLaneList,
  PairingCode,
  PairingCodeCreate,
  PairingGrant,
  PairRequest,
  PullPage,
  PullQuery,
  PushBody,
  PushResult,
  ResolutionQuery,
  SyncException,
  SyncExceptionHandle,
  SyncResolutions,
  SyncLaneParams,
  SyncStatus,
  SyncStreamParams,
} from '../../shared/schemas/sync';

const TAGS = ['Sync'];
const err = (description: string) => ({ description, schema: ref(ErrorBody) });

const createPairingCode = defineRoute({
  method: 'post',
  path: '/api/sync/pairing-codes',
  operationId: 'createSyncPairingCode',
  tags: TAGS,
  summary: 'Hub: a one-time code that pairs a lane PC with this hub',
  description: 'Show the code on the hub; type it on the lane (POST /api/sync/hub there). Valid 15 minutes, single use, stored only as a hash. Needs the `credentials` scope and every scope of the API key: pairing makes a credential. A JWT minted by GET /api/whoami is refused (403 `minted_jwt_cannot_create_credentials`): the lane\'s credential would outlive it.',
  scope: 'credentials',
  body: PairingCodeCreate,
  responses: { 201: { description: 'The code', schema: ref(PairingCode) }, 409: err('`lane_paired`: that lane is paired already (revoke it first)') },
  async handler({ engine, body, principal }) {
    return { status: 201, body: await engine.sync.createPairingCode(body, principal!) };
  },
});

const pair = defineRoute({
  method: 'post',
  path: '/api/sync/pair',
  operationId: 'pairSyncLane',
  tags: TAGS,
  summary: 'Hub: exchange a pairing code for a lane credential',
  description: 'Called by the lane (the code is the credential). Answers a credential of the `lane` kind, which holds the `sync` scope only, and the hub\'s cashier-code key. Rate limited as every unauthenticated request.',
  auth: false,
  guessable: true,
  body: PairRequest,
  responses: { 201: { description: 'The lane credential, shown once', schema: ref(PairingGrant) }, 403: err('`pairing_code_invalid`: unknown, used or expired'), 409: err('`lane_paired`: another code of this lane was used already; revoke the lane first to pair another machine as it') },
  async handler({ engine, body }) {
    return { status: 201, body: await engine.sync.redeemPairingCode(body.code) };
  },
});

const listPairedLanes = defineRoute({
  method: 'get',
  path: '/api/sync/lanes',
  operationId: 'listSyncLanes',
  tags: TAGS,
  summary: 'Hub: the lanes paired with this hub',
  responses: { 200: { description: 'Paired lanes, revoked ones included', schema: PairedLaneList } },
  async handler({ engine }) {
    return { body: { lanes: await engine.sync.lanes() } };
  },
});

const revokeLane = defineRoute({
  method: 'delete',
  path: '/api/sync/lanes/:laneid',
  operationId: 'revokeSyncLane',
  tags: TAGS,
  summary: 'Hub: revoke a paired lane (its credential is disabled at once)',
  scope: 'credentials',
  params: SyncLaneParams,
  responses: { 200: { description: 'The lane, revoked', schema: ref(PairedLane) }, 404: err('`paired_lane_not_found`') },
  async handler({ engine, params }) {
    return { body: await engine.sync.revokeLane(params.laneid) };
  },
});

const pull = defineRoute({
  method: 'get',
  path: '/api/sync/pull/:stream',
  operationId: 'pullSyncStream',
  tags: TAGS,
  summary: 'Hub: documents of a pull stream after a watermark (replication pull)',
  description: 'The spec\'s polling rule: pass the greatest watermark seen (the answer\'s `checkpoint`), starting from 0; a page shorter than `limit` means caught up. Needs a lane credential (`sync` scope) of a paired, unrevoked lane.',
  scope: 'sync',
  params: SyncStreamParams,
  query: PullQuery,
  responses: { 200: { description: 'A page', schema: ref(PullPage) }, 403: err('`lane_not_paired`'), 404: err('`sync_stream_not_found`') },
  async handler({ engine, principal, params, query }) {
    return { body: await engine.sync.pull(principal!.credential, params.stream, query.watermark ?? 0, query.limit) };
  },
});

const push = defineRoute({
  method: 'post',
  path: '/api/sync/push/:stream',
  operationId: 'pushSyncStream',
  tags: TAGS,
  summary: 'Hub: take a lane\'s documents (replication push, idempotent by id)',
  description: 'The same document pushed again (a retry after a lost answer) changes nothing. The lane owns what it pushes, except customers, which both sides edit: the hub merges them by field, and `conflicts` holds the hub\'s version of each pushed customer the merge made differ from the pushed one (a pull page\'s shape), for the lane to take. A document of another lane is refused and recorded as a sync exception, as is a customer or an offline gift card spend that is not well-formed (`invalid_document`). Card data in a pushed document is masked before it is stored.',
  scope: 'sync',
  params: SyncStreamParams,
  body: PushBody,
  bodyLimit: '16mb',
  responses: { 200: { description: 'What the push changed', schema: ref(PushResult) }, 403: err('`lane_not_paired`'), 404: err('`sync_stream_not_found`') },
  async handler({ engine, principal, params, body }) {
    const outcome = await engine.sync.push(principal!.credential, params.stream, body.rows);
    return { body: outcome };
  },
});

const joinHub = defineRoute({
  method: 'post',
  path: '/api/sync/hub',
  operationId: 'joinSyncHub',
  tags: TAGS,
  summary: 'Lane: become a lane of the hub at this address, with the code the hub shows',
  description: 'Replaces this install\'s catalog, cashiers and register settings with the hub\'s, then replicates: sales, orders, transactions, journal and Z reports up; catalog, cashiers, settings and customers down. Same as `serve --hub URL --pairing-code CODE`.',
  scope: 'credentials',
  body: JoinHub,
  responses: { 201: { description: 'Paired', schema: JoinedHub }, 403: err('`pairing_refused`'), 409: err('`sync_already_paired`'), 503: err('`hub_unreachable`') },
  async handler({ engine, body }) {
    return { status: 201, body: await engine.sync.joinHub(body.hub, body.code) };
  },
});

const status = defineRoute({
  method: 'get',
  path: '/api/sync/status',
  operationId: 'getSyncStatus',
  tags: TAGS,
  summary: 'Sync state per peer: last success, lag, queued changes, last error',
  description: 'Each change of a lane\'s sync state is also a `sync.status` event on /api/events (entity `sync`).',
  responses: { 200: { description: 'Per peer', schema: ref(SyncStatus) } },
  async handler({ engine }) {
    return { body: await engine.sync.status() };
  },
});

const pause = defineRoute({
  method: 'post',
  path: '/api/sync/pause',
  operationId: 'pauseSync',
  tags: TAGS,
  summary: 'Pause replication with the hub (a lane) and with the upstream (a hub); the register keeps selling, changes queue',
  responses: { 200: { description: 'Sync state', schema: ref(SyncStatus) }, 412: err('`sync_not_paired`: not a lane and no upstream') },
  async handler({ engine }) {
    await engine.sync.pause();
    return { body: await engine.sync.status() };
  },
});

const resume = defineRoute({
  method: 'post',
  path: '/api/sync/resume',
  operationId: 'resumeSync',
  tags: TAGS,
  summary: 'Resume replication with the hub and the upstream',
  responses: { 200: { description: 'Sync state', schema: ref(SyncStatus) }, 412: err('`sync_not_paired`: not a lane and no upstream') },
  async handler({ engine }) {
    await engine.sync.resume();
    return { body: await engine.sync.status() };
  },
});

const resolutions = defineRoute({
  method: 'get',
  path: '/api/sync/resolutions',
  operationId: 'listSyncResolutions',
  tags: TAGS,
  summary: 'Hub: customer fields edited on both sides and who won, and pushed documents refused',
  query: ResolutionQuery,
  responses: { 200: { description: 'Newest first', schema: ref(SyncResolutions) } },
  async handler({ engine, query }) {
    return { body: await engine.sync.resolutions(query.limit) };
  },
});

const handleException = defineRoute({
  method: 'post',
  path: '/api/sync/exceptions/handled',
  operationId: 'handleSyncException',
  tags: TAGS,
  summary: 'Mark a sync exception handled (who and when are kept; a new occurrence opens it again)',
  description: 'A back-office user needs the `manage` grant (a manager or the owner). Marking one already handled changes nothing.',
  body: SyncExceptionHandle,
  responses: { 200: { description: 'The exception, handled', schema: ref(SyncException) }, 404: err('`sync_exception_not_found`') },
  async handler({ engine, body, principal }) {
    const by = principal?.user ? `${principal.user.name} <${principal.user.email}>` : `API credential ${principal?.credential ?? ''}`;
    return { body: await engine.sync.handleException(body.key, by, body.note) };
  },
});

export const syncRoutes: AnyRoute[] = [createPairingCode, pair, listPairedLanes, revokeLane, pull, push, joinHub, status, pause, resume, resolutions, handleException];
