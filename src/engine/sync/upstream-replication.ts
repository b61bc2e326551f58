import { interval, map, Subject, type Subscription } from 'rxjs';
import { replicateRxCollection, type RxReplicationState } from 'rxdb/plugins/replication';
import type { RxCollection, RxConflictHandler } from 'rxdb';
import type { EngineCore } from '../core';
import type { AllocationCut } from '../receivables/types';
import { pageRecords } from '../../sync/poller';
import { docsOf, sameBody, UPSTREAM_DOC_SCHEMA, upstreamFork, type LocalSide, type UpstreamDoc } from './upstream-fork';
import { UpstreamRefused, type UpstreamLink } from './upstream-link';
import { invoiceBody, invoicesOfPayment, isRetired, UPSTREAM_ENTITIES, type EntitySpec } from './upstream-shapes';
import { reportRetired, retireAsUpstream, upstreamHolds, type RecordException } from './upstream-retire';
import { mergeBeforePush } from './upstream-merge';
import { checkRoomUpstream } from './upstream-served';
import { lostPushGuard, type Repush } from './replication-parts';

/** The spec's largest page (`limit` 1..2500). */
export const UPSTREAM_PAGE = 2500;

export interface EntityReplicationContext {
  core: EngineCore;
  link: UpstreamLink;
  entity: EntitySpec;
  local: (name: EntitySpec['name']) => LocalSide;
  options: { pollMs?: number; retryMs?: number };
  onChange: () => void;
  refused: RecordException;
  /** A pulled record whose import here cut allocations (a payment served later on an invoice that could not take them all). */
  reduced: (via: string, cuts: AllocationCut[]) => Promise<unknown>;
  succeed: (checkpoint?: number) => void;
  failed: (message: string) => void;
}

const INVOICES = UPSTREAM_ENTITIES.find((e) => e.name === 'invoices')!;

/**
 * Where a pull is: the greatest watermark seen, and for invoices from a service without the full
 * invoice feed (the reference has only `open_invoices` and `invoices/recent`), which of those two.
 */
export interface PullCheckpoint {
  watermark: number;
  feed?: 'open' | 'recent';
}

/**
 * One page of the spec's polling (`watermark`, `list=true`, `limit`). Invoices use Laneway's full
 * feed (`/api/exports/invoices`); a service that answers 404 for it is read by the reference's
 * feeds instead: every open invoice first (`/api/exports/open_invoices`), then from watermark 0
 * the invoices changed in the past 7 days (`/api/exports/invoices/recent`), polled from then on.
 * Records already equal write nothing, so reading one twice costs only the read.
 */
export async function pullPage(call: UpstreamLink['call'], entity: EntitySpec, checkpoint: PullCheckpoint | undefined, limit: number): Promise<{ records: Array<Record<string, unknown> & { watermark: number }>; checkpoint: PullCheckpoint }> {
  const from = checkpoint?.watermark ?? 0;
  const feed = checkpoint?.feed;
  const path = feed === 'open' ? '/api/exports/open_invoices' : feed === 'recent' ? '/api/exports/invoices/recent' : entity.exportPath;
  // Deleted invoices are asked for (the spec's `include_deleted_invoices`, on every invoice feed):
  // an invoice voided upstream must stop being owed here.
  const deleted = entity.name === 'invoices' ? '&options[include_deleted_invoices]=true' : '';
  let body: Record<string, unknown>;
  try {
    body = (await call(`${path}?watermark=${from}&list=true&limit=${limit}${deleted}`)) as Record<string, unknown>;
  } catch (err) {
    if (entity.name === 'invoices' && !feed && err instanceof UpstreamRefused && err.status === 404) return { records: [], checkpoint: { watermark: 0, feed: 'open' } };
    throw err;
  }
  const records = pageRecords(body[feed === 'open' ? 'open_invoices' : entity.name] ?? body[entity.name]);
  const top = records.reduce((w, r) => Math.max(w, r.watermark), from);
  // Every open invoice read: the recent feed from its start.
  if (feed === 'open' && records.length < limit) return { records, checkpoint: { watermark: 0, feed: 'recent' } };
  return { records, checkpoint: feed ? { watermark: top, feed } : { watermark: top } };
}

