import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ApiError } from '../api/client';
import { boCall, type BoCall } from '../api/backoffice';
import { link, useRoute } from '../state/route';
import { useUser } from '../state/user';
import { decimalTimesMinor } from '../../../shared/money';
import { amountInput, money, parseAmount, parseQuantity } from '../format';
import { Field, Notice, Title, day, fieldErrors, useLoad, useShopToday, useUnsavedGuard, dropError } from './common';
import { CustomerPicker, useCustomerPick } from './CustomerPicker';

type Line = { key: number; description: string; quantity: string; price: string };

/** The engine's names for a line's fields, so its refusals land beside the very input. */
const lineField = (i: number, name: 'description' | 'quantity' | 'unit_cost_cents' | 'amount') => `line_item_attributes.${i}.${name}`;


/**
 * What the typed lines read as: each line's quantity and unit price in the screen's locale, with
 * problems keyed by the engine's field names. The amount per line is a preview only: the saved
 * invoice's amount is the one the engine computes, by the same rule (decimalTimesMinor).
 */
function readLines(lines: readonly Line[], cur: string) {
  const problems: Record<string, string> = {};
  const typed: Record<string, string> = {};
  const items: Array<{ description: string; quantity: number; unit_cost_cents: number }> = [];
  // Which lines keep the subtotal from being read, and what in them: "line 2 (unit price)".
  const unread: string[] = [];
  let subtotal = 0;
  lines.forEach((l, i) => {
    const q = parseQuantity(l.quantity.trim() || '1');
    const p = l.price.trim() ? parseAmount(l.price, cur) : null;
    if (!q.ok) problems[lineField(i, 'quantity')] = q.message;
    if (!p) problems[lineField(i, 'unit_cost_cents')] = `Type the unit price, such as ${amountInput(1250, cur)}`;
    else if (!p.ok) problems[lineField(i, 'unit_cost_cents')] = p.message;
    // What was typed and cannot be read is said beside it at once; an empty price waits for Save.
    if (!q.ok && l.quantity.trim()) typed[lineField(i, 'quantity')] = q.message;
    if (p && !p.ok) typed[lineField(i, 'unit_cost_cents')] = p.message;
    const what = [!q.ok && 'quantity', !p?.ok && 'unit price'].filter(Boolean).join(' and ');
    if (what) unread.push(`line ${i + 1} (${what})`);
    if (q.ok && p?.ok) {
      items.push({ description: l.description.trim(), quantity: q.quantity, unit_cost_cents: p.minor });
      subtotal += decimalTimesMinor(q.quantity, p.minor);
    }
  });
  return { items, subtotal, problems, typed, unread, complete: items.length === lines.length };
}

/**
 * A new invoice typed by a person, sent to the invoice import as the ERP's would be. Create only:
 * a number already used is refused, never the ERP's invoice replaced; and the customer is picked
 * from those on file (by name or identifier), so a mistyped one is said beside its field rather
 * than made into a new customer (the engine checks it again: customer_on_file).
 */
