import { useState, type FormEvent } from 'react';
import { usePos } from '../../state/pos';
import { useKeys } from '../../keys';
import { activityText, money, parseAmount } from '../../format';
import type { Sale } from '../../api/pos';
import { Modal } from './Modal';

function Due({ sale, currency }: { sale: Sale; currency: string }) {
  return (
    <p className="due">
      Balance due <strong data-testid="due">{money(sale.totals.balance_cents, currency)}</strong>
    </p>
  );
}

/** F4: the amount handed over (Enter on an empty field: the exact balance). */
export function CashDialog({ sale, currency }: { sale: Sale; currency: string }) {
  const { setDialog, tender, busy } = usePos();
  const [given, setGiven] = useState('');
  const amount = parseAmount(given);
  useKeys({ Escape: () => setDialog(null) }, { modal: true });

  const pay = (tendered: number | undefined) => {
    if (busy) return;
    void tender({ type: 'cash', ...(tendered ? { tendered_cents: tendered } : {}) });
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (given.trim() && amount === undefined) return;
    pay(given.trim() ? amount : undefined);
  };
  return (
    <Modal title="Cash" onClose={() => setDialog(null)}>
      <Due sale={sale} currency={currency} />
      <form onSubmit={submit} className="form">
        <label>
          Amount given
          <input autoFocus inputMode="decimal" placeholder={`${(sale.totals.balance_cents / 100).toFixed(2)} (exact)`} value={given} onChange={(e) => setGiven(e.target.value)} aria-invalid={given !== '' && amount === undefined} data-testid="cash-given" />
        </label>
        {given !== '' && amount === undefined && <p className="error">Type an amount such as 20 or 20.00.</p>}
        <div className="quick">
          {sale.allowed.cash_suggestions.map((c) => (
            <button key={c} type="button" className="big" onClick={() => pay(c)} disabled={busy}>
              {money(c, currency)}
            </button>
          ))}
        </div>
        <button type="submit" className="primary big" disabled={busy}>
          Take cash <kbd>Enter</kbd>
        </button>
      </form>
      <p className="muted">The drawer opens when the cash is taken. Less than the balance pays part of it.</p>
    </Modal>
  );
}

const STEPS = ['waiting_for_card', 'reading', 'pin', 'authorizing', 'signature', 'result'];

/** F5: the customer pays on the lane's terminal; the screen follows the device live. */
export function CardDialog({ sale, currency }: { sale: Sale; currency: string }) {
  const { setDialog, payCard, cancelCard, card, busy, laneid, lanes } = usePos();
  const [amountText, setAmountText] = useState((sale.totals.balance_cents / 100).toFixed(2));
  const [manual, setManual] = useState(false);
  const amount = parseAmount(amountText);
  const lane = laneid ? lanes[laneid] : undefined;
  const phase = card?.phase ?? 'confirm';
  const close = () => {
    usePos.setState({ card: null });
    setDialog(null);
  };

  useKeys(
    phase === 'waiting'
      ? { Escape: () => void cancelCard() }
      : phase === 'result'
        ? {
            Escape: close,
            Enter: () => {
              if (card?.outcome?.approved || sale.totals.balance_cents === 0) close();
              else usePos.setState({ card: null });
            },
            F4: () => {
              usePos.setState({ card: null });
              setDialog({ kind: 'cash' });
            },
            F6: () => {
              usePos.setState({ card: null });
              setDialog({ kind: 'other' });
            },
          }
        : { Escape: close },
    { modal: true },
  );

  const start = (e: FormEvent) => {
    e.preventDefault();
    if (amount === undefined || amount <= 0 || busy) return;
    void payCard(amount, manual);
  };

  if (phase === 'confirm') {
    return (
      <Modal title="Card payment" onClose={close}>
        <Due sale={sale} currency={currency} />
        <form onSubmit={start} className="form">
          <label>
            Amount on the card
            <input autoFocus inputMode="decimal" value={amountText} onChange={(e) => setAmountText(e.target.value)} onFocus={(e) => e.target.select()} data-testid="card-amount" />
          </label>
          {amount !== undefined && amount < sale.totals.balance_cents && amount > 0 && <p className="muted">Split payment: {money(sale.totals.balance_cents - amount, currency)} will be left to pay.</p>}
          {amountText !== '' && amount === undefined && <p className="error">Type an amount such as 12.50.</p>}
          {sale.allowed.card_manual_entry && (
            <label className="check">
              <input type="checkbox" checked={manual} onChange={(e) => setManual(e.target.checked)} /> Allow keyed entry on the terminal (card cannot be read)
            </label>
          )}
          {lane && lane.status === 'offline' && (
            <p className="error" role="alert">
              The terminal on {lane.name} is offline{lane.last_error ? ` (${lane.last_error})` : ''}. Check its cable and power, or take another tender.
            </p>
          )}
          <button type="submit" className="primary big" disabled={busy || amount === undefined || amount <= 0}>
            Send to the terminal <kbd>Enter</kbd>
          </button>
        </form>
      </Modal>
    );
  }

  if (phase === 'waiting') {
    const offline = lane?.status === 'offline';
    const activity = lane?.activity ?? 'waiting_for_card';
    const at = STEPS.indexOf(activity);
    return (
      <Modal title="Card payment">
        <div className="device" data-testid="device" aria-live="polite">
          <p className="device-amount">{money(card!.amount_cents, currency)}</p>
          {offline ? (
            <p className="error" role="alert" data-testid="device-offline">
              The terminal went offline{lane?.last_error ? ` (${lane.last_error})` : ''}. Waiting a few seconds for it to come back… Nothing has been charged.
            </p>
          ) : (
            <p className="device-step" data-testid="device-step">
              {activityText(activity === 'idle' ? 'waiting_for_card' : activity)}
            </p>
          )}
          <ol className="steps">
            {['Card', 'Reading', 'PIN', 'Authorizing', 'Signature', 'Done'].map((s, i) => (
              <li key={s} className={i < at ? 'past' : i === at ? 'now' : ''}>
                {s}
              </li>
            ))}
          </ol>
        </div>
        <button type="button" className="big" onClick={() => void cancelCard()}>
          Cancel on the terminal <kbd>Esc</kbd>
        </button>
      </Modal>
    );
  }

  const outcome = card!.outcome!;
  return (
    <Modal title={outcome.approved ? 'Card approved' : 'Card not approved'} onClose={close}>
      <p className={outcome.approved ? 'ok big-text' : 'error big-text'} role={outcome.approved ? 'status' : 'alert'} data-testid="card-outcome">
        {outcome.message}
      </p>
      {outcome.approved ? (
        <>
          <Due sale={sale} currency={currency} />
          <button type="button" className="primary big" onClick={close} autoFocus>
            Take the rest <kbd>Enter</kbd>
          </button>
        </>
      ) : (
        <div className="row wrap">
          <button type="button" className="primary big" onClick={() => usePos.setState({ card: null })}>
            Try a card again <kbd>Enter</kbd>
          </button>
          <button type="button" className="big" onClick={() => (usePos.setState({ card: null }), setDialog({ kind: 'cash' }))} disabled={!sale.allowed.tenders.includes('cash')}>
            Cash <kbd>F4</kbd>
          </button>
          <button type="button" className="big" onClick={() => (usePos.setState({ card: null }), setDialog({ kind: 'other' }))}>
            Other tender <kbd>F6</kbd>
          </button>
          <button type="button" className="big" onClick={close}>
            Back to the sale <kbd>Esc</kbd>
          </button>
        </div>
      )}
    </Modal>
  );
}

