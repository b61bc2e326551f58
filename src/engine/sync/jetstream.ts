import { AckPolicy, StorageType, connect, nanos, type Consumer, type JetStreamClient, type JsMsg, type NatsConnection } from 'nats';
import type { EngineCore } from '../core';
import { getRecord, putRecord } from '../records';
import { applyPush } from './master';
import { changesSince, streamNamed, SYNC_STREAMS, type SyncDoc } from './streams';
import { centralDocument, requireShopName } from './chain-keys';

/**
 * Hub → central over NATS JetStream, for a chain: each hub publishes the documents its lanes
 * pushed (and its customers) to one JetStream stream, subject `laneway.shop.<hub>.<stream>`; the
 * central install consumes them with a durable consumer and writes them like a push (idempotent
 * by document id). JetStream gives the durability and the clustering: with 3 replicas the stream
 * keeps taking and serving messages while one node of a 3-node cluster is down.
 *
 * - The hub's checkpoint per stream is the greatest watermark JetStream acknowledged
 *   (`sync_nats` record `publish`): a restart re-publishes at most one unacknowledged page, and
 *   JetStream drops the repeats by message id (`<hub>:<doc id>:<watermark>`, 2-minute window);
 *   a repeat that gets past the window is an identical version, which the central writes as nothing.
 * - The central acknowledges a batch only after its unit of work committed: a crash in between
 *   gets the batch again, written as nothing the second time.
 * - The central keys each document by the shop of its subject (chain-keys.ts): two shops'
 *   `pos_register/2` are two documents there, never one overwriting the other.
 */
export const CHAIN_STREAM = 'LANEWAY_CHAIN';
const SUBJECT_ROOT = 'laneway.shop';
const PAGE = 500;
const PUBLISHED = SYNC_STREAMS.filter((s) => s.direction !== 'down');

export interface NatsOptions {
  servers: string[];
  /** Replicas of the stream (3 on a 3-node cluster). */
  replicas?: number;
}

async function connectNats(options: NatsOptions): Promise<NatsConnection> {
  return connect({ servers: options.servers, reconnect: true, maxReconnectAttempts: -1, reconnectTimeWait: 250, pingInterval: 2000, timeout: 5000 });
}

/** Creates the chain's stream when it is not there (idempotent; retried while the cluster elects its leader). */
export async function ensureChainStream(nc: NatsConnection, replicas: number): Promise<void> {
  const jsm = await nc.jetstreamManager();
  try {
    await jsm.streams.info(CHAIN_STREAM);
  } catch {
    await jsm.streams.add({ name: CHAIN_STREAM, subjects: [`${SUBJECT_ROOT}.>`], num_replicas: replicas, storage: StorageType.File, duplicate_window: nanos(120_000) });
  }
}

interface PublishCheckpoint {
  watermarks: Record<string, number>;
}

export interface HubPublisher {
  /** Publishes until every document is acknowledged by JetStream. */
  flush(): Promise<number>;
  close(): Promise<void>;
}

export async function startHubPublisher(core: EngineCore, hubId: string, options: NatsOptions): Promise<HubPublisher> {
  requireShopName(hubId);
  const nc = await connectNats(options);
  await ensureChainStream(nc, options.replicas ?? 1);
  const js: JetStreamClient = nc.jetstream({ timeout: 5000 });
  let running: Promise<number> | undefined;

  const publishOnce = async (): Promise<number> => {
    const stored = (await getRecord<PublishCheckpoint>(core, 'sync_nats', 'publish'))?.data ?? { watermarks: {} };
    let sent = 0;
    for (const stream of PUBLISHED) {
      for (;;) {
        const from = stored.watermarks[stream.name] ?? 0;
        const docs = await changesSince(core, stream, from, PAGE);
        if (docs.length === 0) break;
        // Publish the page concurrently; the checkpoint moves only once all of it is acknowledged.
        await Promise.all(docs.map((doc) => js.publish(`${SUBJECT_ROOT}.${hubId}.${stream.name}`, JSON.stringify(doc), { msgID: `${hubId}:${doc.id}:${doc.watermark}` })));
        stored.watermarks[stream.name] = docs[docs.length - 1]!.watermark;
        await core.mutate((tx) => putRecord(tx, 'sync_nats', 'publish', stored, { type: 'sync_nats.published', entity: 'sync_nats', key: hubId }));
        sent += docs.length;
      }
    }
    return sent;
  };
  const flush = async (): Promise<number> => {
    for (;;) {
      try {
        running ??= publishOnce().finally(() => (running = undefined));
        return await running;
      } catch (err) {
        // A node down or a leader being elected: JetStream answers again shortly.
        core.logger.warn({ err }, 'JetStream publish failed; retrying');
        await new Promise((r) => setTimeout(r, 300));
      }
    }
  };
  return {
    flush,
    async close() {
      await running?.catch(() => undefined);
      await nc.drain();
    },
  };
}

