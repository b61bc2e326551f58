import { useState, type FormEvent } from 'react';
import { usePos } from '../../state/pos';
import { useKeys } from '../../keys';
import { activityText, amountInput, cardOutcomeTitle, money, parseAmount, terminalDown } from '../../format';
import { cashFarAboveDue, cashSplit } from '../../../../shared/money';
import { MAX_TENDER_CENTS } from '../../../../shared/schemas/register-common';
import type { Sale } from '../../api/pos';
import { Modal } from './Modal';

function Due({ sale, currency }: { sale: Sale; currency: string }) {
  return (
    <p className="due">
      Balance due <strong data-testid="due">{money(sale.totals.balance_cents, currency)}</strong>
    </p>
  );
}

/** The cash typed, refused past what one tender takes (the server's limit, the same constant) before the drawer opens. */
function cashGiven(text: string, currency: string): ReturnType<typeof parseAmount> {
  const read = parseAmount(text, currency);
  return read.ok && read.minor > MAX_TENDER_CENTS ? { ok: false, problem: 'too_large', message: `Cash handed over is at most ${money(MAX_TENDER_CENTS, currency)}.` } : read;
}

/**
 * F4: the amount handed over (Enter on an empty field: the exact balance), read in the screen's
 * locale. Text that is not clearly an amount stays in the field with what is wrong; cash far above
 * what is due (the shared rule) is shown back to be confirmed before the drawer opens.
 */
