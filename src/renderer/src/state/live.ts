import { create } from 'zustand';
import { followEvents, type LiveEvent } from '../api/events';
import type { Credentials } from '../api/client';

/**
 * The back office follows GET /api/events: every change (made here, by the API or at a lane) bumps
 * `version` for the entities it names, and the screens showing them read again.
 */
interface LiveState {
  connected: boolean;
  version: number;
  last: LiveEvent | null;
  start(creds: Credentials): () => void;
}

export const useLive = create<LiveState>((set) => ({
  connected: false,
  version: 0,
  last: null,
  start(creds) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    return followEvents(
      creds,
      (e) => {
        // Bursts (an import, a batch) read again once, shortly after.
        clearTimeout(timer);
        timer = setTimeout(() => set((s) => ({ version: s.version + 1, last: e })), 250);
      },
      (connected) => set({ connected }),
    );
  },
}));
