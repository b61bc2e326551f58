import { useMemo, useState, type FormEvent } from 'react';
import { ApiError } from '../api/client';
import { boCall, type BoAnswer, type BoCall } from '../api/backoffice';
import { link, useRoute } from '../state/route';
import { can, useUser } from '../state/user';
import { amountInput, fromDecimal, money, parseAmount, takenOffSummary } from '../format';
import { PaymentTree } from './PaymentTree';
import { DataTable, moneyWidths, type Columns, type Whole } from './DataTable';
import { EXTERNAL_PAYMENT_TYPES, Field, Money, NotForYourRole, Notice, PaymentStatus, Title, paymentStatus, day, fieldErrors, paidBy, useLoad, usePaged, useShopToday, useUnsavedGuard, dropError } from './common';
import { CustomerPicker, useCustomerPick } from './CustomerPicker';

type Row = BoAnswer<'payments'>['items'][number];

const columns: Columns<Row> = [
  { accessorKey: 'reference', header: 'Payment' },
  { accessorKey: 'customer_identifier', header: 'Customer' },
  { accessorKey: 'date', header: 'Date', cell: (c) => day(c.row.original.date) },
  { accessorKey: 'method', header: 'Method' },
  { accessorKey: 'status', header: 'Status', cell: (c) => <PaymentStatus status={c.row.original.status} /> },
  { accessorKey: 'amount_cents', header: 'Amount', cell: (c) => <Money cents={c.row.original.amount_cents} currency={c.row.original.currency} /> },
  { accessorKey: 'unapplied_cents', header: 'Unapplied', cell: (c) => <Money cents={c.row.original.unapplied_cents} currency={c.row.original.currency} /> },
];
const MONEY_COLUMNS: Record<string, (r: Row) => [number, string]> = { amount_cents: (r) => [r.amount_cents, r.currency], unapplied_cents: (r) => [r.unapplied_cents, r.currency] };
/** Never cut: a payment's reference or day cut short ("CHQ-C-…", "20 nov. 2…") reads as another one. */
const WHOLE: Whole<Row> = { reference: (r) => String(r.reference ?? ''), customer_identifier: (r) => String(r.customer_identifier ?? ''), date: (r) => day(r.date), status: { pill: (r) => paymentStatus(r.status).words } };

export function PaymentTable({ customer }: { customer?: string }) {
  const go = useRoute((s) => s.go);
  const { rows, more, loading, error } = usePaged<Row, number>(
    (creds, before) => boCall(creds, 'payments', { query: { ...(customer ? { customer } : {}), ...(before ? { before } : {}), limit: 100 } }),
    [customer],
  );
  const widths = useMemo(() => moneyWidths(columns, rows, MONEY_COLUMNS), [rows]);
  return (
    <>
      <Notice error={error} />
      <DataTable numeric={widths} whole={WHOLE} label="Payments" columns={columns} rows={rows} more={more} loading={loading} onOpen={(r) => go(link('payments', r.reference))} empty="No payment yet." />
    </>
  );
}

export function PaymentsSection({ rest }: { rest: string[] }) {
  const go = useRoute((s) => s.go);
  const session = useUser((s) => s.session);
  if (rest[0] === 'new') return can(session, 'collect') ? <RecordPayment /> : <NotForYourRole what="Record a payment" back="/app/payments" />;
  if (rest[0]) return <PaymentDetail reference={rest[0]} />;
  return (
    <section className="bo-section">
      <Title actions={can(session, 'collect') && <button type="button" className="primary" onClick={() => go('/app/payments/new')}>Record a payment</button>}>Payments</Title>
      <PaymentTable />
    </section>
  );
}

type OpenInvoice = { number: string; display_number: string; owing_cents: number };
type Applying = { customer: string | null; ticks: Record<string, boolean>; byHand: Record<string, string> | null };

/**
 * The amounts typed beside open invoices, read in the screen's locale: each at most what its
 * invoice owes (more is a typo, most likely), problems keyed `<prefix>-<number>` for their fields.
 */
