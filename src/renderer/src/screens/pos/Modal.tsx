import type { ReactNode } from 'react';

/** A dialog over the screen. Its keys (Esc, Enter...) are the caller's, through useKeys with `modal`. */
export function Modal({ title, children, onClose, wide }: { title: string; children: ReactNode; onClose?: () => void; wide?: boolean }) {
  return (
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && onClose?.()}>
      <section className={`dialog${wide ? ' wide' : ''}`} role="dialog" aria-modal="true" aria-label={title}>
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
