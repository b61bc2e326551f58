import { useEffect, useRef, useState, type RefObject } from 'react';

/** The dialogs open, the topmost last: only it keeps the focus. */
const open: HTMLElement[] = [];

/** What Tab stops at inside `root`, in order: one stop per radio group (its checked radio, else its first), nothing disabled or hidden. */
function tabStops(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, [tabindex]')].filter((el) => {
    if (el.tabIndex < 0 || (el as HTMLButtonElement).disabled || el.getClientRects().length === 0) return false;
    if (el instanceof HTMLInputElement && el.type === 'hidden') return false;
    if (el instanceof HTMLInputElement && el.type === 'radio' && el.name) {
      const group = [...root.querySelectorAll<HTMLInputElement>('input[type="radio"]')].filter((r) => r.name === el.name);
      return el === (group.find((r) => r.checked) ?? group[0]);
    }
    return true;
  });
}

/**
 * Keeps the keyboard inside a dialog while it is open (every dialog: the register's Modal, the
 * back office's Confirm): Tab past its last control comes back to its first, Shift+Tab the other
 * way, and a Tab from outside it (the focus left on the page behind after a click) goes into it.
 * Esc closes it when the dialog's own keys (useKeys) did not take Esc. The focus goes back to what
 * opened it when the dialog closes, if nothing took it meanwhile: left on the page's body, the
 * next Tab starts from the top of the page.
 */
export function useDialogFocus(ref: RefObject<HTMLElement | null>, onClose: (() => void) | undefined): void {
  const close = useRef(onClose);
  close.current = onClose;
  // Read as the dialog first renders: by its effect, a field's autoFocus has taken the focus.
  const [before] = useState(() => (document.activeElement instanceof HTMLElement ? document.activeElement : null));
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    open.push(dialog);
    // A dialog with no field or button chosen to start from is entered all the same.
    if (!dialog.contains(document.activeElement)) dialog.focus();
    const onKey = (e: KeyboardEvent) => {
      if (open[open.length - 1] !== dialog) return;
      if (e.key === 'Escape') {
        // After the key layers (useKeys listens in the capture phase): only when none took Esc.
        if (!e.defaultPrevented && close.current) {
          e.preventDefault();
          close.current();
        }
        return;
      }
      if (e.key !== 'Tab' || e.ctrlKey || e.altKey || e.metaKey) return;
      const stops = tabStops(dialog);
      const active = document.activeElement;
      const first = stops[0];
      const last = stops[stops.length - 1];
      if (!first || !last) {
        e.preventDefault();
        dialog.focus();
      } else if (!dialog.contains(active)) {
        e.preventDefault();
        (e.shiftKey ? last : first).focus();
      } else if (!e.shiftKey && active === last) {
        e.preventDefault();
        first.focus();
      } else if (e.shiftKey && (active === first || active === dialog)) {
        e.preventDefault();
        last.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      open.splice(open.indexOf(dialog), 1);
      if ((document.activeElement === document.body || document.activeElement === null) && before?.isConnected) before.focus();
    };
  }, [ref, before]);
}
