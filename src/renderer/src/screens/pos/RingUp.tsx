import { useEffect, useRef, useState, type FormEvent } from 'react';
import { usePos } from '../../state/pos';
import { useKeys } from '../../keys';
import { activityText, money, percentText, tenderStatusText } from '../../format';
import type { Sale } from '../../api/pos';
import { ConfirmDialog, LineDialog, OpenItemDialog, SearchDialog } from './ItemDialogs';
import { CardDialog, CashDialog, OtherDialog } from './Tender';
import { TenderAmount } from './TenderAmount';
import { SupervisorCode } from './SaleDetail';

function Key({ k }: { k: string }) {
  return <kbd>{k}</kbd>;
}

function LineNotes({ line, currency }: { line: Sale['lines'][number]; currency: string }) {
  const notes: string[] = [];
  if (line.quantity > 1) notes.push(`${line.quantity} × ${money(line.unit_price_cents, currency)}`);
  if (line.price_override) notes.push(`Price changed from ${money(line.price_override.list_price_cents, currency)}: ${line.price_override.reason}`);
  if (line.discount) notes.push(`${line.discount.percent !== null ? `${percentText(line.discount.percent)} off` : 'Discount'}${line.discount.reason ? ` (${line.discount.reason})` : ''}: −${money(line.discount_cents, currency)}`);
  if (line.open_price) notes.push('Open price');
  if (notes.length === 0) return null;
  return <div className="line-notes">{notes.join(' · ')}</div>;
}

export function Totals({ sale, currency }: { sale: Sale | null; currency: string }) {
  const t = sale?.totals;
  const zero = money(0, currency);
  return (
    <dl className="totals" data-testid="totals">
      <div>
        <dt>Subtotal</dt>
        <dd data-testid="subtotal">{t ? money(t.subtotal_cents, currency) : zero}</dd>
      </div>
      {t && t.discount_cents > 0 && (
        <div className="muted">
          <dt>of which discounts</dt>
          <dd>−{money(t.discount_cents, currency)}</dd>
        </div>
      )}
      {(sale?.taxes.length ? sale.taxes : []).map((tax) => (
        <div key={tax.tax_rate} className="tax">
          <dt>
            {tax.mark} Tax {percentText(tax.tax_rate)}
          </dt>
          <dd>{money(tax.tax_cents, currency)}</dd>
        </div>
      ))}
      {!sale?.taxes.length && (
        <div className="tax">
          <dt>Tax</dt>
          <dd>{zero}</dd>
        </div>
      )}
      <div className="total">
        <dt>Total</dt>
        <dd data-testid="total">{t ? money(t.total_cents, currency) : zero}</dd>
      </div>
      {t && t.paid_cents > 0 && (
        <div>
          <dt>Paid</dt>
          <dd data-testid="paid">{money(t.paid_cents, currency)}</dd>
        </div>
      )}
      {t && t.tip_cents > 0 && (
        <div>
          <dt>Tip (on top)</dt>
          <dd data-testid="tip">{money(t.tip_cents, currency)}</dd>
        </div>
      )}
      {t && t.paid_cents > 0 && (
        <div className="balance">
          <dt>Balance due</dt>
          <dd data-testid="balance">{money(t.balance_cents, currency)}</dd>
        </div>
      )}
    </dl>
  );
}

/** What the ring-up screen decides from the state: which line is chosen, what may be done now. */
function useRingUpState() {
  const { sale, selected, register, lanes, laneid, server } = usePos();
  const currency = register?.currency ?? 'usd';
  const live = sale?.lines.filter((l) => !l.voided) ?? [];
  const allowed = sale?.allowed;
  const lane = laneid ? lanes[laneid] : undefined;
  // Nothing can be paid while the server does not answer: the tenders say so rather than fail.
  const down = server === 'down';
  const can = (t: string) => !down && !!allowed?.tenders.includes(t as never);
  const edit = !down && allowed?.edit_lines !== false;
  const chosen = live.find((l) => l.line === selected) ?? live[live.length - 1];
  return { sale, selected, currency, live, allowed, lane, down, can, edit, chosen };
}

type RingUpState = ReturnType<typeof useRingUpState>;

/** The register's function keys, active while no dialog is open. */
function useRingUpKeys(v: RingUpState) {
  const { dialog, setDialog, select } = usePos();
  const { sale, selected, live, allowed, down, can, edit, chosen } = v;
  const move = (delta: number) => {
    if (live.length === 0) return;
    const i = live.findIndex((l) => l.line === selected);
    const next = live[Math.min(live.length - 1, Math.max(0, (i < 0 ? live.length : i) + delta))];
    select(next?.line ?? null);
  };
  useKeys(
    {
      F2: () => setDialog({ kind: 'search' }),
      F3: () => edit && setDialog({ kind: 'open-item' }),
      F4: () => can('cash') && setDialog({ kind: 'cash' }),
      F5: () => can('card') && setDialog({ kind: 'card' }),
      F6: () => (can('gift_card') || can('cheque') || can('other')) && setDialog({ kind: 'other' }),
      F7: () => chosen && edit && allowed?.edit_lines && setDialog({ kind: 'line', line: chosen.line }),
      F8: () => chosen && edit && allowed?.edit_lines && setDialog({ kind: 'void-line', line: chosen.line }),
      F9: () => sale && !down && allowed?.void && setDialog({ kind: 'void-sale' }),
      ArrowUp: () => move(-1),
      ArrowDown: () => move(1),
    },
    { active: !dialog },
  );
}

