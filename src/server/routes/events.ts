import { Type } from '@sinclair/typebox';
import type { DomainEvent } from '../../engine/events';
import { defineRoute } from '../route';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';

const HEARTBEAT_MS = 15_000;
const REPLAY_PAGE = 500;

function frame(e: DomainEvent): string {
  return `id: ${e.watermark}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
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
    'Each event: `id` = watermark, `event` = type (e.g. `invoice.updated`), `data` = JSON `{watermark, type, entity, key, at, data?}`. Resume with the `Last-Event-ID` header or `watermark`.',
  query: Type.Object({ watermark: Type.Optional(Type.Integer({ minimum: 0, format: 'int64' })) }),
  streams: true,
  responses: {
    200: { description: 'Event stream', contentType: 'text/event-stream', schema: Type.String() },
    401: { description: 'Missing or invalid credentials', schema: ref(ErrorBody) },
  },
  async handler({ engine, req, res, query }) {
    const header = Number(req.headers['last-event-id']);
    let cursor = Number.isInteger(header) && header >= 0 ? header : (query.watermark ?? engine.core.currentWatermark());
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    res.write(': connected\n\n');

    // Subscribe before replaying, hold live events until the replay has caught up.
    const held: DomainEvent[] = [];
    let live = false;
    const unsubscribe = engine.core.bus.subscribe((e) => {
      if (!live) held.push(e);
      else if (e.watermark > cursor) {
        cursor = e.watermark;
        res.write(frame(e));
      }
    });
    const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), HEARTBEAT_MS);
    const stop = () => {
      clearInterval(heartbeat);
      unsubscribe();
    };
    req.on('close', stop);

    for (;;) {
      const page = await engine.core.eventsSince(cursor, REPLAY_PAGE);
      for (const e of page) {
        cursor = e.watermark;
        res.write(frame(e));
      }
      if (page.length < REPLAY_PAGE) break;
    }
    for (const e of held) {
      if (e.watermark > cursor) {
        cursor = e.watermark;
        res.write(frame(e));
      }
    }
    held.length = 0;
    live = true;
    return {};
  },
});
