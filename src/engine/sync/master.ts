import { debitOfflineSpendInTx } from '../wallets/gift-cards';
import type { EngineCore } from '../core';
import { fail } from '../errors';
import { getRecord, putRecord, type RecordDoc } from '../records';
import { DEFAULT_OFFLINE_FLOOR, OFFLINE_SPEND, offlineExcessInTx, offlineSpendProblem, type OfflineFloor, type OfflineSpend } from './offline-floor';
import type { Tx } from '../core';
import { mergeCustomerInTx } from './customer-merge';
import { formatStamp, readHlcInTx } from './hlc';
import { KIND } from '../register/model';
import type { TxDoc } from '../gateway/transaction-record';
import { afterPushedTransactionInTx, mergePushedTransactionInTx } from './lane-refunds';
import { maskCardDataInDocument } from '../security/card-data';
import { emptyLedger } from '../receivables/unit-of-work';
import { storedCustomerProblem } from '../receivables/stored-customer';
import { bodyOf, changesSince, inStream, laneOfDocument, laneOfNumber, sameDocument, streamNamed, syncEventOf, type SyncDoc, type SyncStream } from './streams';

/**
 * The hub's side of replication (RxDB's "master"): pull pages of its documents after a watermark,
 * and take pushed lane documents. A push is idempotent by document id: the same sale pushed twice,
 * or pushed, lost in flight and pushed again, is written once (an identical version writes
 * nothing). The lane owns what it pushes, so a push never conflicts: its version wins, except a
 * customer, which both sides edit: the hub merges it by field, and a merge that differs from the
 * pushed version is answered as a conflict (the hub's version, which the lane then takes). A document
 * that names another lane than the pushing one, or a new one that is not the pushing lane's own
 * (laneOfNew), is refused and recorded (`sync_exception`); the rest of the push goes on. So is one
 * that is not well-formed where the hub acts on it (`invalid_document`): an offline gift card spend
 * (offlineSpendProblem), a customer (storedCustomerProblem). Every pushed document is stored, so
 * card data in it is masked first, as in a request body (maskCardDataInDocument).
 */
export const MAX_PULL = 2500;

export interface PullPage {
  documents: SyncDoc[];
  checkpoint: { watermark: number } | null;
  /** Customers: the hub's clock after every edit in the page (hlc.ts). */
  clock?: string;
}

export interface PushRow {
  newDocumentState: Record<string, unknown>;
  assumedMasterState?: Record<string, unknown> | null;
  /** Customers: the lane's clock stamp of its edit. */
  stamp?: string;
}

export function requireStream(name: string, direction: 'up' | 'down'): SyncStream {
  const stream = streamNamed(name);
  if (!stream || (stream.direction !== direction && stream.direction !== 'both')) throw fail.notFound('sync_stream_not_found', `No ${direction === 'up' ? 'push' : 'pull'} stream ${name}`);
  return stream;
}

export async function pullPage(core: EngineCore, streamName: string, watermark: number, limit: number): Promise<PullPage> {
  const stream = requireStream(streamName, 'down');
  const documents = await changesSince(core, stream, watermark, Math.min(limit, MAX_PULL));
  // Each is a fresh copy of the stored one (stripMeta), so it is marked in place: a spread with a
  // key the source lacks costs several µs a document on Node 20 (core.ts, put).
  for (const d of documents) d._deleted = false;
  const last = documents[documents.length - 1];
  const page: PullPage = { documents, checkpoint: last ? { watermark: last.watermark } : { watermark } };
  if (stream.collection === 'customers') page.clock = formatStamp(await readHlcInTx(core), 'hub');
  return page;
}

export interface PushOutcome {
  written: number;
  unchanged: number;
  refused: number;
  /**
   * The hub's versions of pushed customers its merge made differ from the pushed ones, as a pull
   * page has them. The answer is the lane's one sure way to learn the merge: a pull of it can
   * reach the lane before this answer does, and RxDB skips it then as a lane edit not yet pushed.
   */
  conflicts: SyncDoc[];
}

/**
 * `laneid` is the pushing lane; null for a hub's documents arriving at the central install
 * (jetstream.ts), where the hub is the authority for its shop: its versions are written as they are.
 */
