import { useCallback, useEffect, useRef, useState, type CSSProperties, type ReactNode } from 'react';
import { ApiError, type Credentials } from '../api/client';
import { boCall } from '../api/backoffice';
import { dateInZone } from '../../../shared/dates';
import { useLive } from '../state/live';
import { useUser } from '../state/user';
import { holdUnsaved, useRoute } from '../state/route';
import { dayText, money } from '../format';
import { useDialogFocus } from '../dialog-focus';

/**
 * Reads `load` when its inputs change and again on every live change (GET /api/events), keeping
 * what it showed while it reads.
 */
export function useLoad<T>(load: (creds: Credentials) => Promise<T>, deps: unknown[]): { data: T | undefined; error: string | null; reload(): void } {
  const creds = useUser((s) => s.creds);
  const version = useLive((s) => s.version);
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  const loader = useRef(load);
  loader.current = load;
  useEffect(() => {
    if (!creds) return;
    let live = true;
    loader.current(creds).then(
      (d) => live && (setData(d), setError(null)),
      (e: unknown) => live && setError(e instanceof ApiError && e.status === 404 ? 'Not found.' : (e as Error).message),
    );
    return () => {
      live = false;
    };
  }, [creds, version, tick, ...deps]);
  return { data, error, reload: useCallback(() => setTick((t) => t + 1), []) };
}

/**
 * A paged list newest first: the first page, then "Load more" with the engine's cursor. On a live
 * change it reads again as many pages as are shown (an import's progress arrives every few
 * seconds: reading the first page alone took back every page loaded since).
 */
export function usePaged<T, C>(load: (creds: Credentials, cursor: C | undefined) => Promise<{ items: T[]; next: C | null }>, deps: unknown[]) {
  const creds = useUser((s) => s.creds);
  const version = useLive((s) => s.version);
  const [rows, setRows] = useState<T[]>([]);
  const [next, setNext] = useState<C | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  // reload(): read again as many pages as are shown (after a change of the list's own, not yet on the live stream).
  const [tick, setTick] = useState(0);
  const loader = useRef(load);
  loader.current = load;
  const pages = useRef(1);
  // A read started before the latest one must not add its page to the latest one's rows.
  const generation = useRef(0);
  // Other inputs (a filter) start the list again from its first page; declared first, so it runs before the read.
  useEffect(() => {
    pages.current = 1;
  }, deps);
  useEffect(() => {
    if (!creds) return;
    const mine = ++generation.current;
    const wanted = pages.current;
    setLoading(true);
    (async () => {
      let items: T[] = [];
      let cursor: C | null | undefined;
      let read = 0;
      do {
        const p = await loader.current(creds, cursor ?? undefined);
        items = items.concat(p.items);
        cursor = p.next;
        read++;
      } while (read < wanted && cursor !== null);
      return { items, next: cursor ?? null, read };
    })().then(
      (p) => {
        if (mine !== generation.current) return;
        pages.current = p.read;
        setRows(p.items);
        setNext(p.next);
        setLoading(false);
        setError(null);
      },
      (e: unknown) => mine === generation.current && (setError((e as Error).message), setLoading(false)),
    );
  }, [creds, version, tick, ...deps]);
  const more =
    next === null || !creds
      ? null
      : () => {
          const mine = ++generation.current;
          // Counted at once: a live change while this page is on its way reads it with the others.
          pages.current += 1;
          setLoading(true);
          loader.current(creds, next).then(
            (p) => {
              if (mine !== generation.current) return;
              setRows((r) => [...r, ...p.items]);
              setNext(p.next);
              setLoading(false);
            },
            (e: unknown) => {
              if (mine !== generation.current) return;
              pages.current -= 1;
              setError((e as Error).message);
              setLoading(false);
            },
          );
        };
  return { rows, more, loading, error, reload: useCallback(() => setTick((t) => t + 1), []) };
}

/** A link inside the back office: the shell's route, not a page load (the href still opens a new tab). */
export function InApp({ to, children }: { to: string; children: ReactNode }) {
  const go = useRoute((s) => s.go);
  return (
    <a href={to} onClick={(e) => (e.preventDefault(), go(to))}>
      {children}
    </a>
  );
}

