import { create } from 'zustand';
import { apiFetch, basic, bearer, type Credentials } from '../api/client';
import type { WhoamiResponse } from '../../../shared/schemas/account';

const STORAGE_KEY = 'laneway.session';

interface SessionState {
  creds: Credentials | null;
  accountName: string | null;
  error: string | null;
  /** Looking for an existing session at start-up. */
  restoring: boolean;
  /** A sign-in is in flight. */
  busy: boolean;
  /** Electron: ask the bridge; browser: reuse a stored JWT if it still works. */
  restore(): Promise<void>;
  signIn(token: string, key: string): Promise<void>;
  signOut(): void;
}

async function whoami(creds: Credentials): Promise<{ jwt: string; name: string }> {
  const res = await apiFetch<WhoamiResponse>(creds, 'GET', '/api/whoami?options[jwt_expiry]=1');
  const entry = Object.values(res.whoami)[0];
  if (!entry) throw new Error('whoami returned no identity');
  return { jwt: entry.jwt, name: entry.name };
}

export const useSession = create<SessionState>((set) => ({
  creds: null,
  accountName: null,
  error: null,
  restoring: true,
  busy: false,
  async restore() {
    try {
      if (window.laneway) {
        const s = await window.laneway.session();
        const creds = { baseUrl: s.apiUrl, authorization: bearer(s.jwt) };
        const me = await whoami(creds);
        set({ creds, accountName: me.name, restoring: false });
        return;
      }
      const stored = localStorage.getItem(STORAGE_KEY);
      if (stored) {
        const creds = { baseUrl: window.location.origin, authorization: bearer(stored) };
        const me = await whoami(creds);
        set({ creds, accountName: me.name, restoring: false });
        return;
      }
    } catch {
      localStorage.removeItem(STORAGE_KEY);
    }
    set({ restoring: false });
  },
  async signIn(token, key) {
    set({ busy: true, error: null });
    try {
      const me = await whoami({ baseUrl: window.location.origin, authorization: basic(token.trim(), key.trim()) });
      // Keep a JWT (a day long), never the key.
      localStorage.setItem(STORAGE_KEY, me.jwt);
      set({ creds: { baseUrl: window.location.origin, authorization: bearer(me.jwt) }, accountName: me.name, busy: false });
    } catch (err) {
      const status = (err as { status?: number }).status;
      set({
        busy: false,
        error: status === 401 ? 'That API token and key do not match an enabled credential. Check both and try again.' : (err as Error).message,
      });
    }
  },
  signOut() {
    localStorage.removeItem(STORAGE_KEY);
    set({ creds: null, accountName: null });
  },
}));
