import type { EngineCore } from '../core';
import type { StoredDoc } from '../../store/schema';
import { differingFields, editStamps, recordResolutionInTx, type Resolution } from './customer-merge';
import { canonical, type LocalSide, type UpstreamDoc } from './upstream-fork';
import { UpstreamRefused, type UpstreamLink } from './upstream-link';
import { bodyOfRecord, UPSTREAM_ENTITIES, type Body } from './upstream-shapes';

const CUSTOMERS = UPSTREAM_ENTITIES.find((e) => e.name === 'customers')!;

/**
 * A customer edited on the hub and on the upstream while apart merges field by field (docs/sync.md
 * "Hub ↔ upstream"): for each field the upstream holds a value for that differs from the hub's,
 * the hub's value stays when the hub changed that field since the last body it pulled from or
 * pushed to the upstream for that customer (`base`, RxDB's assumed master state), else the
 * upstream's is taken. The upstream runs no hybrid logical clock, so the hub's edit since the last
 * sync wins a field both changed. Each merge that decided a field is a `sync_resolution` (lane
 * `upstream`), as a lane's merge is.
 */
export async function mergeUpstreamCustomer(core: EngineCore, hub: Body, upstream: Body, base: Body): Promise<Body> {
  const merged: Body = { ...hub };
  const fields: Resolution['fields'] = [];
  const identifier = String(hub.identifier ?? '');
  const customer = (await core.find<StoredDoc>('customers', { selector: { identifier }, sort: [{ identifier: 'asc' }], limit: 1 }))[0]?.id ?? identifier;
  const hubStamp = (await editStamps(core, [customer])).get(customer) ?? '';
  // Nulls do not flow (an import reads null as absent): a field the upstream has no value for stays the hub's.
  for (const { field, hubChanged } of differingFields(hub, upstream, base)) {
    if (upstream[field] === undefined || upstream[field] === null) continue;
    const winner = hubChanged && hub[field] !== undefined ? 'hub' : 'upstream';
    if (winner === 'upstream') merged[field] = upstream[field];
    fields.push({ field, lane_value: upstream[field], hub_value: hub[field] ?? null, lane_stamp: '', hub_stamp: hubStamp, winner });
  }
  if (fields.length > 0) await core.mutate((tx) => recordResolutionInTx(tx, { customer, identifier, lane: 'upstream', at: tx.at, fields }));
  return merged;
}

/**
 * A customer the upstream changed since the body this push assumes it holds (changed on both
 * sides while apart): merged field by field, the merge imported here and sent up. Its import
 * here is a change like any, pushed again with the merge as its base.
 */
export async function mergeBeforePush(core: EngineCore, link: UpstreamLink, local: LocalSide, doc: UpstreamDoc, assumed: UpstreamDoc | undefined): Promise<UpstreamDoc> {
  if (!assumed) return doc;
  let theirs: Body | null;
  try {
    // The single view answers an unset field as '' where the list leaves it out.
    const view = Object.entries((await link.call(CUSTOMERS.viewPath(doc.id))) as Record<string, unknown>).filter(([, v]) => v !== '');
    theirs = bodyOfRecord('customers', Object.fromEntries(view));
  } catch (err) {
    if (err instanceof UpstreamRefused && err.status === 404) return doc;
    throw err;
  }
  if (!theirs || canonical(theirs) === canonical(assumed.body)) return doc;
  const body = await mergeUpstreamCustomer(core, doc.body, theirs, assumed.body);
  if (canonical(body) !== canonical(doc.body)) await local.import(body);
  return { ...doc, body };
}
