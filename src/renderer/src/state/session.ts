import { create } from 'zustand';
import { apiFetch, basic, bearer, type Credentials } from '../api/client';
import { useUser } from './user';
import type { WhoamiResponse } from '../../../shared/schemas/account';

const STORAGE_KEY = 'laneway.session';

/** The person signed in to the register, when it was a user (null: the install's API key). */
export interface RegisterUser {
  name: string;
  role: string;
  scopes: readonly string[];
}

/**
 * Who the register screen works as. Either a back-office user (e-mail and password: the very
 * session of the back office, `useUser`, so signing in at one signs in at the other in this
 * browser) or, as existing setups do, the install's API token and key (kept as a JWT, never the
 * key). The engine checks the role on every call; a cashier user may use the register only.
 */
interface SessionState {
  creds: Credentials | null;
  accountName: string | null;
  user: RegisterUser | null;
  error: string | null;
  /** Looking for an existing session at start-up. */
  restoring: boolean;
  /** A sign-in is in flight. */
  busy: boolean;
  /** Electron: ask the bridge; browser: reuse a stored user session or JWT if it still works. */
  restore(): Promise<void>;
  signIn(token: string, key: string): Promise<void>;
  signInUser(email: string, password: string): Promise<void>;
  signOut(): void;
  /** The API refused the user's session (401: it expired, or the user was disabled): back to sign-in, saying why. */
  expire(): void;
}

async function whoami(creds: Credentials): Promise<{ jwt: string; name: string }> {
  const res = await apiFetch<WhoamiResponse>(creds, 'GET', '/api/whoami?options[jwt_expiry]=1');
  const entry = Object.values(res.whoami)[0];
  if (!entry) throw new Error('whoami returned no identity');
  return { jwt: entry.jwt, name: entry.name };
}

/** The register's state for the user session `useUser` holds, or null when it holds none. */
function fromUser(): Pick<SessionState, 'creds' | 'accountName' | 'user'> | null {
  const { session, creds } = useUser.getState();
  if (!session || !creds) return null;
  return { creds, accountName: session.account_name, user: { name: session.user.name, role: session.user.role, scopes: session.scopes } };
}

export const useSession = create<SessionState>((set) => ({
  creds: null,
  accountName: null,
  user: null,
  error: null,
  restoring: true,
  busy: false,
  async restore() {
    try {
      if (window.laneway) {
        const s = await window.laneway.session();
        const creds = { baseUrl: s.apiUrl, authorization: bearer(s.jwt) };
        const me = await whoami(creds);
        set({ creds, accountName: me.name, user: null, restoring: false });
        return;
      }
      // A person signed in (here or in the back office) is who works this screen.
      await useUser.getState().restore();
      const asUser = fromUser();
      if (asUser) return set({ ...asUser, restoring: false });
      const stored = localStorage.getItem(STORAGE_KEY);
      if (stored) {
        const creds = { baseUrl: window.location.origin, authorization: bearer(stored) };
        const me = await whoami(creds);
        set({ creds, accountName: me.name, user: null, restoring: false });
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
      // Keep a JWT (a day long), never the key; the key's sign-in replaces a user's on this screen.
      localStorage.setItem(STORAGE_KEY, me.jwt);
      useUser.getState().signOut();
      set({ creds: { baseUrl: window.location.origin, authorization: bearer(me.jwt) }, accountName: me.name, user: null, busy: false });
    } catch (err) {
      const status = (err as { status?: number }).status;
      set({
        busy: false,
        error: status === 401 ? 'That API token and key do not match an enabled credential. Check both and try again.' : (err as Error).message,
      });
    }
  },
  async signInUser(email, password) {
    set({ busy: true, error: null });
    await useUser.getState().signIn(email, password);
    const asUser = fromUser();
    if (!asUser) return set({ busy: false, error: useUser.getState().error ?? 'Sign-in failed' });
    localStorage.removeItem(STORAGE_KEY);
    set({ ...asUser, busy: false });
  },
  signOut() {
    localStorage.removeItem(STORAGE_KEY);
    useUser.getState().signOut();
    set({ creds: null, accountName: null, user: null });
  },
  expire() {
    useUser.getState().signOut();
    // The cashier's shift and the open sale stay as the register keeps them (session storage and
    // the engine): signing in again on this screen resumes them if the shift is still open.
    set({ creds: null, accountName: null, user: null, busy: false, error: 'Your session has ended: it expired, or your access was changed or removed. Sign in again to carry on; the sale in progress is kept.' });
  },
}));

/** Whether the register's signed-in identity may read the back office (the install status page needs `read`). */
export const canReadBackOffice = (user: RegisterUser | null) => user === null || user.scopes.includes('read') || user.scopes.includes('api');
