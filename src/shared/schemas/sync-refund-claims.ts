import { Type, type Static } from '@sinclair/typebox';

/**
 * A lane's claim on its hub before it gives back money of one of its payments (POST
 * /api/sync/refund-claims): the hub decides what is left of a lane's payment (docs/sync.md,
 * "Refunds of a lane's payments").
 */
export const LaneRefundClaim = Type.Object(
  {
    op: Type.Union([Type.Literal('claim'), Type.Literal('release')], {
      description: '`claim` the amount before the refund or void is made (granted once per lane and `token`); `release` it when the refund or void was not made (declined, failed, or a retry answered by an earlier one)',
    }),
    transaction: Type.String({ minLength: 1, maxLength: 64, description: "The lane's payment (sale or capture) given back" }),
    action: Type.Union([Type.Literal('refund'), Type.Literal('void')]),
    amount_cents: Type.Integer({ minimum: 1, maximum: 100_000_000, description: 'What goes back (a void: the whole payment)' }),
    token: Type.String({ minLength: 1, maxLength: 64, description: 'The token the refund or void takes on the lane: the claim closes when that transaction reaches the hub' }),
  },
  { additionalProperties: false },
);
export type LaneRefundClaim = Static<typeof LaneRefundClaim>;

export const LaneRefundClaimAnswer = Type.Object(
  {
    claimed: Type.Optional(Type.Literal(true)),
    released: Type.Optional(Type.Literal(true)),
    left_cents: Type.Optional(Type.Union([Type.Integer(), Type.Null()], { description: 'What is left of the payment on the hub after this claim (null: the hub does not hold the payment yet)' })),
    error: Type.Optional(Type.Object({ kind: Type.String(), code: Type.String(), message: Type.String() }, { description: 'The hub refused the claim (`nothing_to_refund`, `amount_exceeds_refundable`, `transaction_not_found`)' })),
  },
  { additionalProperties: false },
);