type OtherKind = { type: 'gift_card' } | { type: 'cheque' } | { type: 'other'; name: string };

/** F6: gift card, cheque, or one of the shop's other tenders. */
export function OtherDialog({ sale, currency }: { sale: Sale; currency: string }) {
  const { setDialog, tender, busy } = usePos();
  const choices: Array<OtherKind & { label: string }> = [
    ...(sale.allowed.tenders.includes('gift_card') ? [{ type: 'gift_card' as const, label: 'Gift card' }] : []),
    ...(sale.allowed.tenders.includes('cheque') ? [{ type: 'cheque' as const, label: 'Cheque' }] : []),
    ...sale.allowed.other_tenders.map((name) => ({ type: 'other' as const, name, label: name })),
  ];
  const [kind, setKind] = useState<(OtherKind & { label: string }) | null>(choices.length === 1 ? choices[0]! : null);
  const [number, setNumber] = useState('');
  const [pin, setPin] = useState('');
  const [amountText, setAmountText] = useState('');
  const amount = amountText.trim() ? parseAmount(amountText) : undefined;
  const keys = kind ? {} : Object.fromEntries(choices.map((c, i) => [String(i + 1), () => setKind(c)]));
  useKeys({ ...keys, Escape: () => (kind && choices.length > 1 ? setKind(null) : setDialog(null)) }, { modal: true });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!kind || busy || (amountText.trim() && amount === undefined)) return;
    const base = amount ? { amount_cents: amount } : {};
    if (kind.type === 'gift_card') {
      if (!number.trim()) return;
      void tender({ type: 'gift_card', gift_card: { card_number: number.trim(), ...(pin ? { pin } : {}) }, ...base });
    } else if (kind.type === 'cheque') {
      if (!number.trim()) return;
      void tender({ type: 'cheque', reference: number.trim(), ...base });
    } else {
      void tender({ type: 'other', name: kind.name, ...(number.trim() ? { reference: number.trim() } : {}), ...base });
    }
  };

  return (
    <Modal title={kind ? kind.label : 'Other tender'} onClose={() => setDialog(null)}>
      <Due sale={sale} currency={currency} />
      {!kind ? (
        <div className="menu">
          {choices.map((c, i) => (
            <button key={c.label} type="button" className="big" onClick={() => setKind(c)} autoFocus={i === 0}>
              <kbd>{i + 1}</kbd> {c.label}
            </button>
          ))}
        </div>
      ) : (
        <form onSubmit={submit} className="form">
          {kind.type !== 'other' && (
            <label>
              {kind.type === 'gift_card' ? 'Gift card number (scan or type)' : 'Cheque number'}
              <input autoFocus autoComplete="off" inputMode="numeric" value={number} onChange={(e) => setNumber(e.target.value)} data-testid="other-number" />
            </label>
          )}
          {kind.type === 'gift_card' && (
            <label>
              PIN (if the card has one)
              <input type="password" inputMode="numeric" autoComplete="off" value={pin} onChange={(e) => setPin(e.target.value)} maxLength={12} />
            </label>
          )}
          {kind.type === 'other' && (
            <label>
              Reference (optional)
              <input autoFocus autoComplete="off" value={number} onChange={(e) => setNumber(e.target.value)} maxLength={40} />
            </label>
          )}
          <label>
            Amount {kind.type === 'gift_card' ? '(empty: the balance due, at most what the card holds)' : '(empty: the balance due)'}
            <input inputMode="decimal" value={amountText} onChange={(e) => setAmountText(e.target.value)} placeholder={(sale.totals.balance_cents / 100).toFixed(2)} data-testid="other-amount" />
          </label>
          {amountText.trim() !== '' && amount === undefined && <p className="error">Type an amount such as 12.50.</p>}
          <button type="submit" className="primary big" disabled={busy}>
            Take {kind.label.toLowerCase()} <kbd>Enter</kbd>
          </button>
        </form>
      )}
    </Modal>
  );
}
