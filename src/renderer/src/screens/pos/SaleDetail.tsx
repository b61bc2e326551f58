import { useEffect, type Dispatch, type SetStateAction } from 'react';
import { usePos } from '../../state/pos';
import { money, percentText, typedDigits, typedNumber } from '../../format';
import type { ReversalOutcome, Sale } from '../../api/pos';
import { Modal } from './Modal';
import { TenderAmount } from './TenderAmount';

/** The open sale's lines with its totals; in refund mode, a quantity to give back per line. */
export function SaleLines(props: { sale: Sale; currency: string; refunding: boolean; qty: Record<number, string>; setQty: Dispatch<SetStateAction<Record<number, string>>> }) {
  const { sale, currency, qty, setQty } = props;
  const mode = props.refunding ? 'refund' : 'view';
  return (
    <table className="lines">
      <thead>
        <tr>
          <th>#</th>
          <th>Item</th>
          <th className="num">Sold</th>
          <th className="num">Returned</th>
          <th className="num amount">Amount</th>
          {mode === 'refund' && <th className="num">Refund</th>}
        </tr>
      </thead>
      <tbody>
        {sale.lines
          .filter((l) => !l.voided)
          .map((l, i) => (
            <tr key={l.line}>
              <td className="muted">{l.line}</td>
              <td>{l.description}</td>
              <td className="num">{l.quantity}</td>
              <td className="num">{l.returned_quantity || ''}</td>
              <td className="num amount">
                {money(l.net_cents, currency)} <span className="muted">{l.tax_mark}</span>
              </td>
              {mode === 'refund' && (
                <td className="num">
                  <input
                    className="qty"
                    aria-label={`Refund quantity of line ${l.line}`}
                    inputMode="numeric"
                    autoFocus={i === 0}
                    disabled={l.returned_quantity >= l.quantity}
                    value={qty[l.line] ?? ''}
                    placeholder="0"
                    onChange={(e) => setQty({ ...qty, [l.line]: typedNumber(e.target.value) })}
                  />
                  <span className="muted"> / {l.quantity - l.returned_quantity}</span>
                </td>
              )}
            </tr>
          ))}
      </tbody>
      <SaleLinesFoot sale={sale} currency={currency} refunding={props.refunding} />
    </table>
  );
}

/**
 * Subtotal, taxes by rate and total, under the lines: every row is its own table (.lines), so each
 * has the head's columns (with the refund column's room while refunding) and its amount stands in
 * the Amount column, inside the card.
 */
function SaleLinesFoot({ sale, currency, refunding }: { sale: Sale; currency: string; refunding: boolean }) {
  const rest = refunding ? <td className="num" /> : null;
  return (
    <tfoot>
      <tr>
        <td />
        <td>Subtotal</td>
        <td className="num" />
        <td className="num" />
        <td className="num amount" data-testid="detail-subtotal">
          {money(sale.totals.subtotal_cents, currency)}
        </td>
        {rest}
      </tr>
      {sale.taxes.map((t) => (
        <tr key={t.mark} className="muted">
          <td />
          <td>
            {t.mark} Tax {percentText(t.tax_rate)}
          </td>
          <td className="num" />
          <td className="num" />
          <td className="num amount">{money(t.tax_cents, currency)}</td>
          {rest}
        </tr>
      ))}
      <tr>
        <td />
        <td>
          <strong>Total</strong>
        </td>
        <td className="num" />
        <td className="num" />
        <td className="num amount">
          <strong>{money(sale.totals.total_cents, currency)}</strong>
        </td>
        {rest}
      </tr>
    </tfoot>
  );
}

/** The tenders that took money (declined and failed attempts left out). */
export function SaleTenders({ sale, currency }: { sale: Sale; currency: string }) {
  return (
    <ul className="tenders">
      {sale.tenders
        .filter((t) => t.status !== 'declined' && t.status !== 'failed')
        .map((t) => (
          <li key={t.id}>
            <span>{t.label}</span>
            <span className="muted">{t.refunded_cents > 0 ? `${money(t.refunded_cents, currency)} back` : ''}</span>
            <TenderAmount tender={t} currency={currency} />
          </li>
        ))}
    </ul>
  );
}