function invoiceAmounts(open: readonly OpenInvoice[], textOf: (inv: OpenInvoice) => string, cur: string, prefix: string, overHint = '') {
  const amounts: Array<{ invoice_number: string; cents: number }> = [];
  const problems: Record<string, string> = {};
  let total = 0;
  for (const inv of open) {
    const text = textOf(inv).trim();
    if (!text) continue;
    const p = parseAmount(text, cur);
    if (!p.ok) problems[`${prefix}-${inv.number}`] = p.message;
    else if (p.minor > inv.owing_cents) problems[`${prefix}-${inv.number}`] = `More than ${inv.display_number} owes (${money(inv.owing_cents, cur)})${overHint}`;
    else if (p.minor > 0) {
      total += p.minor;
      amounts.push({ invoice_number: inv.number, cents: p.minor });
    }
  }
  return { amounts, total, problems };
}

function PaymentDetail({ reference }: { reference: string }) {
  const go = useRoute((s) => s.go);
  const session = useUser((s) => s.session);
  const { data, error, reload } = useLoad((creds) => boCall(creds, 'payment', { params: { reference_or_token: reference }, query: { options: { export_payment_tree: true } } }), [reference]);
  if (error) return <Notice error={error} />;
  if (!data) return <p className="muted">Loading…</p>;
  return (
    <section className="bo-section">
      <Title back="/app/payments">
        Payment {data.payment_reference} <PaymentStatus status={data.status} />
      </Title>
      <div className="grid">
        <div className="card">
          <h2>Received</h2>
          {/* What the settlement shows as the sale; refunds (and a chargeback or bank return) are said apart, as the settlement says them. */}
          <p className="big-figure" aria-label="Received"><Money fit cents={fromDecimal(data.received_amount, data.currency)} currency={data.currency} /></p>
          {data.refunds.length > 0 && (
            <p className="muted" aria-label="Kept">
              {takenOffSummary(data.refunds.map((r) => r.kind))}{' '}
              <Money cents={-data.refunds.reduce((sum, r) => sum + (fromDecimal(r.amount, data.currency) ?? 0), 0)} currency={data.currency} /> · kept <strong><Money cents={fromDecimal(data.payment_amount, data.currency)} currency={data.currency} /></strong>
            </p>
          )}
          <p className="muted">Unapplied credit: <Money cents={fromDecimal(data.unapplied_amount, data.currency)} currency={data.currency} /></p>
        </div>
        <div className="card">
          <h2>From</h2>
          <p><a href={link('customers', data.customer_identifier)} onClick={(e) => (e.preventDefault(), go(link('customers', data.customer_identifier)))}>{data.customer_identifier}</a> {data.customer_name}</p>
          <p className="muted">{day(data.date)} · {paidBy(data)}</p>
        </div>
      </div>
      {can(session, 'collect') && data.status === 'PAID' && (fromDecimal(data.unapplied_amount, data.currency) ?? 0) > 0 && (
        <ApplyCredit reference={data.payment_reference} customer={data.customer_identifier} currency={data.currency} credit={fromDecimal(data.unapplied_amount, data.currency) ?? 0} done={reload} />
      )}
      <PaymentTree data={data} />
    </section>
  );
}