export function InvoiceForm() {
  const { search, go } = useRoute();
  const creds = useUser((s) => s.creds);
  const { data: account } = useLoad((c) => boCall(c, 'account', {}), []);
  const cur = (account?.currency ?? 'usd').toUpperCase();
  const fromCustomer = search.get('customer');
  // The date starts as the shop's today (its time zone, the sandbox clock), once known; what the
  // person types replaces it.
  const shopToday = useShopToday();
  const [values, setValues] = useState<Record<string, string>>(() => ({ number: '', date: '', due_date: '', purchase_order_number: '', notes_text: '' }));
  // Picked from the customer search (name or identifier), never text taken as an identifier.
  const pick = useCustomerPick(fromCustomer ?? '');
  const dateTouched = useRef(false);
  useEffect(() => {
    if (shopToday && !dateTouched.current) setValues((s) => ({ ...s, date: shopToday }));
  }, [shopToday]);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (name: string) => (v: string) => {
    if (name === 'date') dateTouched.current = true;
    setValues((s) => ({ ...s, [name]: v }));
    dropError(setErrors, name);
  };
  // Errors are keyed by position: once a line is removed, those of the lines after it would name the wrong line.
  const lines = useLines(() => setErrors({}));
  const read = readLines(lines.lines, cur);
  // Anything typed beyond what the form opened with (the customer it came from, the shop's today, one empty line).
  const dirty =
    pick.text.trim() !== (fromCustomer ?? '') ||
    Object.entries(values).some(([name, v]) => (name === 'date' ? dateTouched.current && v !== shopToday : v.trim() !== '')) ||
    lines.lines.length > 1 ||
    lines.lines.some((l) => l.description.trim() || l.price.trim() || l.quantity.trim() !== '1');
  const saved = useUnsavedGuard(dirty);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!creds) return;
    // The last refusal's banner goes with a new try: it may be about a field fixed since.
    setMessage(null);
    const local: Record<string, string> = { ...read.problems };
    // The customer picked, or an identifier typed whole that the list has not answered yet.
    const customer = pick.text.trim() ? await pick.resolve().catch(() => null) : null;
    if (!customer) local.customer_identifier = !pick.text.trim() ? 'Which customer is this invoice for?' : (pick.problem ?? 'Pick the customer from the list under the field: its name and identifier are shown');
    if (!values.number!.trim()) local.number = 'is required';
    if (lines.lines.length === 0) local.line_item_attributes = 'Add at least one line';
    setErrors(local);
    if (!customer || Object.keys(local).length) return;
    const optional = (name: string) => (values[name]!.trim() ? { [name]: values[name]!.trim() } : {});
    const number = values.number!.trim();
    const body: BoCall<'saveInvoice'>['body'] = {
      number,
      customer_identifier: customer.identifier,
      ...optional('date'),
      // Blank: the engine takes the due date from the customer's terms.
      ...optional('due_date'),
      ...optional('purchase_order_number'),
      ...optional('notes_text'),
      line_item_attributes: read.items,
    };
    setBusy(true);
    try {
      const invoice = await boCall(creds, 'saveInvoice', { query: { create_only: true, customer_on_file: true }, body }).catch(async (err: unknown) => {
        if (!(err instanceof ApiError && err.code === 'invoice_exists')) throw err;
        // The engine words its refusal for the API (en-US): said again in the screen's locale.
        const inv = await boCall(creds, 'invoice', { params: { number_or_id: number }, query: {} }).catch(() => undefined);
        if (!inv) throw err;
        const said = `Invoice ${inv.display_number} already exists: ${money(inv.amount_cents, inv.currency.toUpperCase())} to ${inv.customer_identifier}, dated ${day(inv.date)}. Choose another number.`;
        throw new ApiError(err.status, err.code, said, [{ field: 'number', message: said }]);
      });
      saved();
      go(link('invoices', invoice.identifier), { replace: true });
    } catch (err) {
      const { fields, message: m } = fieldErrors(err);
      setErrors(fields);
      setMessage(m);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="bo-section">
      <Title back={fromCustomer ? link('customers', fromCustomer) : '/app/invoices'}>New invoice</Title>
      <form className="card bo-form" onSubmit={(e) => void submit(e)} noValidate aria-label="New invoice">
        <Notice error={message} />
        <CustomerPicker pick={{ ...pick, type: (v) => (pick.type(v), dropError(setErrors, 'customer_identifier')) }} label="Customer" name="customer_identifier" error={errors.customer_identifier} />
        <Field label="Invoice number" name="number" value={values.number!} onChange={set('number')} errors={errors} required hint="Your invoice number; one already used is refused" />
        <Field label="Date" name="date" type="date" value={values.date!} onChange={set('date')} errors={errors} />
        <Field label="Due date" name="due_date" type="date" value={values.due_date!} onChange={set('due_date')} errors={errors} hint="Leave blank to take it from the customer's terms" />
        <Field label="PO number" name="purchase_order_number" value={values.purchase_order_number!} onChange={set('purchase_order_number')} errors={errors} />
        <Field label="Notes" name="notes_text" rows={3} value={values.notes_text!} onChange={set('notes_text')} errors={errors} />
        <h2>Lines</h2>
        <p className="muted small">Quantity and unit price as you write numbers here, for example {amountInput(123456, cur)}.</p>
        <LineRows lines={lines} cur={cur} errors={{ ...errors, ...read.typed }} read={read} onEdit={(name) => dropError(setErrors, name)} />
        <div className="bo-actions">
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save invoice'}
          </button>
        </div>
      </form>
    </section>
  );
}

