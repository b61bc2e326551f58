import { useState, type FormEvent } from 'react';
import { ApiError } from '../api/client';
import { boCall } from '../api/backoffice';
import { amountInput, money, parseAmount } from '../format';
import { useUser } from '../state/user';
import { Confirm, Field, Notice, Title, dropError, fieldErrors, useLoad, useUnsavedGuard } from './common';
import './operations.css';

/**
 * The field each of the engine's gift card refusals is about (the gateway's answer names a code;
 * its words come with it, src/shared/error-header.ts). The others go above the form: the account's
 * gift cards turned off, no processor in production, a lane's hub out of reach.
 */
const FIELD_OF: Record<string, 'card_number' | 'pin' | 'load_amount_cents'> = {
  invalid_card_number: 'card_number',
  gift_card_mismatch: 'card_number',
  incorrect_pin: 'pin',
  pin_tries_exceeded: 'pin',
  pin_check_in_progress: 'pin',
  balance_limit: 'load_amount_cents',
};

/**
 * The engine's words as the person reads them: its bounds of an amount field, written in cents for
 * the API, in money of the reader's locale ("The amount must be from $0.00 to $1,000,000.00").
 */
const plain = (text: string, currency: string) =>
  text.replace(/^\w+ must be a whole number of cents from (\d+) to (\d+)$/, (_, low: string, high: string) => `The amount must be from ${money(Number(low), currency)} to ${money(Number(high), currency)}.`);

/** The engine's refusal beside its field (named `${prefix}${field}` on this screen), or above the form. */
function refusal(err: unknown, prefix: string, currency: string): { fields: Record<string, string>; message: string | null } {
  const { fields: byApi, message } = fieldErrors(err);
  const code = err instanceof ApiError ? err.code : '';
  const field = FIELD_OF[code];
  if (field && !byApi[field]) byApi[field] = message;
  const fields = Object.fromEntries(Object.entries(byApi).map(([k, v]) => [`${prefix}${k}`, plain(v, currency)]));
  return { fields, message: Object.keys(fields).length ? null : plain(message, currency) };
}

/** The last four digits of what was typed: all a result names once the number is cleared. */
const lastFour = (number: string) => number.replace(/\D/g, '').slice(-4);

interface Outcome {
  last4: string;
  text: string;
}

/**
 * Gift cards (the shop's own, this install being their processor; on a lane PC, the hub's): look a
 * card's balance up by its number, and activate or load a card with an amount typed in the
 * reader's locale. The full number is sent once and never kept: the fields are cleared after each
 * action, and what is shown names the card by its last four digits. Owners and managers (the
 * engine's `money` grant: a balance read answers the token that pays with the card).
 */
export function GiftCardsSection() {
  const { data: account, error } = useLoad((c) => boCall(c, 'account', {}), []);
  const currency = (account?.currency ?? 'usd').toUpperCase();
  const off = account && account.capabilities.gift_cards === false;
  return (
    <section className="bo-section">
      <Title>Gift cards</Title>
      <Notice error={error} />
      {!account && !error && <p className="muted">Loading…</p>}
      {off && (
        <p className="notice warn" role="status" data-testid="gift-cards-off">
          Gift cards are turned off for this account. An owner or a manager turns them on under Account (Gift cards), then cards are loaded and read here.
        </p>
      )}
      {account && !off && (
        <div className="bo-gift">
          <Lookup currency={currency} />
          <Load currency={currency} />
        </div>
      )}
    </section>
  );
}