/**
 * One entity's RxDB replication with the upstream (`replicateRxCollection`): pull by the spec's
 * watermark polling over the export operation (the greatest watermark seen is the checkpoint,
 * RxDB persists it), push to the import operation. Invoices a payment depends on are brought
 * first in either direction.
 */
export function replicateEntity(ctx: EntityReplicationContext): { state: RxReplicationState<UpstreamDoc, PullCheckpoint>; subs: Subscription[] } {
  const { core, link, entity, local } = ctx;
  const real = core.store.collection(entity.collection);
  const schema = UPSTREAM_DOC_SCHEMA(real.schema.version);
  const ownInvoice = async (number: string) => docsOf(INVOICES, await local('invoices').page(((await local('invoices').watermarkOf(number)) ?? 1) - 1, 1))[0];
  const repush$ = new Subject<Repush>();
  const fork = upstreamFork(core, entity, local(entity.name), schema, {
    ...{ repush$, reduced: (key, cuts) => ctx.reduced(`${entity.name}/${key}`, cuts) },
    refused: (key, _body, err) => ctx.refused(entity.name, key, 'pull', err),
    // A pulled payment may name an invoice the invoice stream has not brought yet.
    prepare:
      entity.name === 'payments'
        ? async (body) => {
            for (const number of invoicesOfPayment(body)) {
              if ((await local('invoices').watermarkOf(number)) !== undefined) continue;
              const inv = invoiceBody((await link.call(INVOICES.viewPath(number))) as Record<string, unknown>);
              // A deleted invoice is not brought: the payment's import here refuses it, recorded.
              if (inv && !isRetired('invoices', inv)) await local('invoices').import(inv);
            }
          }
        : undefined,
  });
  const conflictHandler: RxConflictHandler<UpstreamDoc> = {
    isEqual: (a, b) => sameBody(a, b),
    // Changed on both sides while apart: this install's version is pushed, a customer's merged
    // with the upstream's field by field first (mergeBeforePush, docs/sync.md).
    resolve: async (input) => input.newDocumentState,
  };
  const facade = Object.create(real, {
    storageInstance: { value: fork },
    conflictHandler: { value: conflictHandler },
    schema: { value: { jsonSchema: schema, primaryPath: 'id', version: real.schema.version } },
    onClose: { value: [] },
  }) as RxCollection<UpstreamDoc>;
  const poll$ = new Subject<'RESYNC'>();
  const subs: Subscription[] = [interval(ctx.options.pollMs ?? 5000).pipe(map(() => 'RESYNC' as const)).subscribe(poll$)];

  const pull = {
    batchSize: UPSTREAM_PAGE,
    stream$: poll$.asObservable(),
    handler: async (checkpoint: PullCheckpoint | undefined, batchSize: number) => {
      // RxDB takes a page without documents as "caught up" and keeps its checkpoint: a page whose
      // records carry nothing to import (no key) or a switch of invoice feed is read past
      // here, until documents come or the feed stops moving.
      let at = checkpoint;
      for (;;) {
        const { records, checkpoint: next } = await pullPage(link.call, entity, at, batchSize);
        const documents = docsOf(entity, records);
        const moved = next.watermark !== (at?.watermark ?? 0) || next.feed !== at?.feed;
        at = next;
        if (documents.length > 0 || !moved) {
          ctx.succeed(next.watermark);
          if (records.length > 0) ctx.onChange();
          return { documents: documents as never, checkpoint: next };
        }
      }
    },
  };

  const pushOne = (doc: UpstreamDoc) => pushRecord(ctx, doc, ownInvoice);
  const guard = entity.direction === 'both' ? pushGuardOf(ctx, fork, () => state, repush$, subs) : undefined;

  const state = replicateRxCollection<UpstreamDoc, PullCheckpoint>({
    replicationIdentifier: `laneway-upstream-${entity.name}-${link.peerId}`,
    collection: facade,
    live: true,
    retryTime: ctx.options.retryMs ?? 2000,
    waitForLeadership: false,
    autoStart: true,
    toggleOnDocumentVisible: false,
    ...(entity.direction === 'both' ? { pull } : {}),
    push: {
      batchSize: 100,
      handler: async (rows) => {
        for (const row of rows) await pushOne(await beforePush(ctx, row.newDocumentState as UpstreamDoc, row.assumedMasterState as UpstreamDoc | undefined));
        guard?.pushed(rows.map((r) => r.newDocumentState as unknown as Record<string, unknown>));
        ctx.succeed();
        ctx.onChange();
        return [];
      },
    },
  });
  subs.push(
    state.error$.subscribe((err) => {
      const first = (err as { parameters?: { errors?: Array<{ message?: string }> } }).parameters?.errors?.[0]?.message;
      ctx.failed(first ?? err.message);
    }),
  );
  return { state, subs };
}