type Lines = ReturnType<typeof useLines>;

/** "line 1", "line 1 and line 3", "line 1, line 2 and line 3". */
const listed = (parts: readonly string[]) => (parts.length < 2 ? parts.join('') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)!}`);

/** The typed lines, and keyboard care: a line just added takes the focus in its description. */
function useLines(onRemove: () => void) {
  const next = useRef(2);
  const [lines, setLines] = useState<Line[]>([{ key: 1, description: '', quantity: '1', price: '' }]);
  const [focusKey, setFocusKey] = useState<number | null>(null);
  useEffect(() => {
    if (focusKey === null) return;
    const i = lines.findIndex((l) => l.key === focusKey);
    if (i >= 0) document.getElementById(`field-${lineField(i, 'description')}`)?.focus();
    setFocusKey(null);
  }, [focusKey, lines]);
  return {
    lines,
    setLine: (key: number, patch: Partial<Line>) => setLines((ls) => ls.map((l) => (l.key === key ? { ...l, ...patch } : l))),
    add: () => {
      const key = next.current++;
      setLines((ls) => [...ls, { key, description: '', quantity: '1', price: '' }]);
      setFocusKey(key);
    },
    remove: (key: number) => {
      onRemove();
      setLines((ls) => ls.filter((l) => l.key !== key));
    },
  };
}

function LineRows({ lines, cur, errors, read, onEdit }: { lines: Lines; cur: string; errors: Record<string, string>; read: ReturnType<typeof readLines>; onEdit(name: string): void }) {
  const { setLine } = lines;
  return (
    <>
      {lines.lines.map((l, i) => (
        <fieldset key={l.key} className="bo-invoice-line" aria-label={`Line ${i + 1}`}>
          <legend>Line {i + 1}</legend>
          <Field label="Description" labelSuffix={`, line ${i + 1}`} name={lineField(i, 'description')} value={l.description} onChange={(v) => (setLine(l.key, { description: v }), onEdit(lineField(i, 'description')))} errors={errors} />
          <Field label="Quantity" labelSuffix={`, line ${i + 1}`} name={lineField(i, 'quantity')} value={l.quantity} onChange={(v) => (setLine(l.key, { quantity: v }), onEdit(lineField(i, 'quantity')))} errors={errors} />
          <Field label={`Unit price (${cur})`} labelSuffix={`, line ${i + 1}`} name={lineField(i, 'unit_cost_cents')} value={l.price} onChange={(v) => (setLine(l.key, { price: v }), onEdit(lineField(i, 'unit_cost_cents')))} errors={errors} />
          <button type="button" onClick={() => lines.remove(l.key)} disabled={lines.lines.length === 1} aria-label={`Remove line ${i + 1}`}>
            Remove
          </button>
        </fieldset>
      ))}
      {errors.line_item_attributes && <p className="error small">{errors.line_item_attributes}</p>}
      <div>
        <button type="button" onClick={lines.add}>Add a line</button>
      </div>
      {/* A preview of the lines as typed; the invoice's amount is the engine's, shown once saved. */}
      <p aria-label="Subtotal" aria-live="polite">
        Subtotal {read.complete ? <strong>{money(read.subtotal, cur)}</strong> : <span className="muted">appears once every line has a quantity and a unit price that can be read: see {listed(read.unread)}</span>}
      </p>
    </>
  );
}