/**
 * An amount in the reader's locale. `fit` (a big figure in a card): the amount's length goes to the
 * style (`--chars`) so a long one shrinks to its card's width rather than run past its edge; money is never cut.
 */
export const Money = ({ cents, currency, fit = false }: { cents: number | null | undefined; currency: string | null | undefined; fit?: boolean }) => {
  const text = cents === null || cents === undefined ? '—' : money(cents, (currency ?? 'usd').toUpperCase());
  return (
    <span className={fit ? 'num fit' : 'num'} style={fit ? ({ '--chars': text.length } as CSSProperties) : undefined}>
      {text}
    </span>
  );
};

export function Title({ children, actions, back }: { children: ReactNode; actions?: ReactNode; back?: string }) {
  const go = useRoute((s) => s.go);
  return (
    <div className="bo-title">
      {back && (
        <button type="button" className="back" onClick={() => (window.history.length > 1 ? window.history.back() : go(back))}>
          ← Back
        </button>
      )}
      <h2 className="page-title">{children}</h2>
      <div className="bo-actions">{actions}</div>
    </div>
  );
}

export const Notice = ({ error }: { error: string | null | undefined }) =>
  error ? (
    <p role="alert" className="notice error">
      {error}
    </p>
  ) : null;

/**
 * A labelled field with the engine's error for it beside it (described by, not inside, the label),
 * or its hint. `rows` makes it a text area; `labelSuffix` is read by a screen reader and a search
 * by label but not shown ("Quantity" under a "Line 2" legend is named "Quantity, line 2").
 */
