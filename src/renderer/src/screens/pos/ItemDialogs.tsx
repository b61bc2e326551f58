import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { usePos } from '../../state/pos';
import { useKeys } from '../../keys';
import { amountInput, money, parseAmount, parsePercent, parseWholeNumber, percentInput, percentText, typedNumber } from '../../format';
import type { LineChange, Product, Sale } from '../../api/pos';
import { Modal } from './Modal';
import { MAX_PRICE_CENTS } from '../../../../shared/schemas/register-common';

/** Refused here before it is sent, past the server's own limit (the same constant), in money as the screen writes it. */
const priceLimit = (what: 'A price' | 'A discount', minor: number, currency: string): string | null =>
  minor > MAX_PRICE_CENTS ? `${what} is at most ${money(MAX_PRICE_CENTS, currency)}.` : null;

/** F2: words → matching products; arrows choose, Enter adds. */
export function SearchDialog() {
  const { api, setDialog, scan, register } = usePos();
  const [q, setQ] = useState('');
  const [results, setResults] = useState<Product[]>([]);
  const [index, setIndex] = useState(0);
  const currency = register?.currency ?? 'usd';

  useEffect(() => {
    if (!api) return;
    let stale = false;
    const timer = setTimeout(() => {
      void api.products(q).then((r) => {
        if (!stale) {
          setResults(r.products);
          setIndex(0);
        }
      });
    }, 120);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [api, q]);

  const add = async (p: Product | undefined) => {
    if (!p) return;
    if (await scan(p.code)) setDialog(null);
  };
  useKeys(
    {
      Escape: () => setDialog(null),
      ArrowDown: () => setIndex((i) => Math.min(results.length - 1, i + 1)),
      ArrowUp: () => setIndex((i) => Math.max(0, i - 1)),
    },
    { modal: true },
  );

  return (
    <Modal title="Search the catalog" onClose={() => setDialog(null)} wide>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void add(results[index]);
        }}
      >
        <input autoFocus aria-label="Search words" placeholder="Words from the name, code or category" value={q} onChange={(e) => setQ(e.target.value)} />
      </form>
      <ul className="results" role="listbox" aria-label="Products">
        {results.map((p, i) => (
          <li key={p.code} role="option" aria-selected={i === index} className={i === index ? 'selected' : ''} onMouseDown={() => void add(p)}>
            <span>{p.description}</span>
            <span className="muted">
              {p.code} · {p.category} · tax {percentText(p.tax_rate)}
            </span>
            <span className="num">{money(p.price_cents, currency)}</span>
          </li>
        ))}
        {results.length === 0 && <li className="muted">No product matches. Check the words, or sell it as an open-price item (F3).</li>}
      </ul>
      <p className="muted">
        <kbd>↑</kbd> <kbd>↓</kbd> choose · <kbd>Enter</kbd> add · <kbd>Esc</kbd> close
      </p>
    </Modal>
  );
}

/** F3: an item that is not in the catalog, priced here. */
export function OpenItemDialog() {
  const { setDialog, addOpen, busy, register } = usePos();
  const currency = register?.currency ?? 'usd';
  const [description, setDescription] = useState('');
  const [price, setPrice] = useState('');
  const [taxFree, setTaxFree] = useState(false);
  const parsed = parseAmount(price, currency);
  const tooMuch = parsed.ok ? priceLimit('A price', parsed.minor, currency) : null;
  const amount = parsed.ok && !tooMuch ? parsed.minor : undefined;
  useKeys({ Escape: () => setDialog(null) }, { modal: true });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!description.trim() || amount === undefined) return;
    void addOpen(description.trim(), amount, taxFree ? 0 : undefined);
  };
  return (
    <Modal title="Open-price item" onClose={() => setDialog(null)}>
      <form onSubmit={submit} className="form">
        <label>
          Description
          <input autoFocus value={description} onChange={(e) => setDescription(e.target.value)} maxLength={120} />
        </label>
        <label>
          Price before tax
          <input inputMode="decimal" value={price} onChange={(e) => setPrice(e.target.value)} aria-invalid={price !== '' && amount === undefined} />
        </label>
        {price !== '' && (!parsed.ok || tooMuch) && (
          <p className="error" role="alert" data-testid="amount-error">
            {parsed.ok ? tooMuch : parsed.message}
          </p>
        )}
        <label className="check">
          <input type="checkbox" checked={taxFree} onChange={(e) => setTaxFree(e.target.checked)} /> No tax on this item (otherwise the register's standard rate)
        </label>
        <button type="submit" className="primary big" disabled={busy || !description.trim() || amount === undefined}>
          Add item <kbd>Enter</kbd>
        </button>
      </form>
    </Modal>
  );
}

const REASONS = ['Price match', 'Damaged', 'Manager approval', 'Wrong shelf price'];

