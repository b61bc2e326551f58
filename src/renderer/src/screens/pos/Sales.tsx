import { useEffect, useRef, useState, type FormEvent } from 'react';
import { usePos } from '../../state/pos';
import { useKeys } from '../../keys';
import { money, time } from '../../format';
import type { Receipt, ReversalOutcome, Sale } from '../../api/pos';
import { ReceiptView } from './ReceiptView';
import { Modal } from './Modal';

const STATUS: Record<Sale['status'], string> = { open: 'Open', paid: 'Paid', voided: 'Voided', partially_refunded: 'Partly refunded', refunded: 'Refunded' };

/** Find a sale by its receipt number (or from the lane's recent ones): reprint, void, refund. */
export function Sales() {
  const { api, laneid, run, go, register } = usePos();
  const currency = register?.currency ?? 'usd';
  const [query, setQuery] = useState('');
  const [recent, setRecent] = useState<Sale[]>([]);
  const [sale, setSale] = useState<Sale | null>(null);
  const [mode, setMode] = useState<'view' | 'refund' | 'void'>('view');
  const [qty, setQty] = useState<Record<number, string>>({});
  const [plan, setPlan] = useState<ReversalOutcome | null>(null);
  const [result, setResult] = useState<{ outcome: ReversalOutcome; receipt: Receipt | null } | null>(null);
  const [receipt, setReceipt] = useState<Receipt | null>(null);
  const list = useRef<HTMLDivElement>(null);
  const find = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (api && laneid) void api.recentSales(laneid).then((r) => setRecent(r.sales)).catch(() => undefined);
  }, [api, laneid, sale]);

  const open = async (idOrNumber: string) => {
    const found = await run((a) => a.sale(idOrNumber));
    if (!found) return;
    setSale(found);
    setMode('view');
    setPlan(null);
    setResult(null);
    setQty({});
    // A refund's or void's own number opens its sale with that document's receipt.
    setReceipt(await run((a) => a.receipt(idOrNumber)) ?? null);
  };

  const back = () => {
    if (plan) return setPlan(null);
    if (mode !== 'view') return setMode('view');
    if (sale) {
      setSale(null);
      setResult(null);
      setQuery('');
      setTimeout(() => find.current?.focus(), 0);
      return;
    }
    go('sale');
  };

  const reprint = async () => {
    if (!sale) return;
    const copy = await run((a) => a.receipt(sale.id, { copy: true }));
    if (!copy) return;
    setReceipt(copy);
    setTimeout(() => window.print(), 50);
  };

  const refundLines = () =>
    Object.entries(qty)
      .map(([line, q]) => ({ line: Number(line), quantity: Number(q) }))
      .filter((l) => Number.isInteger(l.quantity) && l.quantity > 0);

  const preview = async () => {
    if (!sale) return;
    const lines = refundLines();
    if (lines.length === 0) return usePos.getState().notify({ kind: 'error', text: 'Choose what comes back: type a quantity on a line, or press F8 for everything.' });
    const out = await run((a, shift) => a.refund(sale.id, { shift: shift.id, lines, dry_run: true }));
    if (out) setPlan(out);
  };

  const settled = async (out: ReversalOutcome | undefined) => {
    if (!out) return;
    setPlan(null);
    setMode('view');
    setSale(out.sale);
    setQty({});
    const r = out.reversal ? ((await run((a) => a.receipt(out.sale.id, { reversal: out.reversal!.number }))) ?? null) : null;
    setResult({ outcome: out, receipt: r });
    usePos.getState().notify({ kind: out.reversal?.status === 'incomplete' ? 'error' : 'ok', text: out.message });
  };

  const confirmRefund = async () => {
    if (!sale || !plan) return;
    await settled(await run((a, shift) => a.refund(sale.id, { shift: shift.id, lines: refundLines() }), { movesMoney: true }));
  };
  const confirmVoid = async () => {
    if (!sale) return;
    await settled(await run((a, shift) => a.voidSale(sale.id, shift.id), { movesMoney: true }));
  };
  const settle = async (method: 'retry' | 'cash') => {
    const r = result?.outcome.reversal;
    if (!sale || !r) return;
    await settled(await run((a, shift) => a.settle(sale.id, r.number, shift.id, method), { movesMoney: true }));
  };
  const all = () => {
    if (!sale) return;
    setQty(Object.fromEntries(sale.lines.filter((l) => !l.voided && l.quantity > l.returned_quantity).map((l) => [l.line, String(l.quantity - l.returned_quantity)])));
  };

  const incomplete = result?.outcome.reversal?.status === 'incomplete';
  useKeys(
    plan
      ? { Enter: () => void confirmRefund(), Escape: back }
      : mode === 'void'
        ? { Enter: () => void confirmVoid(), Escape: back }
        : mode === 'refund'
          ? { F8: all, Escape: back }
          : sale
            ? {
                Escape: back,
                p: () => void reprint(),
                P: () => void reprint(),
                F7: () => sale.allowed.refund && setMode('refund'),
                F9: () => sale.allowed.void && setMode('void'),
                ...(incomplete ? { F4: () => void settle('cash'), F5: () => void settle('retry') } : {}),
              }
            : {
                Escape: back,
                ArrowDown: () => {
                  const buttons = [...(list.current?.querySelectorAll('button') ?? [])];
                  const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
                  buttons[Math.min(buttons.length - 1, i + 1)]?.focus();
                },
                ArrowUp: () => {
                  const buttons = [...(list.current?.querySelectorAll('button') ?? [])];
                  const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
                  if (i <= 0) find.current?.focus();
                  else buttons[i - 1]?.focus();
                },
              },
  );

  const submitFind = (e: FormEvent) => {
    e.preventDefault();
    if (query.trim()) void open(query.trim());
  };

  if (!sale) {
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
              <button key={s.id} type="button" className="recent-sale" onClick={() => void open(s.id)}>
                <span>{s.number}</span>
                <span className="muted">{time(s.at)}</span>
                <span className={`pill ${s.status}`}>{STATUS[s.status]}</span>
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

  return (
    <div className="sales detail">
      <section className="card">
        <div className="row-between">
          <h2 className="page-title">
            Sale {sale.number} <span className={`pill ${sale.status}`}>{STATUS[sale.status]}</span>
          </h2>
          <button type="button" onClick={back}>
            Back <kbd>Esc</kbd>
          </button>
        </div>
        <p className="muted">
          {time(sale.at)} · {sale.cashier.name} · lane {sale.laneid}
        </p>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (mode === 'refund') void preview();
          }}
        >
          <table className="lines">
            <thead>
              <tr>
                <th>#</th>
                <th>Item</th>
                <th className="num">Sold</th>
                <th className="num">Returned</th>
                <th className="num">Amount</th>
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
                    <td className="num">
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
                          onChange={(e) => setQty({ ...qty, [l.line]: e.target.value.replace(/[^0-9]/g, '') })}
                        />
                        <span className="muted"> / {l.quantity - l.returned_quantity}</span>
                      </td>
                    )}
                  </tr>
                ))}
            </tbody>
            <tfoot>
              <tr>
                <td />
                <td>Subtotal</td>
                <td />
                <td />
                <td className="num" data-testid="detail-subtotal">
                  {money(sale.totals.subtotal_cents, currency)}
                </td>
              </tr>
              {sale.taxes.map((t) => (
                <tr key={t.mark} className="muted">
                  <td />
                  <td>
                    {t.mark} Tax {t.tax_rate}%
                  </td>
                  <td />
                  <td />
                  <td className="num">{money(t.tax_cents, currency)}</td>
                </tr>
              ))}
              <tr>
                <td />
                <td>
                  <strong>Total</strong>
                </td>
                <td />
                <td />
                <td className="num">
                  <strong>{money(sale.totals.total_cents, currency)}</strong>
                </td>
              </tr>
            </tfoot>
          </table>
          {mode === 'refund' && (
            <div className="row">
              <button type="button" onClick={all}>
                Everything <kbd>F8</kbd>
              </button>
              <button type="submit" className="primary big">
                Show the refund <kbd>Enter</kbd>
              </button>
              <button type="button" onClick={back}>
                Cancel <kbd>Esc</kbd>
              </button>
            </div>
          )}
        </form>
        <ul className="tenders">
          {sale.tenders
            .filter((t) => t.status !== 'declined' && t.status !== 'failed')
            .map((t) => (
              <li key={t.id}>
                <span>{t.label}</span>
                <span className="muted">{t.refunded_cents > 0 ? `${money(t.refunded_cents, currency)} back` : ''}</span>
                <span className="num">
                  {money(t.amount_cents, currency)}
                  {t.tip_cents > 0 && <span className="muted"> + tip {money(t.tip_cents, currency)}</span>}
                </span>
              </li>
            ))}
        </ul>
        {mode === 'view' && (
          <div className="row wrap">
            <button type="button" className="big" onClick={() => void reprint()}>
              Reprint receipt <kbd>P</kbd>
            </button>
            <button type="button" className="big" onClick={() => setMode('refund')} disabled={!sale.allowed.refund}>
              Refund items <kbd>F7</kbd>
            </button>
            <button type="button" className="big danger" onClick={() => setMode('void')} disabled={!sale.allowed.void}>
              Void sale <kbd>F9</kbd>
            </button>
            {incomplete && (
              <>
                <button type="button" className="big primary" onClick={() => void settle('cash')}>
                  Give {money(result!.outcome.reversal!.outstanding_cents, currency)} in cash <kbd>F4</kbd>
                </button>
                <button type="button" className="big" onClick={() => void settle('retry')}>
                  Retry <kbd>F5</kbd>
                </button>
              </>
            )}
          </div>
        )}
      </section>
      {(result?.receipt ?? receipt) && <ReceiptView receipt={(result?.receipt ?? receipt)!} />}
      {plan && (
        <Modal title="Refund" onClose={() => setPlan(null)}>
          <p className="big-text" data-testid="refund-plan">
            {plan.message}
          </p>
          <div className="row">
            <button type="button" className="primary big" onClick={() => void confirmRefund()} autoFocus>
              Refund {money(plan.reversal?.amount_cents ?? 0, currency)} <kbd>Enter</kbd>
            </button>
            <button type="button" className="big" onClick={() => setPlan(null)}>
              Back <kbd>Esc</kbd>
            </button>
          </div>
        </Modal>
      )}
      {mode === 'void' && (
        <Modal title={`Void sale ${sale.number}?`} onClose={() => setMode('view')}>
          <p>
            Every payment of this sale goes back: {money(sale.totals.collected_cents, currency)}
            {sale.totals.tip_cents > 0 ? `, its ${money(sale.totals.tip_cents, currency)} tip included` : ''}.
          </p>
          <div className="row">
            <button type="button" className="solid danger big" onClick={() => void confirmVoid()} autoFocus>
              Void sale <kbd>Enter</kbd>
            </button>
            <button type="button" className="big" onClick={() => setMode('view')}>
              Keep it <kbd>Esc</kbd>
            </button>
          </div>
        </Modal>
      )}
    </div>
  );
}
