import { create } from 'zustand';
import { followEvents, type LiveEvent } from '../api/events';
import type { Credentials } from '../api/client';
import { useUser } from './user';

/** What an import's events carry about its progress. */
export interface ImportProgress {
  lines_done?: number;
  lines_total?: number;
  status?: 'processing' | 'completed' | 'failed';
}

/**
 * The back office follows GET /api/events: every change (made here, by the API or at a lane) bumps
 * `version`, and the screens showing data read again. `seen` counts, per entity, the flushes whose
 * window held a change to it, so a screen can react to one kind without missing it in a burst.
 */
interface LiveState {
  connected: boolean;
  version: number;
  last: LiveEvent | null;
  seen: Record<string, number>;
  /** The newest progress of each import batch, by batch id: kept apart so a burst of the rows' own events cannot hide it. */
  imports: Record<string, ImportProgress>;
  start(creds: Credentials): () => void;
}

/** Screens read again at most this often while events stream in (an import, a settlement batch). */
const FLUSH_MS = 250;

export const useLive = create<LiveState>((set) => ({
  connected: false,
  version: 0,
  last: null,
  seen: {},
  imports: {},
  start(creds) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let pending: LiveEvent | null = null;
    let entities = new Set<string>();
    let progress: Record<string, ImportProgress> = {};
    const flush = () => {
      timer = undefined;
      const touched = entities;
      const batches = progress;
      entities = new Set();
      progress = {};
      set((s) => {
        const seen = { ...s.seen };
        for (const e of touched) seen[e] = (seen[e] ?? 0) + 1;
        return { version: s.version + 1, last: pending, seen, imports: { ...s.imports, ...batches } };
      });
    };
    const stop = followEvents(
      creds,
      (e) => {
        // A throttle, not a debounce: a long burst still shows its progress every FLUSH_MS.
        pending = e;
        entities.add(e.entity);
        // Away too long for the server to replay what was missed: every screen reads again (the
        // flush does that), the session too (a change to this user's role may be among them).
        if (e.type === 'stream.resync') entities.add('user');
        if (e.entity === 'import') progress[e.key] = { ...progress[e.key], ...(e.data as ImportProgress | undefined) };
        timer ??= setTimeout(flush, FLUSH_MS);
      },
      (connected) => set({ connected }),
      // Refused (the user disabled, the session ended): the session is read again, which signs out
      // a session that ended, rather than "Updates paused" shown on a screen that can no longer work.
      () => {
        set({ connected: false });
        void useUser.getState().refresh();
      },
    );
    return () => {
      clearTimeout(timer);
      stop();
    };
  },
}));
