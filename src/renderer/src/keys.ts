import { useEffect, useRef } from 'react';

export type KeyMap = Partial<Record<string, (e: KeyboardEvent) => void>>;

interface Layer {
  map: { current: KeyMap };
  modal: boolean;
}

/**
 * One keyboard listener for the whole window and a stack of key maps: the screen's at the bottom,
 * an open dialog's above it. A key goes to the topmost map that has it; a modal dialog keeps every
 * key from the layers below. Typing in a field is left to the field: letters, digits and Enter are
 * handled by a map only when the focus is not in an input, and Enter not when it is on a control
 * marked `data-own-enter`.
 */
const layers: Layer[] = [];

function editable(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable);
}

/** A control apart from the screen's flow (`data-own-enter`, the drawer banner's button): Enter presses it, not the screen's Enter. */
function ownsEnter(target: EventTarget | null): boolean {
  return target instanceof Element && target.closest('[data-own-enter]') !== null;
}

function onKey(e: KeyboardEvent): void {
  if (e.ctrlKey || e.altKey || e.metaKey) return;
  const typing = (editable(e.target) && (e.key.length === 1 || e.key === 'Enter')) || (e.key === 'Enter' && ownsEnter(e.target));
  for (let i = layers.length - 1; i >= 0; i--) {
    const layer = layers[i]!;
    const handler = layer.map.current[e.key];
    if (handler && !typing) {
      e.preventDefault();
      handler(e);
      return;
    }
    if (layer.modal) {
      // Keep browser defaults (F5 reload, F3 find) away from a modal dialog too.
      if (/^F[0-9]{1,2}$/.test(e.key)) e.preventDefault();
      return;
    }
  }
}

/** The keys of a screen (or, with `modal`, of a dialog) while it is shown. */
export function useKeys(map: KeyMap, options: { active?: boolean; modal?: boolean } = {}): void {
  const ref = useRef(map);
  ref.current = map;
  const active = options.active ?? true;
  const modal = options.modal ?? false;
  useEffect(() => {
    if (!active) return;
    const layer: Layer = { map: ref, modal };
    if (layers.length === 0) window.addEventListener('keydown', onKey, true);
    layers.push(layer);
    return () => {
      layers.splice(layers.indexOf(layer), 1);
      if (layers.length === 0) window.removeEventListener('keydown', onKey, true);
    };
  }, [active, modal]);
}
