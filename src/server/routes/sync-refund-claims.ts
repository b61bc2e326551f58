import { defineRoute, type AnyRoute } from '../route';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { LaneRefundClaim, LaneRefundClaimAnswer } from '../../shared/schemas/sync-refund-claims';

const laneRefundClaim = defineRoute({
  method: 'post',
  path: '/api/sync/refund-claims',
  operationId: 'laneSyncRefundClaim',
  tags: ['Sync'],
  summary: "Hub: a lane's claim before it refunds or voids one of its payments",
  description:
    "The hub decides what is left of a lane's payment: the hub's back office and API may refund it too. Before a paired lane refunds or voids one of its payments, it claims the amount here with its lane credential (`sync` scope), under the token its refund or void will take. The hub grants it in one unit of work when its copy has that much left after every refund it holds (its own and the lane's) and the claims still open, or refuses it (`error`: `nothing_to_refund`, `amount_exceeds_refundable`); the hub's own refunds count the open claims too. A claim closes when the lane's refund or void reaches the hub, or by `release`. The same claim again is granted once.",
  scope: 'sync',
  body: LaneRefundClaim,
  responses: { 200: { description: 'Granted, released, or refused (`error`)', schema: LaneRefundClaimAnswer }, 403: { description: '`lane_not_paired`', schema: ref(ErrorBody) } },
  async handler({ engine, principal, body }) {
    return { body: (await engine.sync.refundClaim(principal!.credential, body)) as never };
  },
});

export const syncRefundClaimRoutes: AnyRoute[] = [laneRefundClaim];