export async function applyPush(core: EngineCore, streamName: string, laneid: string | null, rows: readonly PushRow[]): Promise<PushOutcome> {
  const stream = requireStream(streamName, 'up');
  const outcome: PushOutcome = { written: 0, unchanged: 0, refused: 0, conflicts: [] };
  await core.mutate(async (tx) => {
    // One read for the page's current versions instead of one per document.
    await tx.prefetch(stream.collection, rows.map((r) => String(r.newDocumentState.id ?? '')).filter((id) => id !== ''));
    for (const row of rows) {
      // Masked before anything compares or stores it: a retry of a masked document is unchanged.
      const doc = maskCardDataInDocument(bodyOf(row.newDocumentState)) as SyncDoc;
      if (typeof doc.id !== 'string' || !doc.id || !inStream(stream, doc)) {
        throw fail.invalid('sync_document_invalid', `A pushed document is not part of stream ${stream.name}`);
      }
      if (stream.collection === 'records' && doc.id !== `${String(doc.kind)}/${String(doc.key)}`) {
        throw fail.invalid('sync_document_invalid', `Pushed record ${doc.id} does not match its kind and key`);
      }
      const current = await tx.get<SyncDoc>(stream.collection, doc.id);
      // The hub's copy decides who owns a document, not the pushed copy (which names whatever
      // owner it likes): a lane may not rewrite the hub's own documents (a web sale's
      // transaction) or another lane's. A new document must be one the pushing lane made, so a
      // lane's credential never creates hub-side documents it does not own. Customers are shared,
      // merged instead (customerWrite).
      if (laneid !== null && stream.collection !== 'customers') {
        const owner = current ? await ownerOfStored(tx, stream, current) : await laneOfNew(tx, stream, doc);
        const named = stream.collection === 'transactions' ? await laneOfNew(tx, stream, doc) : laneOfDocument(stream, doc);
        if (owner !== laneid || named !== laneid) {
          outcome.refused += 1;
          await refuseInTx(tx, laneid, doc.id, current ? 'owner_mismatch' : 'not_lane_document', { owner: owner || named || 'hub' });
          continue;
        }
      }
      if (current && sameDocument(current, doc)) {
        outcome.unchanged += 1;
        continue;
      }
      if (laneid !== null && doc.kind === OFFLINE_SPEND) {
        const problem = await offlineSpendProblem(tx, laneid, doc, current !== undefined);
        if (problem) {
          outcome.refused += 1;
          await refuseInTx(tx, laneid, doc.id, 'invalid_document', { problem });
          continue;
        }
      }
      let write: SyncDoc = doc;
      let merge = false;
      if (stream.collection === 'customers' && laneid !== null) {
        const merged = await customerWrite(tx, laneid, current, doc, row.assumedMasterState ? (bodyOf(row.assumedMasterState) as SyncDoc) : undefined, row.stamp);
        if (!merged) {
          outcome.refused += 1;
          continue;
        }
        if (!merged.changed) {
          outcome.unchanged += 1;
          continue;
        }
        write = merged.doc;
        merge = !sameDocument(write, doc);
      }
      // A lane's payment keeps what the hub gave back of it (lane-refunds.ts).
      if (stream.collection === 'transactions' && laneid !== null) {
        write = await mergePushedTransactionInTx(tx, current, doc);
        if (current && sameDocument(current, write)) {
          outcome.unchanged += 1;
          continue;
        }
      }
      // The pushed body is this call's own (parsed from the request), so it is staged without a copy.
      const stamped = await tx.put(stream.collection, write, syncEventOf(stream, write), { handOver: write === doc });
      // The merge as a pull page has it (its watermark set): the lane takes it from the answer.
      if (merge) outcome.conflicts.push(Object.assign(stamped, { _deleted: false }));
      if (write.kind === OFFLINE_SPEND) {
        const spend = (write as unknown as RecordDoc<OfflineSpend>).data;
        // Debited once, on the hub of the lane that spent it (offlineSpendProblem refuses a spend
        // the hub holds): the central install holds a copy of a hub's record, not the card.
        const card = laneid !== null && !current && spend.token ? await debitOfflineSpendInTx(tx, spend.token, spend.amount_cents) : undefined;
        await offlineExcessInTx(tx, spend, await giftCardFloorInTx(tx), card?.balance_cents);
      }
      if (stream.collection === 'transactions' && laneid !== null) {
        const t = (write as unknown as TxDoc).data;
        // A refund or void closes its claim and recounts its payment; a payment given back anywhere is checked.
        if (current || t.parent || t.refunded_cents > 0 || t.state === 'cancelled') await afterPushedTransactionInTx(tx, laneid, t);
      }
      outcome.written += 1;
    }
  });
  return outcome;
}

/**
 * The lane that owns a document ('' for the hub's own), read from the hub's copy (or, for a new
 * one, the pushed copy). A transaction names no
 * lane itself: a card-present one carries its terminal's lane, any other of a register sale
 * belongs to its order, which carries the register's lane (`pos_lane`).
 */