/** An external payment (cheque, wire) applied to the customer's open invoices; what is not applied stays as credit. */
function RecordPayment() {
  const { search, go } = useRoute();
  const creds = useUser((s) => s.creds);
  const { data: account } = useLoad((c) => boCall(c, 'account', {}), []);
  const accountCur = (account?.currency ?? 'usd').toUpperCase();
  const opened = search.get('customer') ?? '';
  // The customer is picked from the engine's customers, never text taken as one: the invoices
  // offered and the payment recorded are that customer's, by identifier.
  const pick = useCustomerPick(opened);
  const customer = pick.chosen?.identifier ?? null;
  const [method, setMethod] = useState('cheque');
  const [number, setNumber] = useState('');
  const [total, setTotal] = useState('');
  // The day it was received: today in the shop until another is chosen (a cheque of last week).
  const [date, setDate] = useState<string | null>(null);
  const shopToday = useShopToday();
  const dateValue = date ?? shopToday;
  // Which invoices the payment goes to (ticked) and, once the clerk typed beside one, the amounts
  // as typed; kept while that customer stays the one chosen.
  const [applyingFor, setApplyingFor] = useState<Applying>({ customer: null, ticks: {}, byHand: null });
  const applying: Applying = applyingFor.customer === customer ? applyingFor : { customer, ticks: {}, byHand: null };
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const invoiceParam = search.get('invoice');
  const { data: loaded } = useLoad(async (c) => (customer ? { customer, items: (await boCall(c, 'invoices', { query: { customer, status: 'open', limit: 200 } })).items } : null), [customer]);
  // Another customer's invoices, still shown while the chosen one's are read, are not offered.
  const owed = loaded && loaded.customer === customer ? loaded.items : customer ? undefined : [];
  // A payment is in one currency, and the amounts typed are read in it (¥ has no decimals): that of
  // the customer's open invoices, chosen when they owe in several; only invoices in it are offered.
  const currencies = [...new Set((owed ?? []).map((i) => i.currency.toUpperCase()))];
  const fromInvoice = owed?.find((i) => i.number === invoiceParam)?.currency.toUpperCase();
  const usual = fromInvoice ?? (currencies.length === 1 ? currencies[0]! : currencies.length === 0 || currencies.includes(accountCur) ? accountCur : currencies[0]!);
  const [curFor, setCurFor] = useState<{ customer: string | null; cur: string } | null>(null);
  const cur = curFor && curFor.customer === customer ? curFor.cur : usual;
  const curOptions = [...new Set([...currencies, accountCur])].sort();
  const open = owed?.filter((i) => i.currency.toUpperCase() === cur).sort(oldestDueFirst);
  const parsedTotal = total.trim() ? parseAmount(total, cur) : null;
  // The invoice the form was opened from is the one being paid until the clerk says otherwise.
  const ticked = (inv: OpenInvoice) => applying.ticks[inv.number] ?? inv.number === invoiceParam;
  // Until an amount is typed beside an invoice, the amount received is what is applied: a cheque for
  // part of what is owed must not leave the whole owing in the fields and be refused at Record. It
  // pays the ticked invoices oldest due first, each at most what it owes; the rest is credit.
  const spread = new Map<string, string>();
  let left = parsedTotal?.ok ? parsedTotal.minor : 0;
  for (const inv of open ?? []) {
    if (!ticked(inv)) continue;
    // No amount received yet: a ticked invoice is paid whole, and the payment is their sum.
    if (!parsedTotal) spread.set(inv.number, amountInput(inv.owing_cents, cur));
    else if (left > 0) {
      const share = Math.min(left, inv.owing_cents);
      spread.set(inv.number, amountInput(share, cur));
      left -= share;
    }
  }
  const amountOf = (inv: OpenInvoice) => (applying.byHand ? (applying.byHand[inv.number] ?? '') : (spread.get(inv.number) ?? ''));
  // The first amount typed by hand takes the others as they were shown, so none moves under the clerk's eyes.
  const byHandNow = () => applying.byHand ?? Object.fromEntries((open ?? []).map((inv) => [inv.number, amountOf(inv)]));
  const setApplied = (invoice: string, v: string) => setApplyingFor({ ...applying, byHand: { ...byHandNow(), [invoice]: v } });
  const tick = (inv: OpenInvoice, on: boolean) => {
    if (!applying.byHand) return setApplyingFor({ ...applying, ticks: { ...applying.ticks, [inv.number]: on } });
    // Amounts typed by hand stay as typed: ticking puts what is still unapplied (else what it owes) beside that one invoice.
    const rest = parsedTotal?.ok ? parsedTotal.minor - allocated : 0;
    setApplied(inv.number, on ? amountInput(rest > 0 ? Math.min(rest, inv.owing_cents) : inv.owing_cents, cur) : '');
  };
  const isTicked = (inv: OpenInvoice) => (applying.byHand ? amountOf(inv).trim() !== '' : ticked(inv));
  const read = invoiceAmounts(open ?? [], amountOf, cur, 'apply', ': leave the rest in the amount received, it stays as credit');
  const { total: allocated, problems: local } = read;
  const allocations = read.amounts.map((a) => ({ invoice_number: a.invoice_number, amount: a.cents }));
  // An amount that cannot be read is said at once, beside it (why, and how to type it: parseMoney's
  // message), and no total is offered for it (not the sum applied).
  const totalProblem = parsedTotal && !parsedTotal.ok ? parsedTotal.message : null;
  const unreadable = totalProblem !== null;
  const totalCents = parsedTotal?.ok ? parsedTotal.minor : allocated;
  const unapplied = totalCents - allocated;
  // Applied beyond the payment cannot be recorded: said beside Record as soon as it is so, not after a click.
  const over = !unreadable && unapplied < 0;
  const dirty = pick.text.trim() !== opened || method !== 'cheque' || number.trim() !== '' || total.trim() !== '' || date !== null || Object.keys(applyingFor.ticks).length > 0 || Object.values(applyingFor.byHand ?? {}).some((v) => v.trim() !== '');
  const saved = useUnsavedGuard(dirty);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!creds) return;
    // The last refusal's banner goes with a new try: it may be about a field fixed since.
    setMessage(null);
    const problems = { ...local };
    if (totalProblem) problems.amount_cents = totalProblem;
    else if (unapplied < 0) problems.amount_cents = `The amounts applied (${money(allocated, cur)}) exceed the payment`;
    // Nothing typed and nothing applied would be recorded as a payment of 0.00, marked paid.
    else if (totalCents <= 0) problems.amount_cents = total.trim() ? `The amount received must be more than ${money(0, cur)}` : `Type the amount received, for example ${amountInput(125050, cur)}, or amounts to apply below`;
    // Empty, or a day not finished typing (the browser gives no value): not taken as today.
    if (!dateValue) problems.date = 'Type the day it was received';
    setBusy(true);
    try {
      // The customer picked, or an identifier typed whole that the list has not answered yet; text
      // matching none is said beside the field (the import would make it a new, empty customer).
      const payer = pick.text.trim() ? await pick.resolve() : null;
      if (!payer) problems.customer_identifier = !pick.text.trim() ? 'Which customer paid?' : (pick.problem ?? 'Pick the customer from the list under the field: its name and identifier are shown');
      setErrors(problems);
      if (!payer || Object.keys(problems).length) return;
      // Typed whole and found only now, no invoice of theirs was offered yet: the payment is their credit, as the summary said.
      await record(payer.identifier);
    } catch (err) {
      const f = fieldErrors(err);
      // The reference is made of the cheque or wire number: its problem is said beside that field.
      const { identifier, ...fields } = f.fields;
      setErrors(identifier ? { ...fields, external_payment_number: identifier } : fields);
      setMessage(f.message);
    } finally {
      setBusy(false);
    }
  };
  const record = async (identifierOfCustomer: string) => {
    if (!creds) return;
    // Two customers' cheques may carry the same number; the same customer's cheque number twice is the same cheque.
    const reference = `${method === 'wire' ? 'WIRE' : 'CHQ'}-${identifierOfCustomer}-${number.trim() || Date.now().toString(36).toUpperCase()}`;
    const body: BoCall<'recordPayment'>['body'] = {
      identifier: reference,
      customer_identifier: identifierOfCustomer,
      amount_cents: totalCents,
      currency: cur,
      date: dateValue,
      external_payment_type: method,
      ...(number.trim() ? { external_payment_number: number.trim() } : {}),
      ...(allocations.length ? { payment_amounts_attributes: allocations } : {}),
    };
    // Create only: a payment already recorded under this reference is said so, never replaced; in
    // the screen's words and locale (the engine words its refusal for the API, in en-US).
    await boCall(creds, 'recordPayment', { query: { create_only: true }, body }).catch(async (err: unknown) => {
      if (!(err instanceof ApiError && err.code === 'payment_exists')) throw err;
      const p = await boCall(creds, 'payment', { params: { reference_or_token: reference }, query: {} }).catch(() => undefined);
      if (!p) throw err;
      const kind = method === 'wire' ? 'This wire' : 'This cheque';
      const said = `${kind} is already recorded (${p.payment_reference}): a payment of ${money(fromDecimal(p.payment_amount, p.currency) ?? 0, p.currency.toUpperCase())} from ${p.customer_name || p.customer_identifier} on ${day(p.date)}.`;
      throw new ApiError(err.status, err.code, said, [{ field: 'identifier', message: said }]);
    });
    saved();
    go(link('payments', reference), { replace: true });
  };
  return (
    <section className="bo-section">
      <Title back="/app/payments">Record a payment</Title>
      <form className="card bo-form" onSubmit={(e) => void submit(e)} noValidate>
        <Notice error={message} />
        <CustomerPicker pick={{ ...pick, type: (v) => (pick.type(v), dropError(setErrors, 'customer_identifier')) }} label="Customer" name="customer_identifier" error={errors.customer_identifier} />
        {curOptions.length > 1 && (
          <div className="bo-field">
            <label htmlFor="field-currency">Currency</label>
            <select id="field-currency" value={cur} onChange={(e) => setCurFor({ customer, cur: e.target.value })}>
              {curOptions.map((c) => (
                <option key={c} value={c}>
                  {c}
                  {currencies.includes(c) ? '' : ' (no open invoice)'}
                </option>
              ))}
            </select>
          </div>
        )}
        <label className="bo-field">
          Method
          <select value={method} onChange={(e) => setMethod(e.target.value)}>
            {Object.entries(EXTERNAL_PAYMENT_TYPES).map(([value, words]) => <option key={value} value={value}>{words}</option>)}
          </select>
        </label>
        <Field label={method === 'wire' ? 'Wire reference' : 'Cheque number'} name="external_payment_number" value={number} onChange={(v) => { setNumber(v); dropError(setErrors, 'external_payment_number'); }} errors={errors} />
        <Field label="Date received" name="date" type="date" value={dateValue} onChange={(v) => { setDate(v); dropError(setErrors, 'date'); }} errors={errors} />
        <Field label={`Amount received (${cur})`} name="amount_cents" value={total} onChange={(v) => { setTotal(v); dropError(setErrors, 'amount_cents'); }} errors={totalProblem ? { ...errors, amount_cents: totalProblem } : errors} hint={`Leave empty to take the sum applied below. For example ${amountInput(125050, cur)}`} />
        <h2>Apply to open invoices</h2>
        {open && open.length === 0 && <p className="muted">{customer ? 'No open invoice: the whole payment is credit on account.' : 'Pick the customer first: their open invoices show here.'}</p>}
        {(open ?? []).map((inv) => (
          <div key={inv.number} className="bo-apply">
            <label className="bo-check">
              <input type="checkbox" checked={isTicked(inv)} onChange={(e) => tick(inv, e.target.checked)} aria-label={`Pay ${inv.display_number}`} />
              <span>
                {inv.display_number} <span className="muted">due {day(inv.due_on)}, owing</span> <Money cents={inv.owing_cents} currency={inv.currency} />
              </span>
            </label>
            <Field label={`Apply to ${inv.display_number}`} name={`apply-${inv.number}`} value={amountOf(inv)} onChange={(v) => setApplied(inv.number, v)} errors={{ ...errors, ...local }} />
          </div>
        ))}
        <p aria-label="Payment summary">
          {unreadable ? (
            <>Payment: the amount received cannot be read yet (what to type is beside it) · applied {money(allocated, cur)}</>
          ) : (
            <>
              Payment <strong>{money(totalCents, cur)}</strong> · applied {money(allocated, cur)} · unapplied credit <strong>{money(Math.max(unapplied, 0), cur)}</strong>
            </>
          )}
        </p>
        <div className="bo-actions">
          {over && (
            <span id="payment-over" className="error">
              The amounts applied ({money(allocated, cur)}) are {money(-unapplied, cur)} more than the payment: lower an amount applied or raise the amount received
            </span>
          )}
          <button type="submit" className="primary" disabled={busy || over} aria-describedby={over ? 'payment-over' : undefined}>
            {busy ? 'Recording…' : unreadable || totalCents <= 0 ? 'Record the payment' : `Record ${money(totalCents, cur)}`}
          </button>
        </div>
      </form>
    </section>
  );
}

