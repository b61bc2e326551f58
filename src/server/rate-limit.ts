import { rateLimit } from 'express-rate-limit';
import type { RequestHandler } from 'express';
import { toErrorReply } from './errors';
import { fail } from '../engine/errors';

export const DEFAULT_RATE_LIMIT = 1500;

/**
 * Requests per minute per client IP (the spec's 1500 by default; the operator may change it).
 * Past the limit: 429, error code 1015, 'you are being rate limited', and Retry-After.
 */
export function rateLimiter(perMinute: number): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit: perMinute,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    handler(req, res) {
      const reset = (req as { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      // eslint-disable-next-line no-restricted-properties -- the limiter's window is wall-clock time, not business time
      const seconds = reset ? Math.max(1, Math.ceil((reset.getTime() - Date.now()) / 1000)) : 60;
      const { status, body } = toErrorReply(fail.rateLimited('rate_limited', 'you are being rate limited'));
      res.status(status).set('Retry-After', String(seconds)).json(body);
    },
  });
}
