import { useCallback, useEffect, useState, type KeyboardEvent } from 'react';
import { boCall } from '../api/backoffice';
import type { Credentials } from '../api/client';
import { useUser } from '../state/user';

/** A customer picked on a form: the identifier the engine records, the name a person reads. */
export type Picked = { identifier: string; name: string };

/** Customers offered at most, as the list answers them (identifier order, else names). */
const OFFERED = 8;
/** A pause in typing before the list is asked (a name is read customer by customer). */
const PAUSE_MS = 200;

/** The one customer typed exactly by identifier ("acme-1" too, when no "acme-1" exists as written): unique, so taken without a pick. */
function byIdentifier(items: readonly Picked[], typed: string): Picked | undefined {
  return items.find((c) => c.identifier === typed) ?? items.find((c) => c.identifier.toLowerCase() === typed.toLowerCase());
}

async function lookUp(creds: Credentials, q: string): Promise<Picked[]> {
  const page = await boCall(creds, 'customers', { query: { q, limit: OFFERED } });
  return page.items.map((c) => ({ identifier: c.identifier, name: c.name }));
}

/**
 * A customer chosen from the engine's customer search (GET /api/customers?q=: an identifier's
 * start, else the words of a name), never text taken as one: part of a name lists the customers
 * it matches to pick from, and text matching none is said at once. An identifier typed whole
 * (or opened with the form: `initial`) is that customer, with nothing to pick.
 */
export function useCustomerPick(initial: string) {
  const creds = useUser((s) => s.creds);
  const [text, setText] = useState(initial);
  const [chosen, setChosen] = useState<Picked | null>(null);
  // The list's answer, with the text it answers (the field may have changed since).
  const [found, setFound] = useState<{ q: string; items: Picked[]; error?: string } | null>(null);
  const q = text.trim();
  useEffect(() => {
    if (!creds || !q || chosen) return;
    let live = true;
    const timer = setTimeout(() => {
      lookUp(creds, q).then(
        (items) => {
          if (!live) return;
          setFound({ q, items });
          const exact = byIdentifier(items, q);
          if (exact) setChosen(exact);
        },
        (err: unknown) => live && setFound({ q, items: [], error: (err as Error).message }),
      );
    }, PAUSE_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [creds, q, chosen]);
  const answer = found && found.q === q && !chosen ? found : null;
  return {
    text,
    chosen,
    /** The customers offered for what is typed now; empty while none is answered yet or one is chosen. */
    options: answer?.items ?? [],
    /** Said beside the field at once: the text matches no customer, or the search failed. */
    problem: answer?.error ?? (answer && answer.items.length === 0 ? `No customer matches “${q}”: type part of the name or the identifier (Customers lists them)` : null),
    type(v: string) {
      setText(v);
      setChosen(null);
    },
    choose(c: Picked) {
      setChosen(c);
      setText(c.name || c.identifier);
    },
    /**
     * The customer to record for on submit: the one chosen, else one typed whole by identifier
     * that the list has not answered yet (asked now); null when none.
     */
    resolve: useCallback(async (): Promise<Picked | null> => {
      if (chosen) return chosen;
      if (!creds || !q) return null;
      const exact = byIdentifier(await lookUp(creds, q), q) ?? null;
      if (exact) setChosen(exact);
      return exact;
    }, [chosen, creds, q]),
  };
}

export type CustomerPick = ReturnType<typeof useCustomerPick>;

/**
 * The field of useCustomerPick, a combobox: the customers offered below it, each with its name
 * and identifier, picked by a click or the arrow keys and Enter; the one chosen said under it.
 */
export function CustomerPicker({ pick, label, name, error }: { pick: CustomerPick; label: string; name: string; error?: string | undefined }) {
  const id = `field-${name}`;
  const [active, setActive] = useState(0);
  const [closedFor, setClosedFor] = useState<string | null>(null);
  const said = error ?? pick.problem;
  const open = pick.options.length > 0 && closedFor !== pick.text;
  const note = said ? `${id}-error` : `${id}-hint`;
  const key = (e: KeyboardEvent<HTMLInputElement>) => {
    if (!open) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const n = pick.options.length;
      setActive((a) => (e.key === 'ArrowDown' ? (a + 1) % n : (a - 1 + n) % n));
    } else if (e.key === 'Enter') {
      // Enter picks the customer highlighted: it does not send the form with none chosen.
      e.preventDefault();
      pick.choose(pick.options[Math.min(active, pick.options.length - 1)]!);
    } else if (e.key === 'Escape') setClosedFor(pick.text);
  };
  return (
    <div className="bo-field bo-combobox">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        name={name}
        role="combobox"
        autoComplete="off"
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={`${id}-options`}
        aria-activedescendant={open ? `${id}-option-${Math.min(active, pick.options.length - 1)}` : undefined}
        aria-invalid={said ? true : undefined}
        aria-describedby={note}
        required
        value={pick.text}
        onChange={(e) => {
          pick.type(e.target.value);
          setActive(0);
        }}
        onKeyDown={key}
      />
      <ul id={`${id}-options`} role="listbox" aria-label={`Customers matching ${pick.text.trim()}`} className="bo-options card" hidden={!open}>
        {open &&
          pick.options.map((c, i) => (
            <li
              key={c.identifier}
              id={`${id}-option-${i}`}
              role="option"
              aria-selected={i === active}
              className={i === active ? 'active' : undefined}
              // Pressed, not clicked: the field keeps the focus.
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => pick.choose(c)}
            >
              <strong>{c.name || c.identifier}</strong> <span className="muted">{c.identifier}</span>
            </li>
          ))}
      </ul>
      {said ? (
        <span id={`${id}-error`} className="error small">
          {said}
        </span>
      ) : (
        <span id={`${id}-hint`} className="muted small" role="status">
          {pick.chosen ? `${pick.chosen.name ? `${pick.chosen.name} · ` : ''}${pick.chosen.identifier}` : 'Type part of the name or the identifier, then pick the customer'}
        </span>
      )}
    </div>
  );
}
