import { create } from 'zustand';

/**
 * Where the screens are: the URL itself (History API), so a deep link opens the same place, the
 * back button goes back and a reload stays. Paths are under /app.
 *
 * A form with unsaved input holds the page (`holdUnsaved`, through common.tsx's useUnsavedGuard):
 * while one does, leaving in the app (a link, the side bar, the browser's Back) waits in `leaving`
 * for the person to choose Stay or Discard, and a reload or a closed tab gets the browser's own
 * beforeunload question.
 */
interface RouteState {
  path: string;
  search: URLSearchParams;
  /** What runs once the person chooses to discard their changes; null when nothing is waiting. */
  leaving: (() => void) | null;
  go(path: string, options?: { replace?: boolean }): void;
  /** Runs `action` (a sign-out) at once, or once the person discards what a form holds unsaved. */
  leave(action: () => void): void;
  /** Stay: the leave asked for is dropped, the form and its input stay. */
  stay(): void;
  /** Discard: the leave asked for goes ahead. */
  discard(): void;
}

const read = () => ({ path: window.location.pathname.replace(/\/+$/, '') || '/app', search: new URLSearchParams(window.location.search) });
const here = () => `${window.location.pathname}${window.location.search}${window.location.hash}`;

/** Forms holding unsaved input, each by a token of its own. */
const unsaved = new Set<symbol>();
/** The browser's question on reload or close: asked only while a form holds unsaved input. */
const askBeforeUnload = (e: BeforeUnloadEvent) => {
  e.preventDefault();
  // Chromium before 119 and Electron ask only when returnValue is set.
  e.returnValue = '';
};

/** A form's unsaved input held; the function answered lets go of it (saved, emptied or gone). */
export function holdUnsaved(): () => void {
  const token = Symbol('unsaved');
  if (unsaved.size === 0) window.addEventListener('beforeunload', askBeforeUnload);
  unsaved.add(token);
  return () => {
    if (!unsaved.delete(token)) return;
    if (unsaved.size === 0) window.removeEventListener('beforeunload', askBeforeUnload);
  };
}

export const hasUnsaved = () => unsaved.size > 0;

/** The address the screens show: where a Back refused by the person returns to. */
let shown = here();
/** Set while a Back the person chose to go on with is on its way (its popstate is not asked again). */
let discarding = false;

export const useRoute = create<RouteState>((set, get) => {
  const navigate = (path: string, options: { replace?: boolean }) => {
    if (options.replace) window.history.replaceState(null, '', path);
    else window.history.pushState(null, '', path);
    shown = here();
    set({ ...read(), leaving: null });
    window.scrollTo(0, 0);
  };
  return {
    ...read(),
    leaving: null,
    go(path, options = {}) {
      if (path === `${window.location.pathname}${window.location.search}`) return;
      if (hasUnsaved()) set({ leaving: () => navigate(path, options) });
      else navigate(path, options);
    },
    leave(action) {
      if (hasUnsaved()) set({ leaving: action });
      else action();
    },
    stay() {
      set({ leaving: null });
    },
    discard() {
      const action = get().leaving;
      set({ leaving: null });
      action?.();
    },
  };
});

window.addEventListener('popstate', () => {
  if (hasUnsaved() && !discarding) {
    // The browser has moved already (Back or Forward): the form's address goes back on top, and
    // Discard goes back again to where the person was going.
    window.history.pushState(null, '', shown);
    useRoute.setState({
      leaving: () => {
        discarding = true;
        window.history.back();
      },
    });
    return;
  }
  discarding = false;
  shown = here();
  useRoute.setState({ ...read(), leaving: null });
});

/** The segments after /app: `/app/customers/C1` → ['customers', 'C1'] (decoded). */
export function segments(path: string): string[] {
  return path.replace(/^\/app\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
}

export const link = (...parts: string[]) => `/app/${parts.map(encodeURIComponent).join('/')}`;
