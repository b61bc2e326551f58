/**
 * Domain events. Every record the engine creates or updates gets the next watermark and produces
 * exactly one event carrying it. Events are written to the store in the same transaction as the
 * record (an outbox), then published here after the commit: the SSE stream, webhooks and sync all
 * read from this one stream.
 */
export interface DomainEvent {
  /** The watermark of the record version this event announces. */
  watermark: number;
  /** `<entity>.<created|updated|deleted>` or a domain-specific verb such as `transaction.declined`. */
  type: string;
  /** Entity kind: customer, invoice, payment, order, transaction, wallet, lane, ... */
  entity: string;
  /** The entity's public key (identifier, number, token). */
  key: string;
  /** ISO 8601 timestamp of the mutation (from the engine clock). */
  at: string;
  /** A small, non-sensitive summary for live screens; never card data. */
  data?: Record<string, unknown>;
}

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
