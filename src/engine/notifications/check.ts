import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import type { RelayConfig } from './relay';
import { sendError, transportOptions } from './transport';

/** Why a relay could not be used: its name, the connection, TLS, or its user name and password. */
export type RelayFailure = 'dns' | 'refused' | 'unreachable' | 'timeout' | 'tls' | 'auth' | 'other';

/**
 * What trying the relay found when it was saved: connected, EHLO, STARTTLS or TLS as the relay's
 * settings ask, AUTH when a user name is set (nodemailer's `verify()`); no message is sent.
 */
export interface RelayCheck {
  ok: boolean;
  /** null when it worked. */
  reason: RelayFailure | null;
  /** What was found, in a sentence. */
  message: string;
  /** The system's or the relay's own words, when it did not work. */
  error: string | null;
  checked_at: string;
}

const code = (err: unknown, key: 'code' | 'errno' | 'responseCode') => (err as Record<string, unknown> | null)?.[key];

/** The cause of a failed connect, EHLO, STARTTLS or AUTH, from nodemailer's error (its `code`, then the system's words). */
export function failureOf(err: unknown): RelayFailure {
  const message = err instanceof Error ? err.message : String(err);
  const c = code(err, 'code');
  if (c === 'EDNS' || /\b(ENOTFOUND|EAI_AGAIN|EAI_NONAME)\b/.test(message)) return 'dns';
  if (c === 'EAUTH' || c === 'ENOAUTH') return 'auth';
  if (c === 'ETLS' || /\b(TLS|SSL|certificate|CERT_|self[- ]signed|wrong version number)\b/i.test(message)) return 'tls';
  if (/\bECONNREFUSED\b/.test(message)) return 'refused';
  if (/\b(EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENETDOWN)\b/.test(message)) return 'unreachable';
  if (c === 'ETIMEDOUT' || /\b(ETIMEDOUT|timeout|timed out)\b/i.test(message)) return 'timeout';
  return 'other';
}

function sentence(reason: RelayFailure, relay: RelayConfig, error: string, timeoutMs: number): string {
  const at = `${relay.host}:${relay.port}`;
  switch (reason) {
    case 'dns':
      return `The host name ${relay.host} does not resolve (DNS): check its spelling, or use the relay's IP address.`;
    case 'refused':
      return `Nothing accepts connections at ${at} (connection refused): check the host and the port.`;
    case 'unreachable':
      return `The network cannot reach ${at} (host or network unreachable).`;
    case 'timeout':
      return `${at} did not answer within ${Math.round(timeoutMs / 1000)} seconds: a firewall, or a wrong host or port.`;
    case 'tls':
      return error.startsWith('Not sent: ') ? error.replace(/^Not sent: /, '') : `TLS with ${at} failed: check "TLS from the first byte" (port 465) or STARTTLS (port 587), and the relay's certificate.`;
    case 'auth':
      return `${at} refused the user name or password${relay.user ? ` of ${relay.user}` : ''}.`;
    default:
      return `${at} answered with an error.`;
  }
}

/**
 * Tries the relay as the sender will use it, within `timeoutMs` all told (the name's lookup
 * included, which nodemailer's own timeouts do not cover). Never throws: a failure is the answer.
 */
export async function checkRelay(relay: RelayConfig, timeoutMs: number, now: () => number): Promise<RelayCheck> {
  const options: SMTPTransport.Options = transportOptions(relay, timeoutMs);
  const { default: nodemailer } = await import('nodemailer');
  const transport = nodemailer.createTransport(options);
  let timer: NodeJS.Timeout | undefined;
  const done = (check: Omit<RelayCheck, 'checked_at'>): RelayCheck => ({ ...check, checked_at: new Date(now()).toISOString() });
  try {
    await Promise.race([
      transport.verify(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error(`Timeout: no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })), timeoutMs + 500);
      }),
    ]);
    const signedIn = relay.user ? `, and took the user name and password of ${relay.user}` : '';
    return done({ ok: true, reason: null, message: `${relay.host}:${relay.port} answered${options.secure ? ' over TLS' : options.requireTLS ? ' (STARTTLS)' : ''}${signedIn}.`, error: null });
  } catch (err) {
    const reason = failureOf(err);
    const error = sendError(err, options);
    return done({ ok: false, reason, message: sentence(reason, relay, error, timeoutMs), error });
  } finally {
    if (timer) clearTimeout(timer);
    transport.close();
  }
}
