import { create } from 'zustand';
import { apiFetch, type Credentials } from '../api/client';
import { followEvents, type LiveEvent } from '../api/events';
import type { InstallStatus } from '../../../shared/schemas/system';

export type { InstallStatus };

const KEEP_EVENTS = 50;

interface StatusState {
  status: InstallStatus | null;
  events: LiveEvent[];
  live: boolean;
  error: string | null;
  start(creds: Credentials): () => void;
}

export const useStatus = create<StatusState>((set, get) => ({
  status: null,
  events: [],
  live: false,
  error: null,
  start(creds) {
    const refresh = async () => {
      try {
        set({ status: await apiFetch<InstallStatus>(creds, 'GET', '/api/status'), error: null });
      } catch (err) {
        set({ error: (err as Error).message });
      }
    };
    void refresh();
    const timer = setInterval(() => void refresh(), 10_000);
    const stop = followEvents(
      creds,
      (e) => {
        set({ events: [e, ...get().events].slice(0, KEEP_EVENTS) });
        // A moved sandbox clock changes what the screen says the time is, and after a resync
        // (events missed) anything may have changed: ask again now.
        if (e.type === 'sandbox_clock.moved' || e.type === 'stream.resync') void refresh();
        const s = get().status;
        if (s && e.watermark > s.watermark) set({ status: { ...s, watermark: e.watermark } });
      },
      (live) => set({ live }),
    );
    return () => {
      clearInterval(timer);
      stop();
    };
  },
}));
