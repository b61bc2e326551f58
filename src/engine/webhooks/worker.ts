import type { EngineCore } from '../core';
import type { DomainEvent } from '../events';
import { recordsByRef } from '../records';
import type { EndpointData } from './settings';
import { endpointAgents, postOnce, type AttemptOutcome, type EndpointAgents } from './deliver';
import { deliveryId, DELIVERY, readCursor, type AttemptData, type DeliveryData } from './log';

/** What a worker needs from the domain around it. */
export interface WorkerPorts {
  core: EngineCore;
  options: DeliveryOptions;
  /** The body of a delivery (the record's export view), undefined when the record is gone; shared a moment between calls (bodies.ts). */
  render(event: DomainEvent): Promise<Buffer | undefined>;
  /** Headers that prove the body (X-Service-Signature), undefined when no signing key is set. */
  sign(body: Buffer): Promise<Record<string, string> | undefined>;
  /** Queues log writes; they reach the store in batches (see Webhooks.flush). */
  record(endpoint: string, writes: { attempt?: AttemptData; delivery?: DeliveryData; cursor?: number }): void;
  /** The endpoint failed for good: turn it off (an event and a log line). */
  disable(endpoint: EndpointData, reason: string): Promise<void>;
  /** Deliveries may not connect to this machine or link-local addresses (a production account). */
  externalOnly?(): boolean;
}

export interface DeliveryOptions {
  /** Whole-exchange timeout of one POST (default 10 s). */
  timeoutMs: number;
  /** First retry delay; doubled per attempt, capped at maxBackoffMs, with ±20% jitter. */
  retryBaseMs: number;
  maxBackoffMs: number;
  /** How long a delivery is retried before it is failed (default 3 days). */
  retryForMs: number;
}

export const DEFAULT_DELIVERY: DeliveryOptions = { timeoutMs: 10_000, retryBaseMs: 1_000, maxBackoffMs: 3_600_000, retryForMs: 3 * 86_400_000 };

interface Item {
  event: DomainEvent;
  state: 'queued' | 'inflight' | 'waiting';
  attempts: number;
  firstMs: number;
  nextMs: number;
}

const WINDOW = 500;
/**
 * Deliveries are background work. While units of work wait to commit (an import, the API), an
 * endpoint starts one delivery per YIELD_UNITS units committed, and at least one per
 * YIELD_MAX_MS, so the writers keep the CPU (a delivery costs about half an invoice import) and
 * deliveries still move; the backlog goes out at full speed once the writers pause. Only starts
 * wait: nothing is skipped and the order is the same. Pacing runs on the process's monotonic
 * clock, not the engine's business clock.
 */
export const YIELD_UNITS = 20;
const YIELD_MAX_MS = 1_000;
const YIELD_POLL_MS = 20;

export function backoffMs(attempts: number, o: DeliveryOptions, random = Math.random()): number {
  const base = Math.min(o.retryBaseMs * 2 ** Math.max(0, attempts - 1), o.maxBackoffMs);
  return Math.round(base * (0.8 + 0.4 * random));
}

/**
 * One endpoint's deliveries, in the order of the engine's event stream. The stream itself (the
 * `events` outbox) is the queue: the worker reads it from its persisted cursor, so nothing is lost
 * across a restart or a crash; only retry state and the attempt log are written. A delivery made
 * but not yet recorded when the process dies is made again (at-least-once: the spec's receivers
 * tolerate duplicates). Each endpoint has its own worker and its own connections, so a slow one
 * holds back only itself.
 */
export class EndpointWorker {
  private pending: Item[] = [];
  private scanned = 0;
  private inflight = new Set<Promise<void>>();
  private pumping = false;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private yieldTimer: NodeJS.Timeout | undefined;
  private lastStart = { units: 0, ms: 0 };
  private stopped = false;
  private loaded = false;
  private agents: EndpointAgents;

  constructor(
    public endpoint: EndpointData,
    private readonly ports: WorkerPorts,
  ) {
    this.agents = endpointAgents(endpoint.concurrency);
  }

  /** Reads where the endpoint is and what it was retrying (after a start or a restart). */
  private async load(): Promise<void> {
    const { core } = this.ports;
    const cursor = (await readCursor(core, this.endpoint.id)) ?? core.currentWatermark();
    this.scanned = cursor;
    this.pending = [];
    const deliveries = (await recordsByRef<DeliveryData>(core, DELIVERY, this.endpoint.id)).map((r) => r.data).filter((d) => d.watermark > cursor);
    this.known = new Map(deliveries.map((d) => [d.watermark, d]));
    this.loaded = true;
  }

  private known = new Map<number, DeliveryData>();

  get cursor(): number {
    const first = this.pending[0];
    return first ? first.event.watermark - 1 : this.scanned;
  }

  update(endpoint: EndpointData): void {
    const wasOn = this.endpoint.enabled;
    if (endpoint.concurrency !== this.endpoint.concurrency || endpoint.url !== this.endpoint.url) {
      this.closeAgents();
      this.agents = endpointAgents(endpoint.concurrency);
    }
    this.endpoint = endpoint;
    // Turned back on: start again from the persisted cursor, so nothing is skipped.
    if (!wasOn && endpoint.enabled) this.loaded = false;
    this.pump();
  }

