import type { Response } from 'express';
import { fail } from '../engine/errors';

export const DEFAULT_RATE_LIMIT = 1500;

/** The anonymous budget of an IP, by default: a tenth of a credential's, at least one. */
export const anonymousLimitFor = (perMinute: number): number => Math.max(1, Math.floor(perMinute / 10));

const WINDOW_MS = 60_000;

interface Window {
  count: number;
  start: number;
}

/**
 * Requests per minute, in separate buckets (fixed one-minute windows):
 * - one per credential, for requests that proved a credential (Basic or a JWT of it): what one
 *   integration or screen spends cannot starve another, and nobody without the credential can
 *   spend it;
 * - one per client IP for everything else (operations open to all, bad or missing credentials,
 *   unknown paths), smaller: every local process shares 127.0.0.1, and a flood of bad credentials
 *   must not lock the till out.
 * Past a bucket's limit: 429, error code 1015, 'you are being rate limited', and Retry-After.
 */
export class RateLimits {
  private readonly windows = new Map<string, Window>();

  constructor(
    readonly perCredential: number,
    readonly anonymous: number,
    // eslint-disable-next-line no-restricted-properties -- the limiter's window is wall-clock time, not business time
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Spends one request of the credential's bucket; throws 429 when it is empty. */
  credential(token: string, res: Response): void {
    this.take(`c:${token}`, this.perCredential, res);
  }

  /** Spends one request of the IP's anonymous bucket; throws 429 when it is empty. */
  unauthenticated(ip: string | undefined, res: Response): void {
    this.take(`a:${ip ?? '?'}`, this.anonymous, res);
  }

  private take(key: string, limit: number, res: Response): void {
    const now = this.now();
    let w = this.windows.get(key);
    if (!w || now - w.start >= WINDOW_MS) {
      if (!w && this.windows.size >= 10_000) this.sweep(now);
      w = { count: 0, start: now };
      this.windows.set(key, w);
    }
    w.count += 1;
    const reset = Math.max(1, Math.ceil((w.start + WINDOW_MS - now) / 1000));
    res.setHeader('RateLimit-Policy', `${limit};w=${WINDOW_MS / 1000}`);
    res.setHeader('RateLimit', `limit=${limit}, remaining=${Math.max(0, limit - w.count)}, reset=${reset}`);
    if (w.count > limit) {
      res.setHeader('Retry-After', String(reset));
      throw fail.rateLimited('rate_limited', 'you are being rate limited');
    }
  }

  /** Windows that ended hold nothing: drop them so many client IPs cannot grow the map for ever. */
  private sweep(now: number): void {
    for (const [key, w] of this.windows) if (now - w.start >= WINDOW_MS) this.windows.delete(key);
  }
}
