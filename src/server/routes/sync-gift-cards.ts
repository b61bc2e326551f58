import { defineRoute, type AnyRoute } from '../route';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { LaneGiftAnswer, LaneGiftRequest } from '../../shared/schemas/sync-gift-cards';

const laneGiftCard = defineRoute({
  method: 'post',
  path: '/api/sync/gift-cards',
  operationId: 'laneSyncGiftCard',
  tags: ['Sync'],
  summary: "Hub: a lane's gift card balance read, sale, void, refund or load, made on the hub",
  description:
    "The hub is the one place a shop's gift card balances live. A linked lane sends its gift card tenders here with its lane credential (`sync` scope): each is applied by the hub's own gateway and gift card rules in one unit of work, so two lanes spending one card at once never take more than its balance; a sale, void, refund or load is applied once per lane and `reference` (a retry after a lost answer answers the first outcome; another request under the same reference is refused, `duplicate_unique_reference`; a load sent without a reference, by a lane of an earlier version, is applied each time). A lane voids or refunds only its own transactions. Refusals of the gift card rules are answered as `error` (kind, code, message), a decline as `result.approved` false.",
  scope: 'sync',
  body: LaneGiftRequest,
  responses: { 200: { description: 'The outcome', schema: LaneGiftAnswer }, 403: { description: '`lane_not_paired`', schema: ref(ErrorBody) } },
  async handler({ engine, principal, body }) {
    return { body: (await engine.sync.giftCard(principal!.credential, body)) as never };
  },
});

export const syncGiftCardRoutes: AnyRoute[] = [laneGiftCard];