/** The change the line dialog's fields ask for (only what differs from the line), or what is wrong with them. */
function lineChangeOf(
  l: Sale['lines'][number],
  form: { quantity: string; discountKind: 'none' | 'percent' | 'amount'; discount: string; discountReason: string; price: string; reason: string },
  currency: string,
): { body: LineChange } | { error: string } {
  const { discountKind, discount, discountReason, price, reason } = form;
  const body: LineChange = {};
  const q = parseWholeNumber(form.quantity);
  if (q === null || q < 1 || q > 999) return { error: 'Quantity is a whole number from 1 to 999.' };
  if (q !== l.quantity) body.quantity = q;
  if (discountKind === 'none') {
    if (l.discount) body.discount = null;
  } else if (discountKind === 'percent') {
    const parsedPercent = parsePercent(discount);
    if (!parsedPercent.ok) return { error: `Discount: ${parsedPercent.message}` };
    const p = parsedPercent.percent;
    if (!(p > 0 && p <= 100)) return { error: 'A percentage above 0 and at most 100.' };
    body.discount = { percent: p, ...(discountReason.trim() ? { reason: discountReason.trim() } : {}) };
  } else {
    const a = parseAmount(discount, currency);
    if (!a.ok || a.minor <= 0) return { error: a.ok ? 'The discount must be more than zero.' : `Discount: ${a.message}` };
    const tooMuch = priceLimit('A discount', a.minor, currency);
    if (tooMuch) return { error: tooMuch };
    body.discount = { amount_cents: a.minor, ...(discountReason.trim() ? { reason: discountReason.trim() } : {}) };
  }
  if (price.trim()) {
    const parsedPrice = parseAmount(price, currency);
    if (!parsedPrice.ok) return { error: `New price: ${parsedPrice.message}` };
    const p = parsedPrice.minor;
    const tooMuch = priceLimit('A price', p, currency);
    if (tooMuch) return { error: tooMuch };
    if (!reason.trim()) return { error: 'A price change needs a reason.' };
    if (p !== l.unit_price_cents || reason !== l.price_override?.reason) body.price_override = { unit_price_cents: p, reason: reason.trim() };
  } else if (l.price_override) body.price_override = null;
  return { body };
}

/** F7: quantity, discount and price override of a line. */
export function LineDialog({ sale, line }: { sale: Sale; line: number }) {
  const { setDialog, changeLine, busy, register } = usePos();
  const l = sale.lines.find((x) => x.line === line)!;
  const currency = register?.currency ?? 'usd';
  const [quantity, setQuantity] = useState(String(l.quantity));
  const [discountKind, setDiscountKind] = useState<'none' | 'percent' | 'amount'>(l.discount ? (l.discount.percent !== null ? 'percent' : 'amount') : 'none');
  const [discount, setDiscount] = useState(l.discount ? (l.discount.percent !== null ? percentInput(l.discount.percent) : amountInput(l.discount.amount_cents ?? 0, currency)) : '');
  const [discountReason, setDiscountReason] = useState(l.discount?.reason ?? '');
  const [price, setPrice] = useState(l.price_override ? amountInput(l.unit_price_cents, currency) : '');
  const [reason, setReason] = useState(l.price_override?.reason ?? '');
  const [error, setError] = useState<string | null>(null);
  useKeys({ Escape: () => setDialog(null) }, { modal: true });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const change = lineChangeOf(l, { quantity, discountKind, discount, discountReason, price, reason }, currency);
    if ('error' in change) return setError(change.error);
    if (Object.keys(change.body).length === 0) return setDialog(null);
    setError(null);
    void changeLine(line, change.body);
  };

  return (
    <Modal title={`Line ${line}: ${l.description}`} onClose={() => setDialog(null)}>
      <form onSubmit={submit} className="form">
        <label>
          Quantity
          <input autoFocus inputMode="numeric" value={quantity} onChange={(e) => setQuantity(typedNumber(e.target.value))} onFocus={(e) => e.target.select()} />
        </label>
        <fieldset>
          <legend>Discount</legend>
          <div className="segmented">
            {(['none', 'percent', 'amount'] as const).map((k) => (
              <label key={k} className="check">
                <input type="radio" name="discount" checked={discountKind === k} onChange={() => setDiscountKind(k)} /> {k === 'none' ? 'None' : k === 'percent' ? 'Percent' : 'Amount'}
              </label>
            ))}
          </div>
          {discountKind !== 'none' && (
            <>
              <input aria-label={discountKind === 'percent' ? 'Discount percent' : 'Discount amount'} inputMode="decimal" value={discount} onChange={(e) => setDiscount(e.target.value)} />
              <input aria-label="Discount reason" placeholder="Reason (optional)" value={discountReason} onChange={(e) => setDiscountReason(e.target.value)} maxLength={60} />
            </>
          )}
        </fieldset>
        <fieldset>
          <legend>Price change (catalog price {money(l.price_override?.list_price_cents ?? l.list_price_cents, currency)})</legend>
          <input aria-label="New unit price" placeholder="New unit price" inputMode="decimal" value={price} onChange={(e) => setPrice(e.target.value)} />
          <input aria-label="Reason for the price change" placeholder="Reason (required)" list="override-reasons" value={reason} onChange={(e) => setReason(e.target.value)} maxLength={60} />
          <datalist id="override-reasons">
            {REASONS.map((r) => (
              <option key={r} value={r} />
            ))}
          </datalist>
        </fieldset>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="primary big" disabled={busy}>
          Save line <kbd>Enter</kbd>
        </button>
      </form>
    </Modal>
  );
}

export function ConfirmDialog({ title, text, confirm, onConfirm, danger, children }: { title: string; text: string; confirm: string; onConfirm: () => void; danger?: boolean; children?: ReactNode }) {
  const { setDialog, busy } = usePos();
  useKeys({ Escape: () => setDialog(null), Enter: () => !busy && onConfirm() }, { modal: true });
  return (
    <Modal title={title} onClose={() => setDialog(null)}>
      <p>{text}</p>
      {children}
      <div className="row">
        <button type="button" className={`${danger ? 'solid danger' : 'primary'} big`} onClick={onConfirm} disabled={busy} autoFocus={!children}>
          {confirm} <kbd>Enter</kbd>
        </button>
        <button type="button" className="big" onClick={() => setDialog(null)}>
          Keep it <kbd>Esc</kbd>
        </button>
      </div>
    </Modal>
  );
}
