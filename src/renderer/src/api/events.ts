import type { DomainEventBody } from '../../../shared/schemas/system';
import type { Credentials } from './client';

/** An event of GET /api/events, typed from the schema the server documents. */
export type LiveEvent = DomainEventBody;

/**
 * Follows GET /api/events. EventSource cannot send an Authorization header, so this reads the
 * stream with fetch and parses the SSE frames; it reconnects with Last-Event-ID after a drop.
 */
export function followEvents(creds: Credentials, onEvent: (e: LiveEvent) => void, onState: (connected: boolean) => void): () => void {
  let stopped = false;
  let lastId: string | undefined;
  const controller = new AbortController();

  const run = async () => {
    while (!stopped) {
      try {
        const res = await fetch(`${creds.baseUrl}/api/events`, {
          headers: { Authorization: creds.authorization, ...(lastId ? { 'Last-Event-ID': lastId } : {}) },
          signal: controller.signal,
        });
        if (!res.ok || !res.body) throw new Error(`events ${res.status}`);
        onState(true);
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            let data = '';
            for (const line of frame.split('\n')) {
              if (line.startsWith('id: ')) lastId = line.slice(4);
              else if (line.startsWith('data: ')) data += line.slice(6);
            }
            if (data) onEvent(JSON.parse(data) as LiveEvent);
          }
        }
      } catch {
        if (stopped) return;
      }
      onState(false);
      await new Promise((r) => setTimeout(r, 1500));
    }
  };
  void run();
  return () => {
    stopped = true;
    controller.abort();
  };
}
