import { Type, type Static } from '@sinclair/typebox';
import { component } from './components';
import { Watermark } from './common';

/** Sync between installs: pairing a lane with its hub, the replication operations, sync state. */
const SyncLaneId = Type.String({ pattern: '^[A-Za-z0-9_-]{1,20}$', description: 'The lane this pairing is for (1 to 20 letters, digits, `-`, `_`); the lane\'s sales carry it in their numbers.', examples: ['2'] });
const nullableString = Type.Union([Type.String(), Type.Null()]);

export const PairingCodeCreate = Type.Object(
  { laneid: SyncLaneId, name: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })) },
  { additionalProperties: false },
);

export const PairingCode = component(
  'SyncPairingCode',
  Type.Object({
    code: Type.String({ description: 'Shown on the hub; typed on the lane once. Valid 15 minutes, single use.', examples: ['K7M2Q-9XH4T'] }),
    laneid: Type.String(),
    expires_at: Type.String({ format: 'date-time' }),
  }),
);

export const PairRequest = Type.Object({ code: Type.String({ minLength: 4, maxLength: 20 }) }, { additionalProperties: false });

export const PairingGrant = component(
  'SyncPairingGrant',
  Type.Object({
    laneid: Type.String(),
    token: Type.String({ description: 'The lane credential (kind `lane`, `sync` scope only): HTTP Basic user name' }),
    key: Type.String({ description: 'Its secret key, shown once' }),
    cashier_code_key: Type.String({ description: "The hub's cashier-code key: the hub's cashiers sign in on the lane with their codes" }),
    hub_account: Type.String(),
  }),
);

export const JoinHub = Type.Object(
  { hub: Type.String({ format: 'uri', pattern: '^https?://', description: "The hub's address, e.g. http://backoffice:8750" }), code: Type.String({ minLength: 4, maxLength: 20 }) },
  { additionalProperties: false },
);

export const JoinedHub = Type.Object({ laneid: Type.String(), hub: Type.String() });

export const PairedLane = component(
  'SyncPairedLane',
  Type.Object({
    laneid: Type.String(),
    name: Type.String(),
    credential: Type.String({ description: 'The lane credential\'s token (disabled on revoke)' }),
    paired_at: Type.String({ format: 'date-time' }),
    revoked_at: nullableString,
  }),
);

export const PairedLaneList = Type.Object({ lanes: Type.Array(PairedLane) });
export const SyncLaneParams = Type.Object({ laneid: SyncLaneId });
export const SyncStreamParams = Type.Object({ stream: Type.String({ pattern: '^[a-z_]{1,40}$', description: 'A replication stream (docs/sync.md): pull `hub_records`, `customers`; push `lane_records`, `orders`, `transactions`, `customers` (merged field by field)' }) });

export const PullQuery = Type.Object({
  watermark: Type.Optional(Watermark),
  limit: Type.Integer({ minimum: 1, maximum: 2500, default: 100 }),
});

const SyncDocument = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 200 }), watermark: Type.Optional(Type.Integer({ minimum: 0 })) },
  { additionalProperties: true, description: 'A stored document as replicated: id, watermark (the sender\'s), indexed fields, data' },
);

export const PullPage = component(
  'SyncPullPage',
  Type.Object({
    documents: Type.Array(SyncDocument),
    checkpoint: Type.Union([Type.Object({ watermark: Type.Integer({ minimum: 0 }) }), Type.Null()], { description: 'The greatest watermark of this page: the next pull starts after it' }),
    clock: Type.Optional(Type.String({ description: "Customers stream: the hub's hybrid logical clock (`<ms>.<counter>@hub`) after every edit in the page; the lane's clock moves past it" })),
  }),
);

export const PushBody = Type.Object(
  {
    rows: Type.Array(
      Type.Object({
        newDocumentState: SyncDocument,
        assumedMasterState: Type.Optional(Type.Union([SyncDocument, Type.Null()])),
        stamp: Type.Optional(Type.String({ maxLength: 80, description: "Customers: the lane's hybrid logical clock stamp of its last edit of the document (`<ms>.<counter>@lane:<laneid>`)" })),
      }),
      { maxItems: 1000 },
    ),
  },
  { additionalProperties: false },
);

export const PushResult = component(
  'SyncPushResult',
  Type.Object({
    written: Type.Integer(),
    unchanged: Type.Integer({ description: 'Documents the hub held already in this version (a repeated push)' }),
    refused: Type.Integer({ description: 'Documents of another lane, recorded as sync exceptions' }),
    conflicts: Type.Array(Type.Unknown(), { description: 'The hub\'s versions of pushed customers its field merge made differ from the pushed ones (RxDB push protocol: the master state to take). Empty for every other stream: the owner of a document wins' }),
  }),
);