export function CashDialog({ sale, currency }: { sale: Sale; currency: string }) {
  const { setDialog, tender, busy } = usePos();
  const [given, setGiven] = useState('');
  const [tried, setTried] = useState(false);
  const [confirming, setConfirming] = useState<number | null>(null);
  const parsed = cashGiven(given, currency);
  const due = sale.totals.balance_cents;
  const change = parsed.ok ? cashSplit(parsed.minor, due).change : 0;
  const showError = !parsed.ok && parsed.problem !== 'empty' && (tried || given.trim() !== '');

  const pay = (tendered: number | undefined, confirmed = false) => {
    if (busy) return;
    void tender({ type: 'cash', ...(tendered ? { tendered_cents: tendered } : {}), ...(confirmed ? { confirm_change: true } : {}) });
  };
  useKeys(confirming !== null ? { Escape: () => setConfirming(null), Enter: () => pay(confirming, true) } : { Escape: () => setDialog(null) }, { modal: true });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (!given.trim()) return pay(undefined);
    if (!parsed.ok) return;
    if (parsed.minor <= 0) return;
    if (cashFarAboveDue(parsed.minor, due, currency)) return setConfirming(parsed.minor);
    pay(parsed.minor);
  };

  if (confirming !== null) {
    return (
      <Modal title="Is this the cash handed over?" onClose={() => setConfirming(null)}>
        <p className="big-text" data-testid="cash-confirm">
          {money(confirming, currency)} given for {money(due, currency)} due: change of {money(confirming - due, currency)}.
        </p>
        <p className="muted">That is far more than the balance. Check the amount before the drawer opens.</p>
        <div className="row">
          <button type="button" className="big" onClick={() => setConfirming(null)} autoFocus>
            No, change the amount <kbd>Esc</kbd>
          </button>
          <button type="button" className="primary big" onClick={() => pay(confirming, true)} disabled={busy}>
            Yes, {money(confirming, currency)} <kbd>Enter</kbd>
          </button>
        </div>
      </Modal>
    );
  }

  return (
    <Modal title="Cash" onClose={() => setDialog(null)}>
      <Due sale={sale} currency={currency} />
      <form onSubmit={submit} className="form">
        <label>
          Amount given
          <input autoFocus inputMode="decimal" placeholder={`${amountInput(due, currency)} (exact)`} value={given} onChange={(e) => setGiven(e.target.value)} aria-invalid={showError} data-testid="cash-given" />
        </label>
        {showError && (
          <p className="error" role="alert" data-testid="cash-error">
            {parsed.message}
          </p>
        )}
        {/* What the amount typed does, before the drawer opens: the change to count out, or what is left to pay. */}
        {parsed.ok && parsed.minor > 0 && (
          <p className="big-text" aria-live="polite" data-testid="cash-preview">
            {change > 0
              ? `Change: ${money(change, currency)}`
              : parsed.minor < due
                ? `Pays part: ${money(due - parsed.minor, currency)} left to pay`
                : 'Exact amount: no change'}
          </p>
        )}
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
  const { setDialog, payCard, cancelCard, card, busy, laneid, lanes, server } = usePos();
  // Kept here, not in the confirm step: after a decline the amount typed is offered again.
  const [amountText, setAmountText] = useState(amountInput(sale.totals.balance_cents, currency));
  const [manual, setManual] = useState(false);
  const lane = laneid ? lanes[laneid] : undefined;
  const phase = card?.phase ?? 'confirm';
  const close = () => {
    usePos.setState({ card: null });
    setDialog(null);
  };
  // After a cancel, a decline or a timeout a card can be tried again; with the terminal offline the next step is another tender.
  const outcome = card?.outcome;
  const cardNow = !terminalDown(outcome?.code ?? null) && lane?.status !== 'offline' && server !== 'down';
  const cashOk = sale.allowed.tenders.includes('cash');
  const toCash = () => {
    usePos.setState({ card: null });
    setDialog({ kind: 'cash' });
  };

  useKeys(
    phase === 'waiting'
      ? { Escape: () => void cancelCard() }
      : phase === 'result'
        ? {
            Escape: close,
            Enter: () => {
              if (card?.outcome?.approved || sale.totals.balance_cents === 0) close();
              else if (cardNow) usePos.setState({ card: null });
              else if (cashOk) toCash();
              else close();
            },
            F4: () => cashOk && toCash(),
            F6: () => {
              usePos.setState({ card: null });
              setDialog({ kind: 'other' });
            },
          }
        : { Escape: close },
    { modal: true },
  );

  if (phase === 'confirm') {
    const entry = { amountText, setAmountText, manual, setManual };
    return <CardConfirm sale={sale} currency={currency} lane={lane} busy={busy} entry={entry} onPay={(amount) => void payCard(amount, manual)} close={close} />;
  }
  if (phase === 'waiting') return <CardWaiting card={card!} currency={currency} lane={lane} server={server} cancel={() => void cancelCard()} />;
  const other = () => (usePos.setState({ card: null }), setDialog({ kind: 'other' }));
  return <CardResult sale={sale} currency={currency} result={outcome!} next={{ cardNow, cashOk, server, close, toCash, other }} />;
}

type LaneState = ReturnType<typeof usePos.getState>['lanes'][string] | undefined;

