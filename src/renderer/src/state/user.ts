import { create } from 'zustand';
import { bearer, type Credentials } from '../api/client';
import { boCall, type BoAnswer } from '../api/backoffice';

const STORAGE_KEY = 'laneway.user';

type Session = BoAnswer<'session'>;

/**
 * The back-office user's session: e-mail and password (or a one-time link) give a day-long JWT,
 * kept in this browser's storage; the role's grants say which actions the screens show. The
 * engine checks the role on every request all the same.
 */
interface UserState {
  session: Session | null;
  creds: Credentials | null;
  restoring: boolean;
  busy: boolean;
  error: string | null;
  restore(): Promise<void>;
  signIn(email: string, password: string): Promise<void>;
  redeem(link: string, password: string, email?: string): Promise<void>;
  /** Reads the session again (a role change made elsewhere). */
  refresh(): Promise<void>;
  signOut(): void;
}

const origin = () => window.location.origin;
const credsOf = (jwt: string): Credentials => ({ baseUrl: origin(), authorization: bearer(jwt) });
const anonymous: Credentials = { baseUrl: '', authorization: '' };

export const useUser = create<UserState>((set, get) => {
  const keep = (s: Session) => {
    localStorage.setItem(STORAGE_KEY, s.jwt);
    set({ session: s, creds: credsOf(s.jwt), busy: false, error: null, restoring: false });
  };
  const failed = (err: unknown) => set({ busy: false, error: (err as Error).message });
  return {
    session: null,
    creds: null,
    restoring: true,
    busy: false,
    error: null,
    async restore() {
      const jwt = localStorage.getItem(STORAGE_KEY);
      if (!jwt) return set({ restoring: false });
      try {
        keep(await boCall(credsOf(jwt), 'session', {}));
      } catch {
        localStorage.removeItem(STORAGE_KEY);
        set({ restoring: false });
      }
    },
    async signIn(email, password) {
      set({ busy: true, error: null });
      try {
        keep(await boCall({ ...anonymous, baseUrl: origin() }, 'signIn', { body: { email: email.trim(), password } }));
      } catch (err) {
        failed(err);
      }
    },
    async redeem(link, password, email) {
      set({ busy: true, error: null });
      try {
        keep(await boCall({ ...anonymous, baseUrl: origin() }, 'redeemLink', { body: { link, password, ...(email ? { email } : {}) } }));
      } catch (err) {
        failed(err);
      }
    },
    async refresh() {
      const creds = get().creds;
      if (!creds) return;
      try {
        const s = await boCall(creds, 'session', {});
        // Keep the JWT we have: a refreshed one never outlives it anyway.
        set({ session: { ...s, jwt: get().session?.jwt ?? s.jwt } });
      } catch {
        get().signOut();
      }
    },
    signOut() {
      // Ended on the server too (every copy of the JWT), without waiting: the screen signs out at once.
      const creds = get().creds;
      if (creds) void boCall(creds, 'signOut', {}).catch(() => undefined);
      localStorage.removeItem(STORAGE_KEY);
      set({ session: null, creds: null });
    },
  };
});

/**
 * Whether the signed-in role may do what needs `grant` (the engine's ROLE_SCOPES, as the session
 * lists them): the back office's session, or the person signed in at the register.
 */
export function can(session: { scopes: readonly string[] } | null, grant: 'read' | 'collect' | 'manage' | 'money' | 'settings' | 'register' | 'users' | 'credentials'): boolean {
  if (!session) return false;
  return session.scopes.includes(grant) || (grant !== 'users' && grant !== 'credentials' && session.scopes.includes('api'));
}
