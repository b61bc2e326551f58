import type { DomainEvent } from '../events';

/** How long a rendered body may be handed to another endpoint (ms of the process's monotonic clock). */
const FRESH_MS = 1_000;
const KEEP = 1_000;

interface Rendered {
  body: Promise<Buffer | undefined>;
  /** The last published watermark when it was rendered: a change of the record after it makes it stale. */
  seen: number;
  at: number;
}

/**
 * Bodies rendered once and shared by the endpoints that take the same record: each endpoint's
 * delivery used to render (read, build and serialise the export view) and sign it again. A body
 * is the record's view as it stands when delivered, so one is shared only while no event of that
 * record has been published since it was rendered, and for a second at most (a view also shows a
 * little of other records, e.g. an invoice's pay links).
 */
export class SharedBodies {
  private readonly bodies = new Map<string, Rendered>();
  /** Per record, the watermark of its last published event. */
  private readonly changed = new Map<string, number>();
  private seen = 0;

  constructor(private readonly render: (event: DomainEvent) => Promise<Buffer | undefined>) {}

  /** Every published event, in order (the engine's bus). */
  published(event: DomainEvent): void {
    this.seen = event.watermark;
    const record = `${event.entity}\u0000${event.key}`;
    if (this.bodies.has(record)) this.changed.set(record, event.watermark);
  }

  body(event: DomainEvent): Promise<Buffer | undefined> {
    const record = `${event.entity}\u0000${event.key}`;
    const now = performance.now();
    const kept = this.bodies.get(record);
    if (kept && now - kept.at < FRESH_MS && (this.changed.get(record) ?? 0) <= kept.seen) return kept.body;
    const rendered: Rendered = { body: this.render(event), seen: this.seen, at: now };
    rendered.body.catch(() => this.bodies.get(record) === rendered && this.bodies.delete(record));
    this.bodies.delete(record);
    this.changed.delete(record);
    this.bodies.set(record, rendered);
    if (this.bodies.size > KEEP) {
      const oldest = this.bodies.keys().next().value!;
      this.bodies.delete(oldest);
      this.changed.delete(oldest);
    }
    return rendered.body;
  }
}