  /** Stops at once: a POST in flight is left to end on its own and is not recorded (it is made again). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.yieldTimer) clearTimeout(this.yieldTimer);
    this.closeAgents();
  }

  private closeAgents(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** Whether the last run started deliveries or left events unread (drain's test). */
  busy(): boolean {
    if (this.stopped || !this.endpoint.enabled) return false;
    return this.inflight.size > 0 || this.pumping || this.startedLast > 0 || this.yieldTimer !== undefined || (this.pending.length < WINDOW && this.scanned < this.ports.core.currentWatermark());
  }

  private startedLast = 0;

  async settled(): Promise<void> {
    while (this.inflight.size > 0 || this.pumping) await Promise.all([...this.inflight, new Promise((r) => setImmediate(r))]);
  }

  pump(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    void this.run()
      .catch((err: unknown) => this.ports.core.logger.error({ err, endpoint: this.endpoint.id }, 'webhook worker failed'))
      .finally(() => {
        this.pumping = false;
        if (this.again) {
          this.again = false;
          this.pump();
        }
      });
  }

  private async run(): Promise<void> {
    this.startedLast = 0;
    if (!this.endpoint.enabled) return;
    if (!this.loaded) await this.load();
    await this.fill();
    const allowed = this.allowance();
    if (allowed > 0 && this.dispatch(allowed) > 0) this.lastStart = { units: this.ports.core.commitStats().units, ms: performance.now() };
  }

  /** How many deliveries may start now (see YIELD_UNITS); when none, a pump is scheduled. */
  private allowance(): number {
    if (this.yieldTimer) return 0;
    const { core } = this.ports;
    if (core.writeBacklog() === 0) return Infinity;
    if (core.commitStats().units - this.lastStart.units >= YIELD_UNITS || performance.now() - this.lastStart.ms >= YIELD_MAX_MS) return 1;
    this.yieldTimer = setTimeout(() => {
      this.yieldTimer = undefined;
      this.pump();
    }, YIELD_POLL_MS);
    return 0;
  }

  private async fill(): Promise<void> {
    const { core } = this.ports;
    const kinds = new Set(this.endpoint.events);
    while (this.pending.length < WINDOW && this.scanned < core.currentWatermark()) {
      const page = await core.eventsSince(this.scanned, WINDOW);
      if (page.length === 0) break;
      for (const event of page) {
        this.scanned = event.watermark;
        if (!kinds.has(event.type)) continue;
        const known = this.known.get(event.watermark);
        if (known && known.state !== 'retrying') continue;
        this.pending.push(
          known
            ? { event, state: 'waiting', attempts: known.attempts, firstMs: known.first_attempt_ms, nextMs: known.next_attempt_ms }
            : { event, state: 'queued', attempts: 0, firstMs: 0, nextMs: 0 },
        );
      }
    }
  }

  /** Starts what may start, up to `allowed`; answers how many it started. */
  private dispatch(allowed: number): number {
    const now = this.ports.core.clock.now();
    this.startedLast = 0;
    // Strict order: only the oldest delivery may be in flight, so it is the only one to look at
    // (scanning the whole window after every answer was a tenth of a delivery's CPU).
    if (this.endpoint.concurrency <= 1) {
      const head = this.pending[0];
      if (!head || head.state === 'inflight') this.arm(Infinity, now);
      else if (head.state === 'waiting' && head.nextMs > now) this.arm(head.nextMs, now);
      else {
        this.startedLast = 1;
        this.start(head);
        this.arm(Infinity, now);
        // The next body is made while this one is in flight (the renderer shares it for a moment),
        // unless writers are waiting: then deliveries start seldom and it would go stale.
        const next = this.pending[1];
        if (next?.state === 'queued' && allowed === Infinity) this.ports.render(next.event).catch(() => undefined);
      }
      return this.startedLast;
    }
    const busyRecords = new Set<string>();
    let running = this.inflight.size;
    let soonest = Infinity;
    for (const item of this.pending) {
      if (running >= this.endpoint.concurrency || this.startedLast >= allowed) break;
      const record = `${item.event.entity}\u0000${item.event.key}`;
      // Only one delivery of a record at a time, in order: an earlier one of it holds it back.
      const blocked = busyRecords.has(record);
      busyRecords.add(record);
      if (blocked || item.state === 'inflight') continue;
      if (item.state === 'waiting' && item.nextMs > now) {
        soonest = Math.min(soonest, item.nextMs);
        continue;
      }
      running += 1;
      this.startedLast += 1;
      this.start(item);
    }
    this.arm(soonest, now);
    return this.startedLast;
  }