/**
 * What a record goes up as: a customer changed on both sides merged first (upstream-merge.ts); a
 * payment that asks more of an invoice than the upstream owes is told (upstream-served.ts).
 */
async function beforePush(ctx: EntityReplicationContext, doc: UpstreamDoc, assumed: UpstreamDoc | undefined): Promise<UpstreamDoc> {
  const { core, link, entity } = ctx;
  if (entity.name === 'customers') return mergeBeforePush(core, link, ctx.local('customers'), doc, assumed);
  if (entity.name === 'payments' && !isRetired('payments', doc.body)) await checkRoomUpstream(core, link, doc, assumed);
  return doc;
}

/**
 * One record to the upstream's import operation. Retired records are reported (no import can
 * retire), a refusal of a change to a record the upstream retired meanwhile retires it here, and a
 * payment of an invoice the upstream lacks sends the invoice first.
 */
async function pushRecord(ctx: EntityReplicationContext, doc: UpstreamDoc, ownInvoice: (number: string) => Promise<UpstreamDoc | undefined>): Promise<void> {
  const { link, entity, local } = ctx;
  // No import operation deletes an invoice or reverses a payment: what the upstream still counts is reported.
  if (isRetired(entity.name, doc.body)) return reportRetired(link, entity, doc, ctx.refused);
  try {
    await link.send(entity, doc.body);
  } catch (err) {
    if (!(err instanceof UpstreamRefused)) throw err;
    if (err.body.includes('invoice_deleted') && (await upstreamHolds(link, entity, doc))) return;
    if (await retireAsUpstream(link, entity, doc, local(entity.name), err, ctx.refused)) return;
    // A payment of an invoice the upstream lacks: the invoice first, then the payment again.
    const missing = entity.name === 'payments' && err.body.includes('invoice_not_found') ? invoicesOfPayment(doc.body) : [];
    const own = await Promise.all(missing.map(ownInvoice));
    if (missing.length === 0 || !own.every((d) => !!d && !isRetired('invoices', d.body))) {
      await ctx.refused(entity.name, doc.id, 'push', err);
      return;
    }
    for (const inv of own) await link.send(INVOICES, inv!.body);
    await link.send(entity, doc.body).catch(async (again: unknown) => {
      if (!(again instanceof UpstreamRefused)) throw again;
      await ctx.refused(entity.name, doc.id, 'push', again);
    });
  }
}

/**
 * An entity edited on both sides: a push RxDB forgot is offered again (replication-parts.ts).
 * Customers are all looked at once after a start; invoices and payments, which run to a million,
 * only as they are pushed.
 */
function pushGuardOf(ctx: EntityReplicationContext, fork: unknown, state: () => RxReplicationState<UpstreamDoc, PullCheckpoint> | undefined, repush$: Subject<Repush>, subs: Subscription[]) {
  const { core, entity } = ctx;
  const doc = (d: Record<string, unknown>) => d as unknown as UpstreamDoc;
  return lostPushGuard<UpstreamDoc, PullCheckpoint>({
    ...{ core, label: `upstream ${entity.name}`, everyMs: ctx.options.pollMs ?? 5000, subs, state, repush$ },
    read: async (ids) => (await (fork as { findDocumentsById(ids: string[]): Promise<Array<Record<string, unknown>>> }).findDocumentsById(ids)),
    same: (a, b) => sameBody(doc(a), doc(b)),
    ...(entity.name === 'customers'
      ? {
          seedPage: async (after: number, limit: number) => {
            const records = await ctx.local('customers').page(after, limit);
            return { docs: docsOf(entity, records) as unknown as Array<Record<string, unknown>>, last: records.at(-1)?.watermark };
          },
        }
      : {}),
  });
}
