import { isIP } from 'node:net';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import type { RelayConfig } from './relay';

/**
 * The relay names this machine: `localhost`, 127.0.0.0/8 or ::1 (also spelled ::ffff:127.x.y.z).
 * A relay here is a local one (a sendmail or a tunnel), whose traffic never leaves the machine.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) !== 6) return false;
  // The URL parser writes an IPv6 address one way: [::1], [::ffff:7f00:1] for ::ffff:127.0.0.1.
  const canonical = new URL(`http://[${h}]/`).hostname;
  return canonical === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(canonical);
}

/**
 * The nodemailer options for the relay. The relay's user name and password go only over TLS:
 * from the first byte (`secure`), else after STARTTLS, which `requireTLS` makes a condition
 * rather than a wish (without it nodemailer sends AUTH in clear to a server that offers no
 * STARTTLS). A relay on this machine may stay plaintext: nothing it is sent leaves the machine.
 */
export function transportOptions(relay: RelayConfig, timeoutMs: number): SMTPTransport.Options {
  const credentials = relay.user !== '';
  return {
    host: relay.host,
    port: relay.port,
    secure: relay.secure,
    ...(credentials ? { auth: { user: relay.user, pass: relay.password } } : {}),
    ...(credentials && !relay.secure && !isLoopbackHost(relay.host) ? { requireTLS: true } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  };
}

/** What the outbox says of a failed attempt: why, in words that say what to change when TLS was the reason. */
export function sendError(err: unknown, options: SMTPTransport.Options): string {
  const message = err instanceof Error ? err.message : String(err);
  if (options.requireTLS && (err as { code?: string } | null)?.code === 'ETLS') {
    return `Not sent: the relay ${options.host}:${options.port} did not set up TLS (STARTTLS: ${message}), and its password is only sent encrypted to a relay that is not on this machine. Use a relay that offers STARTTLS, or secure: true (port 465).`.slice(0, 300);
  }
  return message.slice(0, 300);
}