/**
 * A payment's unapplied credit put on open invoices of its customer (a clerk after a call). Each
 * amount is read in the screen's locale, at most what its invoice owes and, together, the credit;
 * the engine checks the same again (payment-credit.ts) and adds them to what the payment paid.
 */
/** Credit goes on the oldest debt first, so the invoices are offered in that order. */
type Dated = { number: string; due_on: string };
const oldestDueFirst = (a: Dated, b: Dated) => a.due_on.localeCompare(b.due_on) || a.number.localeCompare(b.number, undefined, { numeric: true });

/**
 * The amounts typed beside a payment's open invoices, kept by invoice number. One typed beside an
 * invoice the live update then takes away (paid or closed meanwhile, by the API or a lane) is kept
 * and said with its invoice and amount, not dropped with its row, until the clerk leaves it out.
 */
function useTypedPerInvoice(open: readonly OpenInvoice[] | null | undefined, cur: string) {
  const [typed, setTyped] = useState<Record<string, string>>({});
  // The invoice's number as shown, kept from when an amount was typed beside it: said if the invoice goes.
  const [shownAs, setShownAs] = useState<Record<string, string>>({});
  const type = (inv: OpenInvoice, text: string) => {
    setTyped((t) => ({ ...t, [inv.number]: text }));
    setShownAs((n) => (n[inv.number] === inv.display_number ? n : { ...n, [inv.number]: inv.display_number }));
  };
  const gone = (open ? Object.entries(typed).filter(([number, text]) => text.trim() !== '' && !open.some((inv) => inv.number === number)) : []).map(([number, text]) => {
    const p = parseAmount(text.trim(), cur);
    return { number, words: `${shownAs[number] ?? number} was paid or closed meanwhile: the ${p.ok ? money(p.minor, cur) : `“${text.trim()}”`} typed for it will not be applied` };
  });
  const leaveOut = (number: string) => setTyped((t) => Object.fromEntries(Object.entries(t).filter(([n]) => n !== number)));
  return { typed, type, clear: () => setTyped({}), gone, leaveOut };
}