/**
 * The scan field. A scanner types faster than the engine answers: scans queue up and go in order,
 * none is lost. The next keystroke belongs to the field whenever no dialog is open.
 */
function ScanBar({ allowed }: { allowed: RingUpState['allowed'] }) {
  const { sale, dialog, scan, busy } = usePos();
  const [text, setText] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (!dialog && !busy) input.current?.focus();
  }, [dialog, busy, sale]);
  useKeys({ Escape: () => setText('') }, { active: !dialog });

  const queue = useRef<string[]>([]);
  const draining = useRef(false);
  const drain = async () => {
    if (draining.current) return;
    draining.current = true;
    const failed: Array<ReturnType<typeof usePos.getState>['notice']> = [];
    while (queue.current.length > 0) {
      const code = queue.current.shift()!;
      if (!(await scan(code))) failed.push(usePos.getState().notice);
    }
    draining.current = false;
    // The refused code is named in the notice, not put back in the field: the next scan must not be appended to it.
    const first = failed[0];
    if (first) usePos.getState().notify(first);
    input.current?.focus();
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const value = text.trim();
    if (!value) return;
    setText('');
    queue.current.push(value);
    void drain();
  };

  return (
    <form onSubmit={submit} className="scanbar">
      <input
        ref={input}
        aria-label="Scan or type a product code"
        placeholder={allowed && !allowed.edit_lines ? 'Payment started: take the rest of the payment, or void the sale (F9)' : 'Scan or type a code, then Enter (3*CODE for three)'}
        value={text}
        onChange={(e) => setText(e.target.value)}
        autoComplete="off"
        data-testid="scan"
        onBlur={() => {
          // Clicking elsewhere (not into a dialog) hands the focus straight back.
          setTimeout(() => {
            if (!usePos.getState().dialog && document.activeElement === document.body) input.current?.focus();
          }, 0);
        }}
      />
      <button type="submit" className="primary" disabled={!text.trim()}>
        Add <Key k="Enter" />
      </button>
    </form>
  );
}
export function RingUp() {
  const { sale, dialog } = usePos();
  const v = useRingUpState();
  useRingUpKeys(v);
  const { currency, allowed, lane } = v;

  return (
    <div className="ringup">
      <section className="sale-pane" aria-label="Sale">
        <ScanBar allowed={allowed} />
        {sale?.pending_tender && !dialog && (
          <p className="notice info" role="status" data-testid="pending-tender">
            A card payment is in progress on the terminal: <strong>{activityText(lane && lane.activity !== 'idle' ? lane.activity : 'waiting_for_card')}</strong> This screen updates when it ends.{' '}
            <button type="button" onClick={() => void usePos.getState().cancelCard()}>
              Cancel on the terminal
            </button>
          </p>
        )}
        <div className="sale-head">
          <span>{sale ? `Sale ${sale.number}` : 'New sale'}</span>
          {sale && <span className="muted">{sale.cashier.name}</span>}
        </div>
        <SaleLines v={v} />
        <LineActions v={v} />
      </section>
      <PayPane v={v} />
      <RingUpDialogs currency={currency} />
    </div>
  );
}

