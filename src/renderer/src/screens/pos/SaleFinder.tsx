import type { FormEvent, RefObject } from 'react';
import { money, time } from '../../format';
import type { Sale } from '../../api/pos';
import { SALE_STATUS } from './sale-status';

/** The sales screen before a sale is open: the receipt-number field and the lane's recent sales. */
export function SaleFinder(props: {
  query: string;
  setQuery(query: string): void;
  recent: Sale[];
  currency: string;
  open(idOrNumber: string): void;
  find: RefObject<HTMLInputElement | null>;
  list: RefObject<HTMLDivElement | null>;
}) {
  const { query, setQuery, recent, currency, open, find, list } = props;
  const submitFind = (e: FormEvent) => {
    e.preventDefault();
    if (query.trim()) open(query.trim());
  };
  return (
    <div className="sales">
      <section className="card">
        <h2 className="page-title">Find a sale</h2>
        <form onSubmit={submitFind} className="scanbar">
          <input ref={find} autoFocus onFocus={(e) => e.target.select()} aria-label="Receipt number" placeholder="Receipt number, e.g. 1-000042 or a refund's 1-R000001 (scan or type), then Enter" value={query} onChange={(e) => setQuery(e.target.value)} data-testid="find" />
          <button type="submit" className="primary">
            Find <kbd>Enter</kbd>
          </button>
        </form>
        <h3>Recent sales on this lane</h3>
        <div ref={list} className="recent">
          {recent.map((s) => (
            <button key={s.id} type="button" className="recent-sale" onClick={() => open(s.id)}>
              <span>{s.number}</span>
              <span className="muted">{time(s.at)}</span>
              <span className={`pill ${s.status}`}>{SALE_STATUS[s.status]}</span>
              <span className="num">{money(s.totals.total_cents, currency)}</span>
            </button>
          ))}
          {recent.length === 0 && <p className="muted">No sales yet on this lane.</p>}
        </div>
        <p className="muted">
          <kbd>↓</kbd> into the list · <kbd>Enter</kbd> open · <kbd>Esc</kbd> back to the register
        </p>
      </section>
    </div>
  );
}
