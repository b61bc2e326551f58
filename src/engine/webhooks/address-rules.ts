import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/**
 * Where a production account's webhooks may not go (server-side request forgery): this machine
 * (loopback, `localhost`, the unspecified address, and every address of its own network
 * interfaces: a service listening on 0.0.0.0 answers on those too) and link-local addresses
 * (169.254/16, where cloud hosts answer their metadata service with credentials; fe80::/10), the metadata services
 * some clouds answer elsewhere (fd00:ec2::254, 100.100.100.200), plus multicast. Private
 * networks (10/8, 172.16/12, 192.168/16, fc00::/7) stay allowed: a shop's ERP on its own network
 * is a real endpoint. A sandbox account may post anywhere (tests and local receivers).
 *
 * Checked twice: on the URL when an endpoint is saved, and on every address a host name resolves
 * to when a delivery connects (a name that resolves to 127.0.0.1, or is re-pointed there later).
 * The interfaces' addresses are read at each check, so an address the machine gained since counts.
 */
export function isInternalAddress(address: string): boolean {
  const kind = isIP(address);
  if (kind === 4) return internalV4(address.split('.').map(Number));
  const groups = kind === 6 ? expandV6(address.toLowerCase()) : undefined;
  return kind === 6 && (!groups || internalV6(groups));
}

function internalV6(groups: number[]): boolean {
  const zeros = (n: number) => groups.slice(0, n).every((g) => g === 0);
  const v4 = () => [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff];
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible) carry an IPv4 address; :: and ::1 are this machine.
  if (zeros(5) && groups[5] === 0xffff) return internalV4(v4());
  if (zeros(6)) return (groups[6] === 0 && groups[7]! <= 1) || internalV4(v4());
  // fd00:ec2::254: a cloud's metadata service inside fc00::/7 (AWS's, over IPv6).
  const awsMetadata = groups[0] === 0xfd00 && groups[1] === 0x0ec2 && groups.slice(2, 7).every((g) => g === 0) && groups[7] === 0x254;
  return (groups[0]! & 0xffc0) === 0xfe80 || (groups[0]! & 0xff00) === 0xff00 || awsMetadata || ownAddresses().v6.has(groups.join(':'));
}

function internalV4(octets: number[]): boolean {
  const [a, b, c, d] = octets;
  // 100.100.100.200: a cloud's metadata service outside link-local (Alibaba's).
  const fixed = a === 127 || a === 0 || (a === 169 && b === 254) || a! >= 224 || (a === 100 && b === 100 && c === 100 && d === 200);
  return fixed || ownAddresses().v4.has(octets.join('.'));
}

/**
 * The addresses of this machine's interfaces (eth0's, a bridge's, a VPN's...), read now rather
 * than once: an address the machine gains later counts at the next check. IPv4 as dotted octets,
 * IPv6 as eight expanded groups, so any spelling of one matches.
 */
function ownAddresses(): { v4: Set<string>; v6: Set<string> } {
  const v4 = new Set<string>();
  const v6 = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const { address } of list ?? []) {
      const bare = address.replace(/%.*$/, '');
      const kind = isIP(bare);
      if (kind === 4) v4.add(bare.split('.').map(Number).join('.'));
      else if (kind === 6) {
        const groups = expandV6(bare.toLowerCase());
        if (groups) v6.add(groups.join(':'));
      }
    }
  }
  return { v4, v6 };
}

/** Eight 16-bit groups; a trailing dotted IPv4 part becomes the last two. */
function expandV6(a: string): number[] | undefined {
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(a);
  if (dotted) {
    const [b0, b1, b2, b3] = dotted.slice(1).map(Number) as [number, number, number, number];
    a = `${a.slice(0, dotted.index)}${((b0 << 8) | b1).toString(16)}:${((b2 << 8) | b3).toString(16)}`;
  }
  const [head, tail] = a.split('::') as [string, string | undefined];
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const h = part(head);
  const t = part(tail);
  if (tail === undefined && h.length !== 8) return undefined;
  const groups = [...h, ...Array<number>(Math.max(0, 8 - h.length - t.length)).fill(0), ...t];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

/** The host of a URL names this machine (one of its addresses, or `localhost`) or a link-local address. */
export function isInternalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && isInternalAddress(host);
}

export const INTERNAL_REFUSED = 'webhook_url_internal';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * dns.lookup for a delivery's connection that fails when any address the name resolves to is
 * internal (see above), so the socket never opens to it.
 */
export function externalOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const list = addresses as LookupAddress[];
    const internal = list.find((a) => isInternalAddress(a.address));
    if (internal) {
      const refused: NodeJS.ErrnoException = new Error(`${hostname} resolves to ${internal.address}, an address of this machine (or one of its interfaces) or a link-local one: a production account does not deliver there`);
      refused.code = 'EADDRNOTALLOWED';
      return callback(refused, []);
    }
    if (options.all) return callback(null, list);
    const first = list[0];
    if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}
