import { Type, type Static } from '@sinclair/typebox';

/**
 * A lane's gift card request to its hub (POST /api/sync/gift-cards): the hub is the one place a
 * shop's gift card balances live (docs/sync.md, "Gift cards across the shop").
 */
export const LaneGiftRequest = Type.Object(
  {
    op: Type.Union([Type.Literal('read'), Type.Literal('load'), Type.Literal('sale'), Type.Literal('void'), Type.Literal('refund'), Type.Literal('offline_refund'), Type.Literal('voidable'), Type.Literal('find')], {
      description:
        '`read` a balance (number and PIN), `load` (and activate) a card, `sale` by the token a read answered, `void` or `refund` a sale of this lane, `offline_refund` part of a tender this lane took apart from the hub (its `tender`; at most what that spend took, once it reached the hub), `voidable` whether it still can be voided, `find` what a request sent under `reference` did (after a lost answer; `action` names it, a sale by default, then a load when no sale is under the reference)',
    }),
    card_number: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'read and load only; never stored or logged by the hub (it keeps a keyed fingerprint)' })),
    pin: Type.Optional(Type.Union([Type.String({ maxLength: 12 }), Type.Null()])),
    token: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The card token a read answered (sale)' })),
    transaction: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The hub transaction of this lane to void or refund' })),
    tender: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "offline_refund only: the lane's tender id its offline spend was pushed under" })),
    amount_cents: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000 })),
    activated: Type.Optional(Type.Boolean()),
    reference: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 120,
        description:
          "The lane's tender or reversal id, or the reference it drew for a load: the hub applies a sale, void, refund or load once per lane and reference (the same request again answers the first outcome; another under the reference is refused, `duplicate_unique_reference`). A load sent without one (a lane of an earlier version) is applied each time it arrives.",
      }),
    ),
    action: Type.Optional(Type.Union([Type.Literal('sale'), Type.Literal('void'), Type.Literal('refund'), Type.Literal('load')], { description: 'find only' })),
  },
  { additionalProperties: false },
);
export type LaneGiftRequest = Static<typeof LaneGiftRequest>;

export const LaneGiftAnswer = Type.Object(
  {
    read: Type.Optional(Type.Object({ token: Type.Optional(Type.String()), balance: Type.Integer(), activated: Type.Boolean() }, { additionalProperties: true })),
    load: Type.Optional(Type.Object({ token: Type.String(), balance: Type.Integer(), activated: Type.Boolean() }, { additionalProperties: true })),
    result: Type.Optional(Type.Object({ approved: Type.Boolean(), body: Type.Object({}, { additionalProperties: true }) })),
    record: Type.Optional(Type.Object({ gift_last4: Type.Union([Type.String(), Type.Null()]), amount_cents: Type.Integer() }, { additionalProperties: true })),
    voidable: Type.Optional(Type.Boolean()),
    found: Type.Optional(Type.Null()),
    error: Type.Optional(Type.Object({ kind: Type.String(), code: Type.String(), message: Type.String() }, { description: "The hub's gift card rules refused the request (an insufficient balance is a declined `result`, not an error)" })),
  },
  { additionalProperties: false },
);