function PaidMeanwhile({ gone, leaveOut }: { gone: ReadonlyArray<{ number: string; words: string }>; leaveOut(number: string): void }) {
  if (gone.length === 0) return null;
  return (
    <div role="alert" aria-label="No longer open">
      {gone.map(({ number, words }) => (
        <div key={number} className="bo-apply">
          <span className="error">{words}.</span>
          <button type="button" onClick={() => leaveOut(number)}>
            Leave it out
          </button>
        </div>
      ))}
    </div>
  );
}

function ApplyCredit({ reference, customer, currency, credit, done }: { reference: string; customer: string; currency: string; credit: number; done(): void }) {
  const creds = useUser((s) => s.creds);
  const cur = currency.toUpperCase();
  const { data: open, reload } = useLoad(async (c) => (await boCall(c, 'invoices', { query: { customer, status: 'open', limit: 200 } })).items.filter((i) => i.currency.toUpperCase() === cur && i.owing_cents > 0).sort(oldestDueFirst), [customer, cur]);
  const { typed, type, clear, gone, leaveOut } = useTypedPerInvoice(open, cur);
  useUnsavedGuard(Object.values(typed).some((v) => v.trim() !== ''));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const read = invoiceAmounts(open ?? [], (inv) => typed[inv.number] ?? '', cur, 'credit');
  const { total, problems: local } = read;
  const applications = read.amounts.map((a) => ({ invoice_number: a.invoice_number, amount_cents: a.cents }));
  const over = total > credit;
  // An amount marked beside its invoice is left out of the total: applying the rest would drop it unsaid.
  const lineProblems = Object.keys(local).length;
  // An amount whose invoice went meanwhile holds Apply too: applying the rest would drop it unsaid.
  const held = over || lineProblems > 0 || gone.length > 0;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!creds) return;
    setMessage(null);
    setSaid(null);
    setErrors(local);
    if (Object.keys(local).length > 0) return;
    const [first] = gone;
    if (first) return setMessage(`${first.words}: leave it out to apply the rest.`);
    if (applications.length === 0) return setMessage('Type an amount beside an invoice first.');
    if (over) return setMessage(`The amounts come to ${money(total, cur)}, more than the credit (${money(credit, cur)}).`);
    setBusy(true);
    try {
      await boCall(creds, 'applyCredit', { params: { reference }, body: { applications } });
      clear();
      setSaid(`${money(total, cur)} applied.`);
      reload();
      done();
    } catch (err) {
      setMessage(fieldErrors(err).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="card bo-form" aria-label="Apply the credit" onSubmit={(e) => void submit(e)} noValidate>
      <h2>Apply the credit</h2>
      <Notice error={message} />
      {said && <p role="status" className="ok small">{said}</p>}
      {open && open.length === 0 && <p className="muted">{customer} has no open invoice in {cur}: the credit stays on account.</p>}
      {(open ?? []).map((inv) => (
        <div key={inv.number} className="bo-apply">
          <span>
            {inv.display_number} <span className="muted">due {day(inv.due_on)}, owing</span> <Money cents={inv.owing_cents} currency={inv.currency} />
          </span>
          <Field label={`Apply to ${inv.display_number}`} name={`credit-${inv.number}`} value={typed[inv.number] ?? ''} onChange={(v) => type(inv, v)} errors={{ ...errors, ...local }} />
        </div>
      ))}
      <PaidMeanwhile gone={gone} leaveOut={leaveOut} />
      {(open ?? []).length > 0 && (
        <>
          <p aria-label="Credit summary">
            Credit <strong>{money(credit, cur)}</strong> · applying {money(total, cur)} · left <strong>{money(Math.max(credit - total, 0), cur)}</strong>
            {over && <span id="credit-over" className="error"> · {money(total - credit, cur)} more than the credit: lower an amount to apply it</span>}
            {!over && lineProblems > 0 && <span id="credit-over" className="error"> · {lineProblems === 1 ? 'an amount above cannot be applied' : `${lineProblems} amounts above cannot be applied`}: fix it beside its invoice</span>}
            {!over && lineProblems === 0 && gone.length > 0 && <span id="credit-over" className="error"> · {gone.length === 1 ? 'an invoice you typed an amount for is no longer open' : `${gone.length} invoices you typed amounts for are no longer open`}: leave it out above to apply the rest</span>}
          </p>
          <div className="bo-actions">
            {/* Held while the amounts come to more than the credit, one is marked or one's invoice went, the reason said just above (and read with the button). */}
            <button type="submit" className="primary" disabled={busy || held} aria-describedby={held ? 'credit-over' : undefined}>
              {busy ? 'Applying…' : total > 0 ? `Apply ${money(total, cur)}` : 'Apply'}
            </button>
          </div>
        </>
      )}
    </form>
  );
}