/** The amount to charge (a split payment leaves the rest), keyed entry when allowed. */
function CardConfirm(props: {
  sale: Sale;
  currency: string;
  lane: LaneState;
  busy: boolean;
  entry: { amountText: string; setAmountText: (v: string) => void; manual: boolean; setManual: (v: boolean) => void };
  onPay: (amount: number) => void;
  close: () => void;
}) {
  const { sale, currency, lane, busy, close } = props;
  const { amountText, setAmountText, manual, setManual } = props.entry;
  const parsedAmount = parseAmount(amountText, currency);
  const amount = parsedAmount.ok ? parsedAmount.minor : undefined;
  const start = (e: FormEvent) => {
    e.preventDefault();
    if (amount === undefined || amount <= 0 || busy) return;
    props.onPay(amount);
  };
  return (
    <Modal title="Card payment" onClose={close}>
      <Due sale={sale} currency={currency} />
      <form onSubmit={start} className="form">
        <label>
          Amount on the card
          <input autoFocus inputMode="decimal" value={amountText} onChange={(e) => setAmountText(e.target.value)} onFocus={(e) => e.target.select()} data-testid="card-amount" />
        </label>
        {amount !== undefined && amount < sale.totals.balance_cents && amount > 0 && <p className="muted">Split payment: {money(sale.totals.balance_cents - amount, currency)} will be left to pay.</p>}
        {!parsedAmount.ok && (
          <p className="error" role="alert" data-testid="card-amount-error">
            {parsedAmount.message}
          </p>
        )}
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

/** The terminal's steps, live, while the customer pays. */
function CardWaiting({ card, currency, lane, server, cancel }: { card: NonNullable<ReturnType<typeof usePos.getState>['card']>; currency: string; lane: LaneState; server: string; cancel: () => void }) {
  const offline = lane?.status === 'offline';
  const activity = lane?.activity ?? 'waiting_for_card';
  const at = STEPS.indexOf(activity);
  return (
    <Modal title="Card payment">
      <div className="device" data-testid="device" aria-live="polite">
        <p className="device-amount">{money(card.amount_cents, currency)}</p>
        {card?.following && (
          <p className="muted" data-testid="device-following">
            {server === 'down'
              ? 'Laneway is not answering. The outcome of this payment shows here as soon as it answers: do not charge the card again.'
              : 'Following the payment in progress on the terminal: its outcome shows here.'}
          </p>
        )}
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
      <button type="button" className="big" onClick={cancel}>
        Cancel on the terminal <kbd>Esc</kbd>
      </button>
    </Modal>
  );
}

/** The outcome, and the next step: the rest of the sale, another card, cash or another tender. */
function CardResult(props: {
  sale: Sale;
  currency: string;
  result: NonNullable<NonNullable<ReturnType<typeof usePos.getState>['card']>['outcome']>;
  next: { cardNow: boolean; cashOk: boolean; server: string; close: () => void; toCash: () => void; other: () => void };
}) {
  const { sale, currency, result } = props;
  const { cardNow, cashOk, server, close, toCash } = props.next;
  return (
    <Modal title={cardOutcomeTitle(result)} onClose={close}>
      <p className={result.approved ? 'ok big-text' : 'error big-text'} role={result.approved ? 'status' : 'alert'} data-testid="card-outcome">
        {result.message}
      </p>
      {result.approved ? (
        <>
          <Due sale={sale} currency={currency} />
          {/* It closes the dialog: the rest is then taken with a tender key, as any balance. */}
          <button type="button" className="primary big" onClick={close} autoFocus data-testid="card-back">
            Back to the sale: {money(sale.totals.balance_cents, currency)} left to pay <kbd>Enter</kbd>
          </button>
        </>
      ) : (
        <div className="row wrap" data-testid="card-next">
          {cardNow ? (
            <button type="button" className="primary big" onClick={() => usePos.setState({ card: null })} autoFocus>
              Try a card again <kbd>Enter</kbd>
            </button>
          ) : (
            <p className="muted" data-testid="card-unavailable">
              {server === 'down' ? 'Card payments wait until Laneway answers.' : 'Card payments wait until the terminal is back.'}
            </p>
          )}
          <button type="button" className={`${!cardNow && cashOk ? 'primary ' : ''}big`} onClick={toCash} disabled={!cashOk} autoFocus={!cardNow && cashOk}>
            Cash <kbd>{!cardNow && cashOk ? 'Enter' : 'F4'}</kbd>
          </button>
          <button type="button" className="big" onClick={props.next.other}>
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
  const parsedAmount = parseAmount(amountText, currency);
  const amount = parsedAmount.ok ? parsedAmount.minor : undefined;
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
            <input inputMode="decimal" value={amountText} onChange={(e) => setAmountText(e.target.value)} placeholder={amountInput(sale.totals.balance_cents, currency)} data-testid="other-amount" />
          </label>
          {amountText.trim() !== '' && !parsedAmount.ok && (
            <p className="error" role="alert" data-testid="other-amount-error">
              {parsedAmount.message}
            </p>
          )}
          <button type="submit" className="primary big" disabled={busy}>
            Take {kind.label.toLowerCase()} <kbd>Enter</kbd>
          </button>
        </form>
      )}
    </Modal>
  );
}
