import type { DomainEventBody } from '../shared/schemas/system';

/**
 * Domain events. Every record the engine creates or updates gets the next watermark and produces
 * exactly one event carrying it. Events are written to the store in the same transaction as the
 * record (an outbox), then published here after the commit: the SSE stream, webhooks and sync all
 * read from this one stream.
 */
export type DomainEvent = DomainEventBody;

export type EventListener = (event: DomainEvent) => void;

export class EventBus {
  private readonly listeners = new Set<EventListener>();

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(events: readonly DomainEvent[]): void {
    for (const event of events) {
      for (const listener of this.listeners) {
        try {
          listener(event);
        } catch {
          // A faulty subscriber (a closed SSE socket, say) must not break the writer or its peers.
        }
      }
    }
  }

  get size(): number {
    return this.listeners.size;
  }
}