export async function ownerOfStored(tx: Tx, stream: SyncStream, doc: SyncDoc): Promise<string> {
  if (stream.collection !== 'transactions') return laneOfDocument(stream, doc);
  const data = (doc.data ?? {}) as { terminal?: { laneid?: string } | null; order?: { identifier?: string } | null };
  if (data.terminal?.laneid) return data.terminal.laneid;
  const order = data.order?.identifier ? await tx.get<SyncDoc>('orders', data.order.identifier) : undefined;
  return order ? laneOfDocument({ name: 'orders', collection: 'orders', direction: 'up' }, order) : '';
}

/**
 * The lane that made a document the hub does not hold yet ('' when it is no lane's document). A
 * lane's documents carry its id in what makes them unique across the shop: receipt numbers
 * `<laneid>-<seq>` (sales, their orders, the transactions paying them) and the register, journal,
 * Z, drawer and refund/void document keys (laneOfDocument). Where a document names its lane twice
 * (a sale's `laneid` and number, an order's `pos_lane` and number), both must agree.
 */
async function laneOfNew(tx: Tx, stream: SyncStream, doc: SyncDoc): Promise<string> {
  const data = (doc.data ?? {}) as Record<string, unknown>;
  if (stream.collection === 'transactions') {
    const t = data as { terminal?: { laneid?: string } | null; order?: { identifier?: string; number?: string | null } | null };
    // An order the hub already holds decides (a lane may not pay into the hub's web order);
    // otherwise the receipt number, since the order may come up on its own stream later.
    const order = t.order?.identifier ? await tx.get<SyncDoc>('orders', t.order.identifier) : undefined;
    const ofOrder = order ? laneOfDocument({ name: 'orders', collection: 'orders', direction: 'up' }, order) : laneOfNumber(t.order?.number);
    if (t.terminal?.laneid) return !t.order || ofOrder === t.terminal.laneid ? t.terminal.laneid : '';
    return ofOrder;
  }
  const named = laneOfDocument(stream, doc);
  const numbered = stream.collection === 'orders' || doc.kind === KIND.sale;
  return numbered && laneOfNumber(data.number) !== named ? '' : named;
}

/** Records a pushed document the hub refused, for a person (exceptions.ts); the push goes on. */
async function refuseInTx(tx: Tx, laneid: string, document: string, reason: string, detail: Record<string, unknown>): Promise<void> {
  await putRecord(tx, 'sync_exception', `${laneid}:${document}`, { laneid, document, reason, ...detail, at: tx.at }, { type: 'sync_exception.created', entity: 'sync_exception', key: document }, laneid);
}

/**
 * A lane's customer as the hub writes it: merged into the hub's version, or new. One whose fields
 * are not of a customer's types (storedCustomerProblem) is refused and recorded: written, it would
 * break every reader of the hub's customers. A new customer whose identifier the hub gives to
 * another customer (made on two lanes while apart) is refused and recorded as a sync exception:
 * identifiers are unique, and which one is the "same" customer is for a person to decide. The
 * ledger is the hub's (its invoices and payments move it), never the lane's: a merge keeps the
 * hub's (NOT_MERGED), and a new customer starts with an empty one whatever the lane sent.
 */
async function customerWrite(tx: Tx, laneid: string, current: SyncDoc | undefined, pushed: SyncDoc, assumed: SyncDoc | undefined, stamp: string | undefined): Promise<{ doc: SyncDoc; changed: boolean } | undefined> {
  const problem = storedCustomerProblem(pushed);
  if (problem) {
    await refuseInTx(tx, laneid, pushed.id, 'invalid_document', { problem });
    return undefined;
  }
  const doc = current ? pushed : { ...pushed, data: { ...(pushed.data as Record<string, unknown>), ledger: emptyLedger() } };
  if (current) {
    const { merged, changed } = await mergeCustomerInTx(tx, laneid, current, doc, assumed, stamp);
    // The lane's version lost every field it differs in (or differs only in its edit time): the
    // hub's version is rewritten as it is, so its new watermark brings it back down to the lane.
    return { doc: merged, changed: changed || !sameDocument(merged, doc) };
  }
  const identifier = String(doc.identifier ?? '');
  const taken = (await tx.find<SyncDoc>('customers', { selector: { identifier } })).find((c) => c.id !== doc.id);
  if (!taken) return { doc, changed: true };
  await refuseInTx(tx, laneid, doc.id, 'identifier_taken', { identifier });
  return undefined;
}

/** The hub's gift-card floor: its register settings, which its lanes receive too. */
async function giftCardFloorInTx(tx: Tx): Promise<number> {
  const settings = await getRecord<{ offline_floor?: OfflineFloor }>(tx, 'pos_settings', 'register');
  return settings?.data.offline_floor?.gift_card_cents ?? DEFAULT_OFFLINE_FLOOR.gift_card_cents;
}
