import { bodyOfRecord, UPSTREAM_ENTITIES, type UpstreamEntity } from '../../src/engine/sync/upstream-shapes';

/**
 * What a hub and its upstream are compared on: every customer, invoice and payment as its export
 * operation gives it, read page by page by the watermark protocol. Fields that are each install's
 * own (watermarks, internal ids, tokens, timestamps of the local write, pay links) are left out;
 * everything else, balances and owing included, must be equal.
 */
const OWN_FIELDS = new Set(['watermark', 'id', 'invoice_id', 'payment_transaction_token', 'payment_timestamp', 'pay_url', 'pay_urls', 'identifier_line', 'invoice_identifier', 'attachments', 'delivery_status']);

function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([k]) => !OWN_FIELDS.has(k) && !(k === 'identifier' && typeof (value as Record<string, unknown>).invoice_id === 'number'))
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => [k, strip(v)]),
    );
  }
  return value;
}

/** The entities both sides hold in full (orders only go up: compared by the test itself). */
const BOTH = UPSTREAM_ENTITIES.filter((e) => e.direction === 'both');

export type Api = <T>(method: string, path: string) => Promise<T>;

export async function exported(api: Api, entity: UpstreamEntity): Promise<Map<string, Record<string, unknown>>> {
  const spec = UPSTREAM_ENTITIES.find((e) => e.name === entity)!;
  const out = new Map<string, Record<string, unknown>>();
  let watermark = 0;
  for (;;) {
    const page = await api<Record<string, Array<Record<string, unknown> & { watermark: number }>>>('GET', `${spec.exportPath}?watermark=${watermark}&list=true&limit=2500`);
    const records = page[entity]!;
    for (const r of records) {
      const body = bodyOfRecord(entity, r);
      const key = String(entity === 'invoices' ? r.number : entity === 'customers' ? r.identifier : r.payment_reference);
      if (body) out.set(key, strip(r) as Record<string, unknown>);
      watermark = Math.max(watermark, r.watermark);
    }
    if (records.length < 2500) return out;
  }
}

/** Every difference between the two installs' records, as readable lines (none when they agree). */
export async function differences(a: Api, b: Api): Promise<string[]> {
  const out: string[] = [];
  for (const { name } of BOTH) {
    const [left, right] = await Promise.all([exported(a, name), exported(b, name)]);
    for (const key of new Set([...left.keys(), ...right.keys()])) {
      const l = left.get(key);
      const r = right.get(key);
      if (!l || !r) {
        out.push(`${name} ${key}: only on ${l ? 'the first' : 'the second'}`);
        continue;
      }
      for (const field of new Set([...Object.keys(l), ...Object.keys(r)])) {
        if (JSON.stringify(l[field]) !== JSON.stringify(r[field])) out.push(`${name} ${key}.${field}: ${JSON.stringify(l[field])} != ${JSON.stringify(r[field])}`);
      }
    }
  }
  return out;
}

export async function counts(api: Api): Promise<Partial<Record<UpstreamEntity, number>>> {
  const out: Partial<Record<UpstreamEntity, number>> = {};
  for (const { name } of BOTH) out[name] = (await exported(api, name)).size;
  return out;
}
