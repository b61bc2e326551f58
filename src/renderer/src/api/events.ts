import type { DomainEventBody } from '../../../shared/schemas/system';
import { errorOf, type ApiError, type Credentials } from './client';

/** An event of GET /api/events, typed from the schema the server documents. */
export type LiveEvent = DomainEventBody;

/** Waits before reconnecting after a drop. */
const RECONNECT_MS = 1500;
/**
 * Waits after the server closed this stream for another of the same credentials (past its limit
 * of open streams): reconnecting at once would close another screen's in turn.
 */
const REPLACED_MS = 15_000;

interface Follower {
  onEvent(e: LiveEvent): void;
  onState(connected: boolean): void;
  /**
   * The server refused these credentials (401: a session that ended, a user disabled; 403): no
   * outage, and no retry will bring the stream back. Without it, the follower is told `onState(false)`.
   */
  onRefused?(err: ApiError): void;
}

interface Shared {
  followers: Set<Follower>;
  connected: boolean;
  stop(): void;
}

/** One stream per page and credentials, whoever on the page follows it (the server limits streams per credential). */
const shared = new Map<string, Shared>();

/**
 * Follows GET /api/events. EventSource cannot send an Authorization header, so this reads the
 * stream with fetch and parses the SSE frames; it reconnects with Last-Event-ID after a drop. The
 * parts of a page that follow it with the same credentials share one stream. A `stream.resync`
 * event (the page was away too long for the server to replay what it missed) reaches them like
 * any other: it means "read the state again".
 */
export function followEvents(creds: Credentials, onEvent: (e: LiveEvent) => void, onState: (connected: boolean) => void, onRefused?: (err: ApiError) => void): () => void {
  const key = `${creds.baseUrl}\n${creds.authorization}`;
  let stream = shared.get(key);
  if (!stream) {
    const created: Shared = { followers: new Set(), connected: false, stop: () => undefined };
    created.stop = connect(creds, {
      onEvent: (e) => {
        for (const f of created.followers) f.onEvent(e);
      },
      onState: (connected) => {
        created.connected = connected;
        for (const f of created.followers) f.onState(connected);
      },
      onRefused: (err) => {
        created.connected = false;
        for (const f of created.followers) {
          if (f.onRefused) f.onRefused(err);
          else f.onState(false);
        }
      },
    });
    shared.set(key, (stream = created));
  }
  const follower: Follower = { onEvent, onState, ...(onRefused ? { onRefused } : {}) };
  stream.followers.add(follower);
  if (stream.connected) onState(true);
  const mine = stream;
  return () => {
    mine.followers.delete(follower);
    if (mine.followers.size > 0) return;
    mine.stop();
    if (shared.get(key) === mine) shared.delete(key);
  };
}

function connect(creds: Credentials, to: Required<Follower>): () => void {
  let stopped = false;
  let lastId: string | undefined;
  const controller = new AbortController();

  /** When a stream the server ended was last asked again at once (once per RECONNECT_MS at most). */
  let askedAgainAt = -Infinity;

  const run = async () => {
    while (!stopped) {
      let wait = RECONNECT_MS;
      /** The server ended the stream (it does when the credentials stop passing its check), rather than the connection failing. */
      let ended = false;
      try {
        const res = await fetch(`${creds.baseUrl}/api/events`, {
          headers: { Authorization: creds.authorization, ...(lastId ? { 'Last-Event-ID': lastId } : {}) },
          signal: controller.signal,
        });
        if (res.status === 401 || res.status === 403) {
          // Refused, not unreachable: said as such at once, never as "not answering" while it retries.
          to.onRefused(errorOf(res, await res.text()));
          await new Promise((r) => setTimeout(r, REPLACED_MS));
          continue;
        }
        if (!res.ok || !res.body) throw new Error(`events ${res.status}`);
        to.onState(true);
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) {
            ended = true;
            break;
          }
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
            if (!data) continue;
            const e = JSON.parse(data) as LiveEvent;
            if (e.type === 'stream.closed') wait = REPLACED_MS;
            else to.onEvent(e);
          }
        }
      } catch {
        if (stopped) return;
      }
      // Asked again at once, before anyone is told the stream dropped: a session that ended is then
      // told as refused, a stream the server merely closed resumes, and only an outage shows as one.
      if (ended && wait === RECONNECT_MS && performance.now() - askedAgainAt > RECONNECT_MS) {
        askedAgainAt = performance.now();
        continue;
      }
      to.onState(false);
      await new Promise((r) => setTimeout(r, wait));
    }
  };
  void run();
  return () => {
    stopped = true;
    controller.abort();
  };
}