function Lookup({ currency }: { currency: string }) {
  const [number, setNumber] = useState('');
  const [pin, setPin] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [found, setFound] = useState<Outcome | null>(null);
  const send = useSend();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setFound(null);
    const last4 = lastFour(number);
    try {
      const read = await send((c) => boCall(c, 'readGiftCard', { body: { card_number: number, ...(pin ? { pin } : {}) } }));
      setFound({
        last4,
        text: read.token
          ? `Card •••• ${last4}: ${money(read.balance, currency)} left, ${read.activated ? 'active' : 'not active yet (activate it below before it pays)'}.`
          : `No card •••• ${last4} is known here: nothing is on it. Check the number, or activate and load it below.`,
      });
      setNumber('');
      setPin('');
      setErrors({});
      setMessage(null);
    } catch (err) {
      const r = refusal(err, 'lookup_', currency);
      // The number stays to be corrected; a PIN is typed again.
      setPin('');
      setErrors(r.fields);
      setMessage(r.message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="card bo-stack" aria-label="Look up a balance" noValidate onSubmit={(e) => void submit(e)}>
      <h2>Look up a balance</h2>
      <Notice error={message} />
      {found && (
        <p role="status" className="notice ok" data-testid="gift-balance">
          {found.text}
        </p>
      )}
      <Field label="Card number" name="lookup_card_number" value={number} onChange={(v) => (setNumber(v), dropError(setErrors, 'lookup_card_number'))} errors={errors} required autoComplete="off" inputMode="numeric" hint="Scan or type it; it is cleared once read" />
      <Field label="PIN" name="lookup_pin" type="password" value={pin} onChange={(v) => (setPin(v), dropError(setErrors, 'lookup_pin'))} errors={errors} autoComplete="off" inputMode="numeric" hint="If the card has one" />
      <div className="bo-actions">
        <button type="submit" className="primary" disabled={busy || !number.trim()}>
          Look up
        </button>
      </div>
    </form>
  );
}

function Load({ currency }: { currency: string }) {
  const [number, setNumber] = useState('');
  const [pin, setPin] = useState('');
  const [amount, setAmount] = useState('');
  const [activate, setActivate] = useState(true);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [asking, setAsking] = useState(false);
  const [done, setDone] = useState<Outcome | null>(null);
  const send = useSend();
  useUnsavedGuard(number.trim() !== '' || amount.trim() !== '');
  const parsed = amount.trim() ? parseAmount(amount, currency) : null;
  const cents = parsed?.ok ? parsed.minor : 0;
  const last4 = lastFour(number);
  const ask = (e: FormEvent) => {
    e.preventDefault();
    setDone(null);
    if (parsed && !parsed.ok) {
      setErrors({ load_amount_cents: parsed.message });
      return;
    }
    if (!number.trim()) return;
    if (cents === 0 && !activate) {
      setErrors({ load_amount_cents: 'Type an amount to load, or tick Activate the card.' });
      return;
    }
    setAsking(true);
  };
  const run = async () => {
    setBusy(true);
    try {
      const loaded = await send((c) => boCall(c, 'loadGiftCard', { body: { card_number: number, ...(pin ? { pin } : {}), ...(cents > 0 ? { load_amount_cents: cents } : {}), ...(activate ? { activated: true } : {}) } }));
      setDone({
        last4,
        text: `${cents > 0 ? `Loaded ${money(cents, currency)} onto card •••• ${last4}` : `Card •••• ${last4} activated`}: ${money(loaded.balance, currency)} on it now, ${loaded.activated ? 'active' : 'not active'}.`,
      });
      setNumber('');
      setPin('');
      setAmount('');
      setErrors({});
      setMessage(null);
    } catch (err) {
      const r = refusal(err, '', currency);
      setPin('');
      setErrors(r.fields);
      setMessage(r.message);
    } finally {
      setBusy(false);
      setAsking(false);
    }
  };
  return (
    <form className="card bo-stack" aria-label="Activate or load a card" noValidate onSubmit={ask}>
      <h2>Activate or load a card</h2>
      <p className="muted small">A card not known yet is made on its first load, with the PIN typed (if any). Take the customer&apos;s payment for the amount first: the card then pays that much.</p>
      <Notice error={message} />
      {done && (
        <p role="status" className="notice ok" data-testid="gift-loaded">
          {done.text}
        </p>
      )}
      <Field label="Card number" name="card_number" value={number} onChange={(v) => (setNumber(v), dropError(setErrors, 'card_number'))} errors={errors} required autoComplete="off" inputMode="numeric" hint="Scan or type it; it is cleared once done" />
      <Field label="PIN" name="pin" type="password" value={pin} onChange={(v) => (setPin(v), dropError(setErrors, 'pin'))} errors={errors} autoComplete="off" inputMode="numeric" hint="The card's PIN if it has one; a new card gets the PIN typed" />
      <Field label="Amount to load" name="load_amount_cents" value={amount} onChange={(v) => (setAmount(v), dropError(setErrors, 'load_amount_cents'))} errors={errors} autoComplete="off" inputMode="decimal" hint={`e.g. ${amountInput(5000, currency)}; empty to only activate`} />
      <label className="bo-check">
        <input type="checkbox" checked={activate} onChange={(e) => setActivate(e.target.checked)} /> Activate the card (it pays only once active)
      </label>
      <div className="bo-actions">
        <button type="submit" className="primary" disabled={busy || !number.trim()}>
          {cents === 0 && activate && !amount.trim() ? 'Activate card' : 'Load card'}
        </button>
      </div>
      {asking && <LoadConfirm title={cents > 0 ? `Load ${money(cents, currency)} onto card •••• ${last4}${activate ? ' and activate it' : ''}?` : `Activate card •••• ${last4}?`} amount={cents > 0 ? money(cents, currency) : null} busy={busy} onCancel={() => setAsking(false)} onConfirm={() => void run()} />}
    </form>
  );
}

/** Asked before a card is loaded, stating the amount (a money move, as every other in the back office). */
function LoadConfirm({ title, amount, busy, onCancel, onConfirm }: { title: string; amount: string | null; busy: boolean; onCancel(): void; onConfirm(): void }) {
  return (
    <Confirm
      title={title}
      confirm={amount ? `Load ${amount}` : 'Activate'}
      busy={busy}
      onCancel={onCancel}
      onConfirm={onConfirm}
      body={<p>{amount ? `The card's balance goes up by ${amount}: the card holder can spend it at once.` : 'The card can then pay for what is on it.'}</p>}
    />
  );
}

/** A call with the signed-in user's credentials. */
function useSend() {
  const creds = useUser((s) => s.creds);
  return async <T,>(call: (c: NonNullable<typeof creds>) => Promise<T>): Promise<T> => {
    if (!creds) throw new ApiError(401, 'signed_out', 'Sign in again to go on.');
    return call(creds);
  };
}
