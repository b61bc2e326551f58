import { create } from 'zustand';

/**
 * Where the screens are: the URL itself (History API), so a deep link opens the same place, the
 * back button goes back and a reload stays. Paths are under /app.
 */
interface RouteState {
  path: string;
  search: URLSearchParams;
  go(path: string, options?: { replace?: boolean }): void;
}

const read = () => ({ path: window.location.pathname.replace(/\/+$/, '') || '/app', search: new URLSearchParams(window.location.search) });

export const useRoute = create<RouteState>((set) => ({
  ...read(),
  go(path, options = {}) {
    if (path === `${window.location.pathname}${window.location.search}`) return;
    if (options.replace) window.history.replaceState(null, '', path);
    else window.history.pushState(null, '', path);
    set(read());
    window.scrollTo(0, 0);
  },
}));

window.addEventListener('popstate', () => useRoute.setState(read()));

/** The segments after /app: `/app/customers/C1` → ['customers', 'C1'] (decoded). */
export function segments(path: string): string[] {
  return path.replace(/^\/app\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
}

export const link = (...parts: string[]) => `/app/${parts.map(encodeURIComponent).join('/')}`;
