import { canonical, type LocalSide, type UpstreamDoc } from './upstream-fork';
import { UpstreamRefused, type UpstreamLink } from './upstream-link';
import { bodyOfRecord, centsOf, isRetired, type EntitySpec } from './upstream-shapes';

/** What replication records for a record it cannot carry (a `sync_exception`, see upstream.ts). */
export type RecordException = (entity: string, key: string, direction: 'pull' | 'push', err: unknown, detail?: ExceptionDetail) => Promise<unknown>;
export interface ExceptionDetail {
  reason: string;
  [field: string]: unknown;
}

const currencyOf = (r: Record<string, unknown>) => (typeof r.currency === 'string' && r.currency ? r.currency.toUpperCase() : null);

/**
 * An invoice deleted or a payment reversed on this install, for the upstream: no import operation
 * of the API deletes an invoice or reverses a payment, so it cannot be sent. Dropping it silently
 * would leave the upstream counting money this install no longer counts (an invoice still owed
 * there, a payment still paid), so the upstream's copy is read, and when it still counts it (an
 * invoice with an owing, a payment not reversed), the operator is told by a `sync_exception`
 * (listed by `GET /api/sync/resolutions`) naming what is left to do on the upstream. An upstream
 * that never had the record, or no longer counts it, needs nothing.
 */
export async function reportRetired(link: UpstreamLink, entity: EntitySpec, doc: UpstreamDoc, record: RecordException): Promise<void> {
  let theirs: Record<string, unknown>;
  try {
    theirs = (await link.call(entity.viewPath(doc.id))) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof UpstreamRefused && err.status === 404) return;
    throw err;
  }
  if (entity.name === 'invoices') {
    const owing = typeof theirs.owing_cents === 'number' ? theirs.owing_cents : centsOf(theirs.owing, theirs.currency);
    // Nothing owed there (deleted too, or paid): no money is counted on one side only. The
    // reference's single view does not say `deleted`, so its owing is what tells.
    if (theirs.deleted === true || owing === 0) return;
    const message = `invoice ${doc.id} was deleted here but the upstream still has it: the API cannot delete an invoice by import, delete or void it on the upstream`;
    await record(entity.name, doc.id, 'push', new Error(message), { reason: 'upstream_not_deleted', upstream_owing_cents: owing ?? null, currency: currencyOf(theirs) });
    return;
  }
  if (isRetired('payments', { status: theirs.status })) return;
  const amount = centsOf(theirs.payment_amount, theirs.currency);
  const message = `payment ${doc.id} was reversed here (${String(doc.body.status)}) but the upstream still counts it as ${String(theirs.status ?? 'paid')}: the API cannot reverse a payment by import, reverse it on the upstream`;
  await record(entity.name, doc.id, 'push', new Error(message), { reason: 'upstream_not_reversed', upstream_status: theirs.status ?? null, upstream_amount_cents: amount, currency: currencyOf(theirs) });
}

/**
 * Whether the upstream already holds this body as is. A payment applied to an invoice deleted
 * since cannot be imported again on either side (the import refuses `invoice_deleted`), yet when
 * the upstream has it unchanged (sent to an upstream with no replication history, which receives
 * everything once) there is nothing to report.
 */
export async function upstreamHolds(link: UpstreamLink, entity: EntitySpec, doc: UpstreamDoc): Promise<boolean> {
  try {
    const body = bodyOfRecord(entity.name, (await link.call(entity.viewPath(doc.id))) as Record<string, unknown>);
    return !!body && canonical(body) === canonical(doc.body);
  } catch (err) {
    if (err instanceof UpstreamRefused) return false;
    throw err;
  }
}

/**
 * A push the upstream refused because it deleted the invoice or reversed the payment while this
 * install changed it (`invoice_deleted`, `payment_reversed`): the retirement wins, so an invoice
 * voided on the upstream is not left owed here to be collected, nor a payment it took back left
 * paid. This install retires its copy by its own rule and the operator is told by a
 * `sync_exception` (`retired_upstream`) that the change made here was not kept. False when the
 * refusal was not that (the caller records it as a refusal).
 */
export async function retireAsUpstream(link: UpstreamLink, entity: EntitySpec, doc: UpstreamDoc, local: LocalSide, err: UpstreamRefused, record: RecordException): Promise<boolean> {
  const code = entity.name === 'invoices' ? 'invoice_deleted' : entity.name === 'payments' ? 'payment_reversed' : null;
  if (!code || !err.body.includes(code)) return false;
  const theirs = bodyOfRecord(entity.name, (await link.call(entity.viewPath(doc.id))) as Record<string, unknown>);
  if (!theirs || !isRetired(entity.name, theirs)) return false;
  await local.retire(theirs);
  const what = entity.name === 'invoices' ? `invoice ${doc.id} was deleted on the upstream` : `payment ${doc.id} was reversed on the upstream (${String(theirs.status)})`;
  await record(entity.name, doc.id, 'push', new Error(`${what} while it was changed here: ${entity.name === 'invoices' ? 'deleted' : 'reversed'} here too, the change made here is not kept`), { reason: 'retired_upstream' });
  return true;
}
