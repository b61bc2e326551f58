import { useEffect } from 'react';
import { create } from 'zustand';
import { apiFetch, type Credentials } from '../api/client';
import { setShopTimeZone } from '../format';
import type { InstallStatus } from '../../../shared/schemas/system';

/**
 * The shop's time zone, read once a screen has credentials: times are formatted in it
 * (format.ts). Kept in a store so the screen draws again once it is known.
 */
const useZone = create<{ zone: string | null; set(zone: string): void }>((set) => ({
  zone: null,
  set: (zone) => {
    setShopTimeZone(zone);
    set({ zone });
  },
}));

/** Reads the shop's zone with these credentials; answers it (null until read) so the caller draws again. */
export function useShopZone(creds: Credentials | null | undefined): string | null {
  const { zone, set } = useZone();
  useEffect(() => {
    if (!creds) return;
    let live = true;
    apiFetch<InstallStatus>(creds, 'GET', '/api/status').then(
      (s) => live && s.timezone && set(s.timezone),
      // Times stay in the reader's zone when the status cannot be read; nothing else depends on it.
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [creds, set]);
  return zone;
}