/** Writes a page of the chain's messages, each keyed by the shop of its subject (chain-keys.ts). */
async function applyMessages(core: EngineCore, messages: readonly JsMsg[]): Promise<void> {
  const byStream = new Map<string, Array<{ newDocumentState: SyncDoc }>>();
  for (const m of messages) {
    const [shop, name] = m.subject.slice(SUBJECT_ROOT.length + 1).split('.');
    const stream = streamNamed(name ?? '');
    if (!shop || !stream || stream.direction === 'down') {
      // Not a shop's stream: never written, and not delivered again.
      core.logger.warn({ subject: m.subject }, 'JetStream message on no known shop stream; dropped');
      m.term();
      continue;
    }
    const rows = byStream.get(stream.name) ?? [];
    rows.push({ newDocumentState: centralDocument(shop, stream, m.json<SyncDoc>()) });
    byStream.set(stream.name, rows);
  }
  for (const [stream, rows] of byStream) await applyPush(core, stream, null, rows);
}

export interface CentralConsumer {
  /** Consumes until `until()` holds (tests, the benchmark) or the consumer is closed. */
  run(until?: () => Promise<boolean>): Promise<number>;
  close(): Promise<void>;
}

export async function startCentralConsumer(core: EngineCore, durable: string, options: NatsOptions): Promise<CentralConsumer> {
  const nc = await connectNats(options);
  await ensureChainStream(nc, options.replicas ?? 1);
  const jsm = await nc.jetstreamManager();
  // A page delivered to a fetch that gave up waiting comes again after `ack_wait`.
  await jsm.consumers.add(CHAIN_STREAM, { durable_name: durable, ack_policy: AckPolicy.Explicit, max_ack_pending: 10_000, ack_wait: nanos(10_000) }).catch(() => undefined);
  const js = nc.jetstream({ timeout: 5000 });
  let closed = false;
  return {
    async run(until) {
      let applied = 0;
      let consumer: Consumer | undefined;
      let next: Promise<JsMsg[]> | undefined;
      const fetchPage = async (from: Consumer): Promise<JsMsg[]> => {
        const out: JsMsg[] = [];
        for await (const m of await from.fetch({ max_messages: PAGE, expires: 2000 })) out.push(m);
        return out;
      };
      while (!closed && !(until && (await until()))) {
        try {
          consumer ??= await js.consumers.get(CHAIN_STREAM, durable);
          const messages = await (next ?? fetchPage(consumer));
          // The next page comes in while this one is written (acknowledged only once committed).
          next = fetchPage(consumer);
          next.catch(() => undefined);
          if (messages.length === 0) continue;
          await applyMessages(core, messages);
          for (const m of messages) m.ack();
          applied += messages.length;
        } catch (err) {
          next = undefined;
          consumer = undefined;
          if (closed) break;
          core.logger.warn({ err }, 'JetStream consume failed; retrying');
          await new Promise((r) => setTimeout(r, 300));
        }
      }
      return applied;
    },
    async close() {
      closed = true;
      await nc.drain().catch(() => undefined);
    },
  };
}