/** What can be done with a sale on view; with a refund left incomplete, how to settle it. */
export function SaleActions(props: { sale: Sale; currency: string; outstanding: number | null; reprint(): void; refund(): void; voidSale(): void; settle(method: 'retry' | 'cash'): void }) {
  const { sale, currency, outstanding, reprint, settle } = props;
  const incomplete = outstanding !== null;
  return (
    <div className="row wrap">
      <button type="button" className="big" onClick={reprint}>
        Reprint receipt <kbd>P</kbd>
      </button>
      <button type="button" className="big" onClick={props.refund} disabled={!sale.allowed.refund}>
        Refund items <kbd>F7</kbd>
      </button>
      <button type="button" className="big danger" onClick={props.voidSale} disabled={!sale.allowed.void}>
        Void sale <kbd>F9</kbd>
      </button>
      {incomplete && (
        <>
          <button type="button" className="big primary" onClick={() => void settle('cash')}>
            Give {money(outstanding ?? 0, currency)} in cash <kbd>F4</kbd>
          </button>
          <button type="button" className="big" onClick={() => void settle('retry')}>
            Retry <kbd>F5</kbd>
          </button>
        </>
      )}
    </div>
  );
}

export interface ApprovalField {
  needed: boolean;
  code: string;
  setCode(code: string): void;
}

/**
 * The engine's refusals of the code typed: shown beside the field, inside the dialog, since the
 * screen's own notice would stand behind the dialog's backdrop.
 */
export const APPROVAL_ERRORS: ReadonlySet<string> = new Set(['supervisor_required', 'supervisor_code_invalid']);

/** Where a supervisor types their code, when the cashier is not one (the engine checks it). */
export function SupervisorCode({ approval, confirm }: { approval: ApprovalField; confirm(): void }) {
  const notice = usePos((s) => s.notice);
  const refused = notice?.kind === 'error' && notice.code !== undefined && APPROVAL_ERRORS.has(notice.code) ? notice : null;
  // The refusal is about this dialog: once it closes, it is not shown on the screen behind.
  useEffect(
    () => () => {
      const now = usePos.getState().notice;
      if (now?.code !== undefined && APPROVAL_ERRORS.has(now.code)) usePos.getState().notify(null);
    },
    [],
  );
  if (!approval.needed) return null;
  return (
    <form className="field" onSubmit={(e) => (e.preventDefault(), confirm())}>
      <label htmlFor="approval-code">Supervisor code (money given back needs a supervisor)</label>
      <input
        id="approval-code"
        type="password"
        inputMode="numeric"
        autoComplete="off"
        maxLength={8}
        value={approval.code}
        onChange={(e) => approval.setCode(typedDigits(e.target.value))}
        aria-invalid={refused ? true : undefined}
        aria-describedby={refused ? 'approval-error' : undefined}
        autoFocus
      />
      {refused && (
        <p role="alert" id="approval-error" className="field-error" data-testid="approval-error">
          {refused.text}
          {/* A code sent is never kept on screen, a wrong one included: the cashier must know to type it again. */}
          {refused.code === 'supervisor_code_invalid' ? ' The code typed was cleared.' : ''}
        </p>
      )}
    </form>
  );
}

/** The refund as the engine planned it (a dry run), to confirm. */
export function RefundPlan({ plan, currency, confirm, close, approval }: { plan: ReversalOutcome; currency: string; confirm(): void; close(): void; approval: ApprovalField }) {
  return (
    <Modal title="Refund" onClose={close}>
      <p className="big-text" data-testid="refund-plan">
        {plan.message}
      </p>
      <SupervisorCode approval={approval} confirm={confirm} />
      <div className="row">
        <button type="button" className="primary big" onClick={confirm} autoFocus={!approval.needed}>
          Refund {money(plan.reversal?.amount_cents ?? 0, currency)} <kbd>Enter</kbd>
        </button>
        <button type="button" className="big" onClick={close}>
          Back <kbd>Esc</kbd>
        </button>
      </div>
    </Modal>
  );
}

/** Voiding the whole sale: every payment goes back. */
export function VoidSale({ sale, currency, confirm, close, approval }: { sale: Sale; currency: string; confirm(): void; close(): void; approval: ApprovalField }) {
  return (
    <Modal title={`Void sale ${sale.number}?`} onClose={close}>
      <p>
        Every payment of this sale goes back: {money(sale.totals.collected_cents, currency)}
        {sale.totals.tip_cents > 0 ? `, its ${money(sale.totals.tip_cents, currency)} tip included` : ''}.
      </p>
      {sale.totals.collected_cents > 0 && <SupervisorCode approval={approval} confirm={confirm} />}
      <div className="row">
        <button type="button" className="solid danger big" onClick={confirm} autoFocus={!approval.needed || sale.totals.collected_cents === 0}>
          Void sale <kbd>Enter</kbd>
        </button>
        <button type="button" className="big" onClick={close}>
          Keep it <kbd>Esc</kbd>
        </button>
      </div>
    </Modal>
  );
}