  /** Wakes the worker when the next retry is due, measured on the engine clock. */
  private arm(due: number, now: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!Number.isFinite(due) || this.stopped) return;
    this.timer = setTimeout(() => this.pump(), Math.min(Math.max(due - now, 5), 2 ** 31 - 1));
    this.timer.unref();
  }

  private start(item: Item): void {
    item.state = 'inflight';
    const work = this.attempt(item)
      .catch((err: unknown) => {
        this.ports.core.logger.error({ err, endpoint: this.endpoint.id }, 'webhook delivery failed unexpectedly');
        item.state = 'waiting';
        item.nextMs = this.ports.core.clock.now() + this.ports.options.retryBaseMs;
      })
      .finally(() => {
        this.inflight.delete(work);
        this.pump();
      });
    this.inflight.add(work);
  }

  private async attempt(item: Item): Promise<void> {
    const { core } = this.ports;
    const body = await this.ports.render(item.event);
    if (!body) return this.settle(item); // the record is gone: nothing to say about it
    const at = core.clock.now();
    if (item.attempts === 0) item.firstMs = at;
    item.attempts += 1;
    const outcome = await this.send(item.event, body, item.attempts);
    if (this.stopped) return;
    const now = core.clock.now();
    const giveUp = !outcome.ok && now - item.firstMs >= this.ports.options.retryForMs;
    const result: AttemptData['outcome'] = outcome.ok ? 'delivered' : giveUp ? 'failed' : 'retry';
    const attempt = attemptRecord(this.endpoint, item.event, item.attempts, false, new Date(at).toISOString(), outcome, result);
    let delivery: DeliveryData | undefined;
    if (!outcome.ok || item.attempts > 1) {
      item.nextMs = now + backoffMs(item.attempts, this.ports.options);
      delivery = this.deliveryOf(item, result === 'retry' ? 'retrying' : result, outcome.status, now);
    }
    if (result === 'retry') item.state = 'waiting';
    else this.pending.splice(this.pending.indexOf(item), 1);
    this.ports.record(this.endpoint.id, { attempt, ...(delivery ? { delivery } : {}), cursor: this.cursor });
    if (result === 'failed') await this.ports.disable(this.endpoint, 'delivery_failed');
  }

  /**
   * Takes a person's resend of an event this worker holds for a scheduled retry as that delivery's
   * next attempt: numbered after the schedule's, the retry held back while it is in flight, and
   * dropped once it succeeds, so the receiver does not get the event again from the schedule.
   * Undefined when the worker holds no retry of it (delivered, given up, or in flight now).
   */
  takeForResend(watermark: number): { attempt: number; done(ok: boolean, status: number): void } | undefined {
    const item = this.pending.find((i) => i.event.watermark === watermark);
    if (!item || item.state !== 'waiting') return undefined;
    item.state = 'inflight';
    item.attempts += 1;
    return {
      attempt: item.attempts,
      done: (ok, status) => {
        if (ok) {
          this.settle(item);
          const delivery = this.deliveryOf(item, 'delivered', status, this.ports.core.clock.now());
          this.ports.record(this.endpoint.id, { delivery, cursor: this.cursor });
        } else item.state = 'waiting';
        this.pump();
      },
    };
  }

  /** The retry state kept for a delivery (read back by load() after a restart). */
  private deliveryOf(item: Item, state: DeliveryData['state'], status: number, now: number): DeliveryData {
    const { event } = item;
    return {
      id: deliveryId(this.endpoint.id, event.watermark),
      endpoint: this.endpoint.id,
      watermark: event.watermark,
      type: event.type,
      entity: event.entity,
      key: event.key,
      state,
      attempts: item.attempts,
      first_attempt_ms: item.firstMs,
      next_attempt_ms: item.nextMs,
      last_status: status,
      updated_at: new Date(now).toISOString(),
    };
  }

  private settle(item: Item): void {
    this.pending.splice(this.pending.indexOf(item), 1);
  }

  /** One signed POST of an event's current body. */
  async send(event: DomainEvent, body: Buffer, attempt: number): Promise<AttemptOutcome> {
    const signature = await this.ports.sign(body);
    if (!signature) return { status: 0, ok: false, latency_ms: 0, excerpt: '', error: 'no signing key is set' };
    const headers = {
      ...signature,
      'X-Service-Event': event.type,
      'X-Service-Watermark': String(event.watermark),
      'X-Service-Delivery': deliveryId(this.endpoint.id, event.watermark),
      'X-Service-Attempt': String(attempt),
    };
    return postOnce(this.endpoint.url, body, headers, this.ports.options.timeoutMs, this.agents, this.ports.externalOnly?.() ?? false);
  }
}

export function attemptRecord(
  endpoint: EndpointData,
  event: DomainEvent,
  attempt: number,
  manual: boolean,
  at: string,
  o: AttemptOutcome,
  outcome: AttemptData['outcome'],
  suffix = String(attempt),
): AttemptData {
  const delivery = deliveryId(endpoint.id, event.watermark);
  return {
    id: `${delivery}.${suffix}`,
    delivery,
    endpoint: endpoint.id,
    url: endpoint.url,
    event_watermark: event.watermark,
    event_type: event.type,
    entity: event.entity,
    key: event.key,
    attempt,
    manual,
    at,
    status: o.status,
    latency_ms: o.latency_ms,
    outcome,
    error: o.error,
    body_excerpt: o.excerpt,
  };
}
