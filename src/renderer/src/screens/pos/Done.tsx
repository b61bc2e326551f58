import { usePos } from '../../state/pos';
import { useKeys } from '../../keys';
import { money } from '../../format';
import { ReceiptView } from './ReceiptView';

/** After a sale is paid (or voided): what to hand over, the receipt, and the next sale. */
export function Done() {
  const { done, newSale, register } = usePos();
  useKeys({ Enter: newSale, Escape: newSale, p: () => window.print(), P: () => window.print() });
  if (!done) return null;
  const currency = register?.currency ?? 'usd';
  const change = done.receipt.kind === 'sale' ? done.receipt.change_cents : 0;
  return (
    <div className="done">
      <section className="done-side">
        {change > 0 ? (
          <p className="change" data-testid="change">
            Change due <strong>{money(change, currency)}</strong>
          </p>
        ) : (
          <p className="change" data-testid="done-paid">
            {done.receipt.kind === 'sale' ? (done.receipt.tip_cents ? 'Paid with tip' : 'Paid') : done.receipt.kind === 'void' ? 'Voided: back to the customer' : 'Refunded: back to the customer'}{' '}
            <strong>{money(Math.abs(done.receipt.paid_cents), currency)}</strong>
            {done.receipt.tip_cents !== 0 && <span className="muted"> (of which tip {money(Math.abs(done.receipt.tip_cents), currency)})</span>}
          </p>
        )}
        <p className="notice ok" data-testid="done-message">
          {done.message}
        </p>
        <button type="button" className="primary big" onClick={newSale} autoFocus>
          Next sale <kbd>Enter</kbd>
        </button>
        <button type="button" className="big" onClick={() => window.print()}>
          Print receipt <kbd>P</kbd>
        </button>
      </section>
      <ReceiptView receipt={done.receipt} />
    </div>
  );
}