/** The sale's lines (voided ones struck through), or how to start one. */
function SaleLines({ v }: { v: RingUpState }) {
  const { sale, select } = usePos();
  const { chosen, currency } = v;
  const table = useRef<HTMLTableElement>(null);
  // The lines scroll in their pane: the one just scanned or chosen with the arrows is brought into view.
  useEffect(() => {
    const show = () => table.current?.querySelector('tr.selected')?.scrollIntoView({ block: 'nearest' });
    show();
    // A window made smaller (the till's screen rotated, a second display unplugged) shrinks the
    // pane: the chosen line is brought back into view then too.
    const pane = table.current?.parentElement;
    if (!pane || typeof ResizeObserver === 'undefined') return;
    const watch = new ResizeObserver(show);
    watch.observe(pane);
    return () => watch.disconnect();
  }, [chosen?.line, sale?.lines.length]);
  if (!sale || sale.lines.length === 0) {
    return (
      <div className="empty">
        <p>Scan an item to start a sale.</p>
        <p className="muted">
          <Key k="F2" /> search the catalog · <Key k="F3" /> open-price item · <Key k="F1" /> all keys
        </p>
      </div>
    );
  }
  return (
    <table className="lines" data-testid="lines" ref={table}>
      <thead>
        <tr>
          <th>#</th>
          <th>Item</th>
          <th className="num qty">Qty</th>
          <th className="num amount">Amount</th>
        </tr>
      </thead>
      <tbody>
        {sale.lines.map((l) => (
          <tr
            key={l.line}
            className={`${l.voided ? 'voided' : ''} ${chosen?.line === l.line ? 'selected' : ''}`}
            onClick={() => !l.voided && select(l.line)}
            aria-selected={chosen?.line === l.line}
          >
            <td className="muted">{l.line}</td>
            <td>
              {l.description}
              {l.voided ? <span className="pill offline">voided</span> : <LineNotes line={l} currency={currency} />}
            </td>
            <td className="num qty">{l.quantity}</td>
            <td className="num amount">
              {money(l.net_cents, currency)} <span className="muted">{l.tax_mark}</span>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function LineActions({ v }: { v: RingUpState }) {
  const { setDialog } = usePos();
  const { sale, chosen, edit, allowed, down } = v;
  return (
    <div className="line-actions">
      <button type="button" onClick={() => setDialog({ kind: 'search' })}>
        Search <Key k="F2" />
      </button>
      <button type="button" onClick={() => setDialog({ kind: 'open-item' })} disabled={!edit}>
        Open price <Key k="F3" />
      </button>
      <button type="button" onClick={() => chosen && setDialog({ kind: 'line', line: chosen.line })} disabled={!chosen || !edit || !allowed?.edit_lines}>
        Change line <Key k="F7" />
      </button>
      <button type="button" onClick={() => chosen && setDialog({ kind: 'void-line', line: chosen.line })} disabled={!chosen || !edit || !allowed?.edit_lines}>
        Void line <Key k="F8" />
      </button>
      <button type="button" className="danger" onClick={() => setDialog({ kind: 'void-sale' })} disabled={!sale || down || !allowed?.void}>
        Void sale <Key k="F9" />
      </button>
    </div>
  );
}

/** Totals, the tenders taken, and the tender buttons. */
function PayPane({ v }: { v: RingUpState }) {
  const { setDialog } = usePos();
  const { sale, currency, can, lane } = v;
  return (
    <aside className="pay-pane" aria-label="Payment">
      <Totals sale={sale} currency={currency} />
      {sale && sale.tenders.length > 0 && (
        <ul className="tenders" data-testid="tenders">
          {sale.tenders.map((t) => (
            <li key={t.id} className={t.status}>
              <span>{t.label}</span>
              <span className="muted">{tenderStatusText(t)}</span>
              <TenderAmount tender={t} currency={currency} />
            </li>
          ))}
        </ul>
      )}
      <div className="tender-buttons">
        <button type="button" className="tender big" onClick={() => setDialog({ kind: 'cash' })} disabled={!can('cash')}>
          Cash <Key k="F4" />
        </button>
        <button type="button" className="tender big" onClick={() => setDialog({ kind: 'card' })} disabled={!can('card')}>
          Card <Key k="F5" />
          {lane && lane.status !== 'connected' && <span className={`pill ${lane.status}`}>terminal {lane.status}</span>}
        </button>
        <button type="button" className="tender big" onClick={() => setDialog({ kind: 'other' })} disabled={!(can('gift_card') || can('cheque') || can('other'))}>
          Gift card, cheque, other <Key k="F6" />
        </button>
      </div>
    </aside>
  );
}

/** The dialog open on the sale, if any. */
function RingUpDialogs({ currency }: { currency: string }) {
  const { sale, dialog, voidLine, voidSale } = usePos();
  const [code, setCode] = useState('');
  const supervisorNeeded = usePos((s) => s.shift?.cashier.supervisor === false) && (sale?.totals.paid_cents ?? 0) > 0;
  const confirmVoid = () => {
    setCode('');
    void voidSale(code || undefined);
  };
  return (
    <>
      {dialog?.kind === 'search' && <SearchDialog />}
      {dialog?.kind === 'open-item' && <OpenItemDialog />}
      {dialog?.kind === 'line' && sale && <LineDialog sale={sale} line={dialog.line} />}
      {dialog?.kind === 'void-line' && sale && (
        <ConfirmDialog
          title={`Void line ${dialog.line}?`}
          text={`${sale.lines.find((l) => l.line === dialog.line)?.description ?? ''} comes off the sale.`}
          confirm="Void line"
          onConfirm={() => void voidLine(dialog.line)}
        />
      )}
      {dialog?.kind === 'void-sale' && sale && (
        <ConfirmDialog
          title={`Void sale ${sale.number}?`}
          text={sale.totals.paid_cents > 0 ? `Everything paid so far (${money(sale.totals.collected_cents, currency)}${sale.totals.tip_cents > 0 ? `, tip included` : ''}) goes back to where it came from.` : 'Every line comes off; nothing was paid.'}
          confirm="Void sale"
          danger
          onConfirm={confirmVoid}
        >
          {supervisorNeeded && <SupervisorCode approval={{ needed: true, code, setCode }} confirm={confirmVoid} />}
        </ConfirmDialog>
      )}
      {dialog?.kind === 'cash' && sale && <CashDialog sale={sale} currency={currency} />}
      {dialog?.kind === 'card' && sale && <CardDialog sale={sale} currency={currency} />}
      {dialog?.kind === 'other' && sale && <OtherDialog sale={sale} currency={currency} />}
    </>
  );
}