const StreamStatus = Type.Object({
  stream: Type.String(),
  direction: Type.Union([Type.Literal('up'), Type.Literal('down'), Type.Literal('both')]),
  last_success_at: nullableString,
  last_error: nullableString,
  last_error_at: nullableString,
  queued: Type.Integer(),
  checkpoint: Type.Integer(),
});

export const SyncStatus = component(
  'SyncStatus',
  Type.Object({
    peers: Type.Array(
      Type.Object({
        peer: Type.String({ description: '`hub` (this install is a lane of it), `lane:<laneid>` (a lane of this hub) or `upstream` (the service this hub replicates with)' }),
        role: Type.Union([Type.Literal('hub'), Type.Literal('lane'), Type.Literal('upstream')]),
        url: nullableString,
        paused: Type.Boolean(),
        last_success_at: nullableString,
        last_error: nullableString,
        lag_ms: Type.Integer({ description: 'Time since the peer last confirmed a page while changes wait or the link fails; 0 when in sync' }),
        queued: Type.Integer({ description: 'Changes of this install the peer has not confirmed yet' }),
        streams: Type.Array(StreamStatus),
      }),
    ),
  }),
);
export type SyncStatus = Static<typeof SyncStatus>;

export const ResolutionQuery = Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }) });

export const SyncResolutions = component(
  'SyncResolutions',
  Type.Object({
    resolutions: Type.Array(
      Type.Object({
        customer: Type.String(),
        identifier: Type.String(),
        lane: Type.String(),
        at: Type.String({ format: 'date-time' }),
        fields: Type.Array(
          Type.Object({
            field: Type.String(),
            lane_value: Type.Unknown(),
            hub_value: Type.Unknown(),
            lane_stamp: Type.String({ description: '`<ms>.<counter>@<node>`: later wins' }),
            hub_stamp: Type.String(),
            winner: Type.Union([Type.Literal('lane'), Type.Literal('hub'), Type.Literal('upstream')]),
          }),
        ),
      }),
    ),
    exceptions: Type.Array(Type.Record(Type.String(), Type.Unknown()), { description: 'Open ones first, then handled ones, each newest first. Each has `key` (for POST /api/sync/exceptions/handled), `reason`, `at`, and `handled_at` (null while open; with `handled_by` and `handled_note` once handled). Pushed documents the hub refused (`owner_mismatch`, `not_lane_document`, `identifier_taken`, and `invalid_document` with its `problem`: a customer not of a customer\'s types, an offline gift card spend not one a lane\'s register makes), and gift cards spent by lanes while apart beyond the floor limit (`offline_floor_excess`: `card_last4`, `lanes`, `floor_cents`, `spent_cents`, `excess_cents`); for the upstream (`peer` `upstream`, `document` `invoices/NUMBER` etc., `direction`, `message`): records either side\'s import refused (`upstream_refused`), an invoice deleted here the upstream still has (`upstream_not_deleted`, `upstream_owing_cents`), a payment reversed here the upstream still counts (`upstream_not_reversed`, `upstream_status`, `upstream_amount_cents`), and a change made here to an invoice deleted or a payment reversed upstream meanwhile, retired here too (`retired_upstream`)' }),
  }),
);

export const SyncExceptionHandle = Type.Object(
  {
    key: Type.String({ minLength: 1, maxLength: 500, description: 'The exception\'s `key`, as GET /api/sync/resolutions lists it' }),
    note: Type.Optional(Type.String({ maxLength: 500, description: 'What was done (kept with the exception)' })),
  },
  { additionalProperties: false },
);

export const SyncException = component('SyncException', Type.Record(Type.String(), Type.Unknown(), { description: 'A sync exception as GET /api/sync/resolutions lists it, with `handled_at`, `handled_by` and `handled_note`' }));

export const UpstreamSet = Type.Object(
  {
    url: Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048, description: "The upstream's address (another Laneway's, or the cloud service's), e.g. https://api.example.com" }),
    token: Type.String({ minLength: 1, maxLength: 200, description: "The upstream API key's token (HTTP Basic user)" }),
    key: Type.String({ minLength: 1, maxLength: 500, description: "The upstream API key's secret (HTTP Basic password): sealed at rest, never answered back" }),
  },
  { additionalProperties: false },
);

export const UpstreamView = component(
  'SyncUpstream',
  Type.Object({
    url: Type.String(),
    token: Type.String(),
    set_at: Type.String({ format: 'date-time' }),
    paused: Type.Boolean(),
  }),
);
