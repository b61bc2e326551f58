import { Type, type Static } from '@sinclair/typebox';
import { component } from './components';

/** GET /api/sandbox/v1/clock and the answer of a move. */
export const SandboxClockState = component(
  'SandboxClock',
  Type.Object({
    now: Type.String({ format: 'date-time', description: "The sandbox's time: what every operation, cut-off and report uses" }),
    real_now: Type.String({ format: 'date-time', description: 'The real time' }),
    offset_seconds: Type.Integer({ minimum: 0, description: 'How far the sandbox clock is ahead of the real time' }),
    moved: Type.Boolean({ description: 'True once the clock was moved: the sandbox is not at the real time' }),
    timezone: Type.String({ description: "The account's time zone, in which processing days and months are counted" }),
    processing_cutoff: Type.String({ description: 'Local HH:MM at which each processing day closes' }),
    cutoffs_crossed: Type.Optional(Type.Integer({ minimum: 0, description: 'Cut-offs whose work ran during this move' })),
  }),
);
export type SandboxClockState = Static<typeof SandboxClockState>;

export const SandboxClockMove = Type.Object(
  {
    by: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 duration of weeks, days, hours, minutes, seconds: `P3D`, `PT12H`, `P1W2DT30M`', examples: ['P3D'] })),
    to: Type.Optional(Type.String({ maxLength: 40, description: "A date (`yyyy-mm-dd`: midnight in the account's time zone) or an ISO 8601 date-time, not before the sandbox's now", examples: ['2026-04-01'] })),
  },
  { additionalProperties: false, description: 'Exactly one of `by` or `to`' },
);
export type SandboxClockMove = Static<typeof SandboxClockMove>;
