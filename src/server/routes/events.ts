import { Type } from '@sinclair/typebox';
import type { DomainEvent } from '../../engine/events';
import { authorize, type Principal } from '../../engine/account';
import { authenticate } from '../auth';
import { defineRoute } from '../route';
import { grantsOf } from '../role-grants';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { eventStreamsOf, LiveStream, MAX_QUEUED, MAX_REPLAY, STREAMS_PER_CREDENTIAL } from '../event-streams';

const GRANTS = grantsOf({ method: 'get', path: '/api/events' });
/** Events that may take a stream's right away: a credential or a user disabled, a role changed. */
const REVOKING = new Set(['credential', 'user']);

/**
 * What someone who may only work the register (a cashier) follows: lanes, the register's sales,
 * shifts, drawer and settings, the sync badge, the sandbox clock. Every other event names customers,
 * payments, wallet tokens or users, which their role does not read.
 */
const REGISTER_ENTITIES = new Set(['lane', 'drawer', 'sync', 'sandbox_clock']);
/**
 * Events whose key or data is a token that charges (a wallet, its payment methods, the account's
 * own fund sources, a gift card and the lanes' copy of it, a gift card spent or refunded on a lane
 * apart from its hub, an autopay or debit agreement, a checkout's tokenized payment method, and
 * its session and sale, whose id pays with the session's wallet): every one of them from the first
 * watermark is the whole vault's tokens at once, which only those who move money get (as the
 * wallet exports and a card file's echo are). A clerk reads a wallet one at a time, on its
 * customer's page.
 */
const MONEY_ENTITIES = new Set(['wallet', 'fund', 'fund_source', 'gift_card', 'gift_card_copy', 'pos_offline_spend', 'pos_offline_refund', 'autopay', 'debit_agreement', 'ecommerce_token', 'ecommerce_session', 'ecommerce_sale']);
const readEvent = (e: DomainEvent) => !MONEY_ENTITIES.has(e.entity);
// A cashier does not move money either: the register's gift card spends made apart are not theirs to follow.
const registerEvent = (e: DomainEvent) => (e.entity.startsWith('pos_') || REGISTER_ENTITIES.has(e.entity)) && readEvent(e);
const everyEvent = () => true;
function eventsFor(p: Principal): (e: DomainEvent) => boolean {
  if (p.scopes.includes('api') || (p.scopes.includes('read') && p.scopes.includes('money'))) return everyEvent;
  return p.scopes.includes('read') ? readEvent : registerEvent;
}

/**
 * Server-Sent Events of domain events, for the screens. A client that reconnects with
 * Last-Event-ID (or `?watermark=`) first gets what it missed from the persisted outbox, then the
 * live stream, with no gap and no repeat.
 */
export const eventStream = defineRoute({
  method: 'get',
  path: '/api/events',
  operationId: 'streamEvents',
  tags: ['Laneway'],
  summary: 'Live domain events (text/event-stream)',
  description:
    'Each event: `id` = watermark, `event` = type (e.g. `invoice.updated`), `data` = JSON `{watermark, type, entity, key, at, data?}`. Resume with the `Last-Event-ID` header or `watermark`: what was missed is replayed first, up to ' + MAX_REPLAY.toLocaleString('en-US') + ' events; a client further behind (or with an id this install never gave) gets `stream.resync` instead (entity `stream`, `id` the watermark followed from): read the state again, the events after it follow. One credential or user holds at most ' + STREAMS_PER_CREDENTIAL + ' streams open (`--max-streams`): a new one closes the oldest, which gets `stream.closed` (key `too_many_streams`, no `id`) first. A client that does not read its stream is not sent more: a replay waits for it, and a live stream queuing over ' + MAX_QUEUED / 2 ** 20 + ' MB for it ends (resume with `Last-Event-ID`). A user who may only work the register (a cashier) gets only the register\'s events: `lane`, `drawer`, `sync`, `sandbox_clock` and `pos_*` entities (but `pos_offline_spend` and `pos_offline_refund`). A user who reads but does not move money (a clerk) gets every event but those of `wallet`, `fund`, `fund_source`, `gift_card`, `gift_card_copy`, `pos_offline_spend`, `pos_offline_refund`, `autopay`, `debit_agreement`, `ecommerce_token`, `ecommerce_session` and `ecommerce_sale` (their keys or data are tokens that charge).',
  query: Type.Object({ watermark: Type.Optional(Type.Integer({ minimum: 0, format: 'int64' })) }),
  streams: true,
  responses: {
    200: { description: 'Event stream', contentType: 'text/event-stream', schema: Type.String() },
    401: { description: 'Missing or invalid credentials', schema: ref(ErrorBody) },
  },
  async handler({ engine, principal, req, res, query }) {
    // EventSource sends back the last id it was given, always a watermark here: anything else is an
    // id this install never gave, and is resynced as one (a stream that quietly began from now would
    // lose what the client missed).
    const sent = String(req.headers['last-event-id'] ?? '').trim();
    const header = sent === '' ? undefined : /^\d{1,15}$/.test(sent) ? Number(sent) : ('unknown' as const);
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    res.write(': connected\n\n');
    await new LiveStream({
      streams: eventStreamsOf(req.app),
      core: engine.core,
      res,
      credential: principal!.credential,
      visible: eventsFor(principal!),
      recheck: async () => {
        const now = await authenticate(engine, req);
        authorize(now, 'api', GRANTS);
        return eventsFor(now);
      },
      revokes: (e) => REVOKING.has(e.entity),
      after: header ?? query.watermark,
    }).run();
    return {};
  },
});
