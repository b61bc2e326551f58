import { isIP } from 'node:net';
import type { Request } from 'express';
import { fail } from '../engine/errors';

/**
 * Which requests a browser may have sent on someone else's behalf, refused before anything else
 * runs. A page in the user's browser can reach this server (it listens on the same machine); it
 * must not be able to use it.
 */

/**
 * The Host names this server answers to. A DNS-rebinding page reaches 127.0.0.1 under its own
 * name (`evil.example`), and the browser sends that name as Host: only names we were told about
 * pass. IP literals pass too: a page can only be served under an IP if it came from that address
 * and port, which is this server.
 */
export function hostChecker(configured: readonly string[]): (req: Request) => void {
  const names = new Set(['localhost', ...configured.map(normalHost)]);
  return (req) => {
    const header = req.headers.host;
    // HTTP/1.0 clients may leave Host out; no browser does.
    if (header === undefined) return;
    const name = hostName(header);
    if (name !== null && (isIP(name) !== 0 || names.has(name))) return;
    throw fail.forbidden('host_not_allowed', 'This server does not answer to that host name. Use 127.0.0.1 or localhost, or start it with the name in --allowed-hosts or --public-url.');
  };
}

/** `Example.COM.` -> `example.com`; `[::1]` -> `::1`. */
export function normalHost(name: string): string {
  const lower = name.trim().toLowerCase().replace(/\.$/, '');
  return lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
}

/** The host part of a Host header, or null when it is not one. */
function hostName(header: string): string | null {
  const value = header.trim();
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    if (end < 0) return null;
    const rest = value.slice(end + 1);
    if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return null;
    return normalHost(value.slice(1, end));
  }
  const m = /^([^:]+)(?::\d{1,5})?$/.exec(value);
  return m ? normalHost(m[1]!) : null;
}

/**
 * Top-level navigations a link on another site may start: the screens, the click-to-pay links
 * sent to customers (pay_url) and the API docs, never an operation.
 */
const NAVIGABLE = /^\/(?:$|app(?:\/|$)|pay\/|api\/docs(?:\/|$)|ecommerce\/frame$)/;

/**
 * Refuses requests a browser sent from another origin. Browsers say where a request comes from:
 * `Sec-Fetch-Site` (every current browser) or else `Origin` (older ones, on anything but a plain
 * GET). `same-site` is refused too: a page on another port of 127.0.0.1 is same-site. Programs
 * (curl, the ERP, the reference's clients) send neither and pass; so do our own screens at /app,
 * which are same-origin. Top-level navigations to the screens and docs from a link pass: they
 * carry no credentials (no cookies here, no Basic challenge to replay). `publicUrl` is the
 * configured public base URL: its origin is ours too.
 */
export function checkCrossSite(req: Request, publicUrl = ''): void {
  // The ecommerce SDK is a public script that shops' pages load (it holds code, no data).
  if ((req.method === 'GET' || req.method === 'HEAD') && req.path === '/client.js') return;
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string') {
    if (site === 'same-origin' || site === 'none') return;
    const navigation = req.headers['sec-fetch-mode'] === 'navigate' && (req.method === 'GET' || req.method === 'HEAD');
    if (navigation && NAVIGABLE.test(req.path)) return;
    throw crossSite();
  }
  const origin = req.headers.origin?.toLowerCase();
  if (origin === undefined) return;
  if (req.headers.host !== undefined && origin === `${req.protocol}://${req.headers.host}`.toLowerCase()) return;
  // Behind a TLS proxy the browser's origin is the public URL's, not this socket's scheme and host.
  if (publicUrl && origin === originOf(publicUrl)) return;
  throw crossSite();
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin.toLowerCase();
  } catch {
    return undefined;
  }
}

const crossSite = () =>
  fail.forbidden('cross_site_request', 'Requests from web pages on other sites are refused. Call the API from a program, or from the screens at /app.');
