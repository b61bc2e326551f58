import { Type, type Static } from '@sinclair/typebox';
import { component } from './components';

/** GET /api/status: what the status screen shows. */
export const InstallStatus = component(
  'InstallStatus',
  Type.Object({
    name: Type.String(),
    environment: Type.String(),
    version: Type.String(),
    watermark: Type.Integer(),
    store_bytes: Type.Integer(),
    started_at: Type.String(),
    now: Type.String(),
    timezone: Type.String({ description: "The account's time zone: screens show times in it (the shop's day and hour), whatever the reader's computer says" }),
    clock_offset_seconds: Type.Optional(Type.Integer({ description: 'How far the sandbox clock was moved ahead of the real time (0: not moved); `now` is the moved time' })),
  }),
);
export type InstallStatus = Static<typeof InstallStatus>;

/** One Server-Sent Event of GET /api/events (its `data`), as the engine publishes it. */
export const DomainEventBody = component(
  'DomainEvent',
  Type.Object({
    watermark: Type.Integer({ description: 'The watermark of the record version this event announces' }),
    type: Type.String({ description: '`<entity>.<verb>`, e.g. `invoice.updated`, `lane.status`' }),
    entity: Type.String(),
    key: Type.String({ description: "The entity's public key (identifier, number, token)" }),
    at: Type.String({ format: 'date-time' }),
    data: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'A small summary for live screens; never card data' })),
  }),
);
export type DomainEventBody = Static<typeof DomainEventBody>;
