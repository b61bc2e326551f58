import { defineRoute, type AnyRoute } from '../route';
import { fail } from '../../engine/errors';
import { parseClockTarget, parseDuration } from '../../engine/sandbox-clock';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { SandboxClockMove, SandboxClockState } from '../../shared/schemas/sandbox-clock';

const ABOUT = `Laneway's own operation (not in the reference API), sandbox only, like Stripe's test clocks. The sandbox's time is the
real time plus an offset that only grows; it survives a restart. Moving it forward runs, at every processing-day cut-off on the
way and in order, what the clock drives: card batches close and deposit, ACH/EFT settle and return, chargebacks arrive,
authorization holds expire, autopay charges, and monthly statements are made when a month closes. \`GET /api/status\` shows
\`clock_offset_seconds\` so screens can say the sandbox is not at the real time. A production install answers 403 \`sandbox_only\`.`;

export const getSandboxClock = defineRoute({
  method: 'get',
  path: '/api/sandbox/v1/clock',
  operationId: 'getSandboxClock',
  tags: ['Laneway'],
  summary: "Read the sandbox's clock",
  description: ABOUT,
  responses: { 200: { description: 'The clock', schema: ref(SandboxClockState) }, 403: { description: 'Production install', schema: ref(ErrorBody) } },
  handler({ engine }) {
    if (engine.account.profile().environment !== 'sandbox') throw fail.forbidden('sandbox_only', 'A production install has no sandbox clock');
    return { body: engine.sandboxClock.state() };
  },
});

export const advanceSandboxClock = defineRoute({
  method: 'post',
  path: '/api/sandbox/v1/clock/advance',
  operationId: 'advanceSandboxClock',
  tags: ['Laneway'],
  summary: "Move the sandbox's clock forward by a duration or to a date",
  description: `${ABOUT}\n\nSend exactly one of \`by\` (\`P3D\`) or \`to\` (\`2026-04-01\`, midnight in the account's time zone, or a date-time). One move goes at most two years ahead; moving back is 400 \`clock_cannot_go_back\`. The answer comes once every crossed cut-off's work has run.`,
  body: SandboxClockMove,
  responses: {
    200: { description: 'The clock after the move', schema: ref(SandboxClockState) },
    403: { description: 'Production install', schema: ref(ErrorBody) },
  },
  async handler({ engine, body }) {
    if ((body.by === undefined) === (body.to === undefined)) throw fail.invalid('invalid_clock_move', 'Send exactly one of `by` (a duration such as P3D) or `to` (a date or date-time)');
    const move = body.by !== undefined ? { by_ms: parseDuration(body.by) } : { to: parseClockTarget(body.to!, engine.account.profile().timezone) };
    return { body: await engine.sandboxClock.advance(move) };
  },
});

export const sandboxClockRoutes: AnyRoute[] = [getSandboxClock, advanceSandboxClock];