export function Field(props: { label: string; name: string; value: string; onChange(v: string): void; errors: Record<string, string>; type?: string; hint?: string; required?: boolean; disabled?: boolean; suggestions?: readonly string[]; rows?: number; labelSuffix?: string; autoComplete?: string; inputMode?: 'numeric' | 'decimal' }) {
  const error = props.errors[props.name];
  const id = `field-${props.name}`;
  const note = error ? `${id}-error` : props.hint ? `${id}-hint` : undefined;
  return (
    <div className="bo-field">
      <label htmlFor={id}>
        {props.label}
        {props.labelSuffix && <span className="bo-hidden">{props.labelSuffix}</span>}
      </label>
      {props.rows ? (
        <textarea id={id} name={props.name} rows={props.rows} value={props.value} required={props.required} disabled={props.disabled} aria-invalid={error ? true : undefined} aria-describedby={note} onChange={(e) => props.onChange(e.target.value)} />
      ) : (
        <input
          id={id}
          name={props.name}
          type={props.type ?? 'text'}
          value={props.value}
          required={props.required}
          disabled={props.disabled}
          autoComplete={props.autoComplete}
          inputMode={props.inputMode}
          aria-invalid={error ? true : undefined}
          aria-describedby={note}
          list={props.suggestions ? `${id}-suggestions` : undefined}
          onChange={(e) => props.onChange(e.target.value)}
        />
      )}
      {props.suggestions && (
        <datalist id={`${id}-suggestions`}>
          {props.suggestions.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
      )}
      {props.hint && !error && (
        <span id={`${id}-hint`} className="muted small">
          {props.hint}
        </span>
      )}
      {error && (
        <span id={`${id}-error`} className="error small">
          {error}
        </span>
      )}
    </div>
  );
}

/** The engine's field errors by field, and what is left for the top of the form. */
/** A field's error goes once the person changes the field: an error left beside a fixed field reads as still wrong. */
export function dropError(setErrors: (update: (errors: Record<string, string>) => Record<string, string>) => void, name: string): void {
  setErrors((errors) => {
    if (!(name in errors)) return errors;
    const next = { ...errors };
    delete next[name];
    return next;
  });
}

export function fieldErrors(err: unknown): { fields: Record<string, string>; message: string } {
  const fields: Record<string, string> = {};
  if (err instanceof ApiError) for (const d of err.details) if (d.field) fields[d.field] ??= d.message;
  return { fields, message: (err as Error).message };
}

/**
 * Asks before a money move or a change that cannot be taken back, stating what it does; Escape or
 * Cancel closes it, Tab stays inside, and the focus goes back to what opened it (useDialogFocus,
 * as the register's dialogs). What takes the focus first is the safe choice wherever the confirm
 * is risky: Cancel for a `danger` one (disable, remove, discard) and for `cancelFirst` (one that
 * cannot be undone, such as moving the sandbox clock), so Enter, Enter never does it by reflex.
 * Otherwise the confirm button, unless the body has a field to fill first (`fieldFirst`: an amount
 * to type); Enter in that field confirms what was typed.
 */
export function Confirm(props: { title: string; body: ReactNode; confirm: string; busy?: boolean; onConfirm(): void; onCancel(): void; danger?: boolean; fieldFirst?: boolean; cancel?: string; cancelFirst?: boolean }) {
  const box = useRef<HTMLDivElement>(null);
  useDialogFocus(box, props.onCancel);
  const safeFirst = !props.fieldFirst && (props.danger || props.cancelFirst);
  useEffect(() => {
    const key = (e: KeyboardEvent) => {
      // Enter in the amount typed first confirms it, as in any form (the title states that amount).
      const target = e.target as HTMLElement | null;
      if (e.key === 'Enter' && props.fieldFirst && !props.busy && target instanceof HTMLInputElement && box.current?.contains(target)) {
        e.preventDefault();
        props.onConfirm();
      }
    };
    window.addEventListener('keydown', key);
    return () => window.removeEventListener('keydown', key);
  }, [props]);
  useEffect(() => {
    if (props.fieldFirst) box.current?.querySelector<HTMLElement>('input, select, textarea')?.focus();
  }, [props.fieldFirst]);
  return (
    <div className="overlay">
      <div className="dialog" role="dialog" aria-modal="true" aria-label={props.title} ref={box} tabIndex={-1}>
        <h2 className="page-title">{props.title}</h2>
        <div>{props.body}</div>
        <div className="bo-actions">
          <button type="button" autoFocus={safeFirst} onClick={props.onCancel}>
            {props.cancel ?? 'Cancel'}
          </button>
          <button type="button" autoFocus={!props.fieldFirst && !safeFirst} className={props.danger ? 'primary danger-fill' : 'primary'} disabled={props.busy} onClick={props.onConfirm}>
            {props.confirm}
          </button>
        </div>
      </div>
    </div>
  );
}

/**
 * A form's guard for what was typed and not saved yet: while `dirty`, leaving in the app (a link,
 * the side bar, the browser's Back) asks "Discard your changes?" (LeaveDialog, in the shell), and a
 * reload or a closed tab gets the browser's own question. The function answered lets go at once:
 * a form calls it once saved, just before it moves on to what it saved.
 */
export function useUnsavedGuard(dirty: boolean): () => void {
  const release = useRef<(() => void) | null>(null);
  useEffect(() => {
    if (!dirty) return;
    const letGo = holdUnsaved();
    release.current = letGo;
    return () => {
      letGo();
      release.current = null;
    };
  }, [dirty]);
  return useCallback(() => release.current?.(), []);
}

/** The question a leave waits on while a form holds unsaved input: Stay (the default) or Discard. */
export function LeaveDialog() {
  const { leaving, stay, discard } = useRoute();
  if (!leaving) return null;
  return <Confirm title="Discard your changes?" body={<p>What you typed here is not saved yet. Stay to keep it, or discard it and leave.</p>} confirm="Discard" cancel="Stay" danger onConfirm={discard} onCancel={stay} />;
}

/**
 * Today in the shop, as the API's YYYY-MM-DD: the engine's clock (a sandbox's may be moved ahead)
 * on the calendar of the account's time zone, which is the day the engine records when none is
 * sent; '' until both are read.
 */
export function useShopToday(): string {
  const { data: status } = useLoad((c) => boCall(c, 'status', {}), []);
  const { data: account } = useLoad((c) => boCall(c, 'account', {}), []);
  return status && account ? dateInZone(Date.parse(status.now), account.timezone) : '';
}

/** A day in the reader's locale (dates and timestamps alike); '—' for none. */
export const day = (iso: string | null | undefined) => (iso ? dayText(iso) : '—');

/**
 * A payment's status in words, with its pill's tone. The API keeps the reference's values
 * (`ERROR (DECLINED)`, `REVERSAL`...), which an ERP reads; a person reads these.
 */
const PAYMENT_STATUS: Record<string, { words: string; tone: string }> = {
  PAID: { words: 'Paid', tone: 'paid' },
  'PAID (UNVERIFIED)': { words: 'Paid, not verified yet', tone: 'partial' },
  'IN PROGRESS': { words: 'In progress', tone: 'busy' },
  REVERSAL: { words: 'Reversed', tone: 'refunded' },
  'ERROR (NSF)': { words: 'Returned: insufficient funds', tone: 'overdue' },
  'ERROR (DECLINED)': { words: 'Declined', tone: 'overdue' },
};
export const paymentStatus = (status: string) => PAYMENT_STATUS[status] ?? { words: status, tone: '' };

export function PaymentStatus({ status }: { status: string }) {
  const { words, tone } = paymentStatus(status);
  return <span className={`pill ${tone}`} title={status}>{words}</span>;
}

/** Who holds a grant a read-only screen lacks, in words (the engine's ROLE_SCOPES: `settings` the owner's and the managers', `credentials` the owner's alone). */
const WHO_HOLDS: Record<'settings' | 'credentials', string> = { settings: 'the owner or a manager', credentials: 'the owner' };

/** Why a form's fields are greyed out (or its buttons absent): who holds the grant that changes them. */
export function ReadOnlyNote({ grant = 'settings' }: { grant?: 'settings' | 'credentials' }) {
  return (
    <p className="muted" role="note" data-testid="read-only-note">
      Only {WHO_HOLDS[grant]} changes these.
    </p>
  );
}

/** A Copy button for a link shown on the screen (or `what` else: a script tag), saying beside it whether the copy worked. */
export function CopyButton({ text, what = 'link' }: { text: string; what?: string }) {
  const [said, setSaid] = useState('');
  const copy = () => {
    navigator.clipboard.writeText(text).then(
      () => setSaid(`${what[0]!.toUpperCase()}${what.slice(1)} copied`),
      () => setSaid(`Copy did not work: select the ${what} and copy it`),
    );
  };
  return (
    <>
      <button type="button" onClick={copy}>Copy {what}</button> <span role="status">{said}</span>
    </>
  );
}

/**
 * Where a form's address was opened by someone whose role may not send it (a link, a bookmark):
 * said at once, instead of a form that can only fail once filled in.
 */
export function NotForYourRole({ what, back }: { what: string; back: string }) {
  const role = useUser((s) => s.session?.user.role);
  return (
    <section className="bo-section">
      <Title back={back}>{what}</Title>
      <p className="notice warn" role="status">
        Your role ({role ?? 'none'}) may not {what.toLowerCase()}. Ask the owner or a manager.
      </p>
    </section>
  );
}

/**
 * How a payment was made, in words ("Cheque 1042"): the Record a payment form's names for the
 * external types it offers, the engine's values (`cheque`, `wire`, as an ERP sends them) otherwise.
 */
export const EXTERNAL_PAYMENT_TYPES: Record<string, string> = { cheque: 'Cheque', wire: 'Wire transfer' };

export function paidBy(p: { external_payment_type: string | null; external_payment_number: string | null; payment_method: string | null; payment_code: string | null; payment_source: string }): string {
  const type = p.external_payment_type;
  const how = (type && (EXTERNAL_PAYMENT_TYPES[type.toLowerCase()] ?? type)) ?? p.payment_method ?? p.payment_code ?? p.payment_source.toLowerCase();
  return p.external_payment_number ? `${how} ${p.external_payment_number}` : how;
}
