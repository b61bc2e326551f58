import { useRef, type ReactNode } from 'react';
import { useDialogFocus } from '../../dialog-focus';

/** A dialog over the screen. Its keys (Esc, Enter...) are the caller's, through useKeys with `modal`; the focus stays inside it. */
export function Modal({ title, children, onClose, wide }: { title: string; children: ReactNode; onClose?: () => void; wide?: boolean }) {
  const ref = useRef<HTMLElement>(null);
  useDialogFocus(ref, onClose);
  return (
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && onClose?.()}>
      <section ref={ref} tabIndex={-1} className={`dialog${wide ? ' wide' : ''}`} role="dialog" aria-modal="true" aria-label={title}>
        <header>
          <h2>{title}</h2>
          {onClose && (
            <button type="button" className="close" onClick={onClose} aria-label="Close">
              <kbd>Esc</kbd>
            </button>
          )}
        </header>
        {children}
      </section>
    </div>
  );
}
