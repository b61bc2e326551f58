import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { boCall, type BoAnswer, type BoCall } from '../api/backoffice';
import { link, useRoute } from '../state/route';
import { can, useUser } from '../state/user';
import { amountInput, fromDecimal, fromFormatted, money, moneyShort, parseAmount, quantityText } from '../format';
import { DataTable, moneyWidths, type Columns, type Whole } from './DataTable';
import { CopyButton, Money, NotForYourRole, Notice, Title, day, useLoad, usePaged } from './common';
import { InvoiceDocument, ThreadPanel, useReminder } from './InvoicePanels';
import { InvoiceForm } from './InvoiceForm';

type Row = BoAnswer<'invoices'>['items'][number];
type Filter = NonNullable<BoCall<'invoices'>['query']>;

const columns: Columns<Row> = [
  { accessorKey: 'display_number', header: 'Invoice' },
  { accessorKey: 'customer_identifier', header: 'Customer' },
  { accessorKey: 'date', header: 'Date', cell: (c) => day(c.row.original.date) },
  // The day the engine counts overdue from: with no due date of its own, an invoice is due on its date, and says so.
  { accessorKey: 'due_on', header: 'Due', cell: (c) => <>{day(c.row.original.due_on)}{c.row.original.due_date ? null : <span className="muted small"> (invoice date)</span>}</> },
  { accessorKey: 'status', header: 'Status', cell: (c) => <span className={`pill ${String(c.getValue()).toLowerCase()}`}>{String(c.getValue())}</span> },
  { accessorKey: 'amount_cents', header: 'Amount', cell: (c) => <Money cents={c.row.original.amount_cents} currency={c.row.original.currency} /> },
  { accessorKey: 'owing_cents', header: 'Owing', cell: (c) => <Money cents={c.row.original.owing_cents} currency={c.row.original.currency} /> },
];
const MONEY_COLUMNS: Record<string, (r: Row) => [number, string]> = { amount_cents: (r) => [r.amount_cents, r.currency], owing_cents: (r) => [r.owing_cents, r.currency] };
/** Never cut: a number or a day cut short reads as another one. */
const WHOLE: Whole<Row> = { display_number: (r) => String(r.display_number ?? ''), customer_identifier: (r) => String(r.customer_identifier ?? ''), date: (r) => day(r.date), due_on: (r) => `${day(r.due_on)}${r.due_date ? '' : ' (invoice date)'}`, status: { pill: (r) => String(r.status) } };

/** Invoices newest first through the engine's filtered list query; rows open the invoice. */
/** `empty`: what the list says when nothing is in it (a customer's open invoices are not a filter that matched nothing). */
export function InvoiceTable({ filter, empty = 'No invoice matches.' }: { filter: Filter; empty?: string }) {
  const go = useRoute((s) => s.go);
  const key = JSON.stringify(filter);
  const { rows, more, loading, error } = usePaged<Row, number>((creds, before) => boCall(creds, 'invoices', { query: { ...filter, ...(before ? { before } : {}), limit: 100 } }), [key]);
  const widths = useMemo(() => moneyWidths(columns, rows, MONEY_COLUMNS), [rows]);
  return (
    <>
      <Notice error={error} />
      <DataTable numeric={widths} whole={WHOLE} label="Invoices" columns={columns} rows={rows} more={more} loading={loading} onOpen={(r) => go(link('invoices', r.number))} empty={empty} />
    </>
  );
}

export function InvoicesSection({ rest }: { rest: string[] }) {
  const session = useUser((s) => s.session);
  // Making invoices is editing records (manage), as adding a customer is; the API refuses it too.
  if (rest[0] === 'new') return can(session, 'manage') ? <InvoiceForm /> : <NotForYourRole what="Create an invoice" back="/app/invoices" />;
  return rest[0] ? <InvoiceDetail number={rest[0]} /> : <InvoiceList />;
}

function AgingChart() {
  // A shop owed in several currencies sees each: the buckets are of the one chosen.
  const [chosen, setChosen] = useState<string | null>(null);
  const { data } = useLoad((creds) => boCall(creds, 'aging', { query: chosen ? { currency: chosen } : {} }), [chosen]);
  if (!data) return <div className="card bo-chart muted">Loading aging…</div>;
  const cur = data.currency.toUpperCase();
  const others = data.currencies.filter((c) => c.currency !== data.currency && c.balance_cents !== 0);
  // Room for the longest tick ("1,4 M $ US" in fr-CA), which is a little above the largest bucket.
  const axis = Math.max(60, (moneyShort(Math.max(0, ...data.buckets.map((b) => b.cents)), cur).length + 2) * 9);
  return (
    <div className="card bo-chart" aria-label="Aging summary">
      <h2>
        Aging on <bdi>{day(data.as_of)}</bdi>: <bdi>{money(data.balance_cents, cur)}</bdi> owed by {data.customers_owing} {data.customers_owing === 1 ? 'customer' : 'customers'}
      </h2>
      {data.currencies.length > 1 && (
        <p className="muted small" aria-label="Owed in other currencies">
          {others.length > 0 && <>Also owed: {others.map((c, i) => (
            <span key={c.currency}>
              {i > 0 && ' · '}
              <bdi>{money(c.balance_cents, c.currency.toUpperCase())}</bdi> by {c.customers_owing} {c.customers_owing === 1 ? 'customer' : 'customers'}
            </span>
          ))}. </>}
          <label>
            Show{' '}
            <select value={data.currency} onChange={(e) => setChosen(e.target.value)} aria-label="Aging currency">
              {data.currencies.map((c) => (
                <option key={c.currency} value={c.currency}>
                  {c.currency.toUpperCase()}
                </option>
              ))}
            </select>
          </label>
        </p>
      )}
      <ResponsiveContainer width="100%" height={180}>
        <BarChart data={data.buckets.map((b) => ({ bucket: b.bucket, amount: b.cents / 100 }))}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="bucket" />
          <YAxis width={axis} tickFormatter={(v: number) => moneyShort(Math.round(v * 100), cur)} />
          <Tooltip formatter={(v) => money(Math.round(Number(v) * 100), cur)} />
          <Bar dataKey="amount" fill="#1f5eff" radius={[4, 4, 0, 0]} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

const FILTER_KEYS = ['status', 'customer', 'division', 'due_from', 'due_to', 'date_from', 'date_to', 'amount_min', 'amount_max'] as const;

function InvoiceList() {
  const { search, go } = useRoute();
  const session = useUser((s) => s.session);
  const { data: account } = useLoad((c) => boCall(c, 'account', {}), []);
  const cur = (account?.currency ?? 'usd').toUpperCase();
  const filter: Filter = {};
  for (const k of FILTER_KEYS) {
    const v = search.get(k);
    if (!v) continue;
    if (k === 'amount_min' || k === 'amount_max') filter[k] = Number(v);
    else (filter as Record<string, string>)[k] = v;
  }
  // An amount restored from the address (minor units) is shown as the fields write one in this
  // locale ("1590,07" in fr-CH, "١٥٩٠٫٠٧" in ar-EG), so applying it again reads the same amount.
  const restored = (k: (typeof FILTER_KEYS)[number], currency: string) => {
    const v = search.get(k) ?? '';
    return /^-?\d+$/.test(v) ? amountInput(Number(v), currency) : v;
  };
  const [draft, setDraft] = useState<Record<string, string>>(() => Object.fromEntries(FILTER_KEYS.map((k) => [k, k.startsWith('amount') ? restored(k, cur) : (search.get(k) ?? '')])));
  // Written before the account's currency was known (as USD): again in its own minor digits (JPY, KWD), unless typed over
  // since; once, when the currency arrives.
  useEffect(() => {
    if (!account || cur === 'USD') return;
    setDraft((d) => ({ ...d, ...Object.fromEntries((['amount_min', 'amount_max'] as const).filter((k) => d[k] === restored(k, 'USD')).map((k) => [k, restored(k, cur)])) }));
  }, [cur]);
  const [problem, setProblem] = useState<string | null>(null);
  const apply = (e: FormEvent) => {
    e.preventDefault();
    const params = new URLSearchParams();
    for (const k of FILTER_KEYS) {
      const v = draft[k]?.trim();
      if (!v) continue;
      if (k === 'amount_min' || k === 'amount_max') {
        const parsed = parseAmount(v, cur);
        if (!parsed.ok) return setProblem(`${k === 'amount_min' ? 'Minimum' : 'Maximum'} amount: ${parsed.message}`);
        params.set(k, String(parsed.minor));
      } else params.set(k, v);
    }
    setProblem(null);
    go(`/app/invoices${params.size ? `?${params}` : ''}`, { replace: true });
  };
  const input = (k: (typeof FILTER_KEYS)[number], label: string, type = 'text') => (
    <label className="bo-field small">
      {label}
      <input type={type} value={draft[k]} onChange={(e) => setDraft((d) => ({ ...d, [k]: e.target.value }))} />
    </label>
  );
  return (
    <section className="bo-section">
      <Title actions={can(session, 'manage') && <button type="button" className="primary" onClick={() => go('/app/invoices/new')}>New invoice</button>}>Invoices</Title>
      <AgingChart />
      <form className="bo-filters wrap" onSubmit={apply} aria-label="Invoice filters">
        <label className="bo-field small">
          Status
          <select value={draft.status} onChange={(e) => setDraft((d) => ({ ...d, status: e.target.value }))}>
            <option value="">All</option>
            <option value="open">Open</option>
            <option value="overdue">Overdue</option>
            <option value="paid">Paid</option>
            <option value="closed">Closed</option>
          </select>
        </label>
        {input('customer', 'Customer')}
        {input('division', 'Division')}
        {input('date_from', 'Dated from', 'date')}
        {input('date_to', 'Dated to', 'date')}
        {input('due_from', 'Due from', 'date')}
        {input('due_to', 'Due to', 'date')}
        {input('amount_min', `Amount from (${cur})`)}
        {input('amount_max', `Amount to (${cur})`)}
        <button type="submit" className="primary">Apply</button>
      </form>
      <Notice error={problem} />
      {/* The rows below would be those of the last filter, read as the answer to this one. */}
      {problem ? <p className="muted">Correct the filter above and press Apply to see the invoices.</p> : <InvoiceTable filter={filter} />}
    </section>
  );
}

function InvoiceDetail({ number }: { number: string }) {
  const { data, error } = useLoad((creds) => boCall(creds, 'invoice', { params: { number_or_id: number }, query: { options: { payments: true } } }), [number]);
  if (error) return <Notice error={error} />;
  if (!data) return <p className="muted">Loading…</p>;
  return <InvoicePage data={data} />;
}

/** The click-to-pay link the customer pays this invoice with (the page it opens is public: the link is its key). */
function PayLink({ url }: { url: string }) {
  // A link on this computer's own address opens nowhere else: customers need the shop's public address.
  const local = /^https?:\/\/(localhost|127\.|\[::1\])/i.test(url);
  return (
    <>
      <p className="muted">
        Customer's <a href={url} target="_blank" rel="noreferrer">payment link</a>{' '}
        <CopyButton text={url} />
      </p>
      {local && <p className="muted" aria-label="Payment link warning">This link points at this computer: customers cannot open it. Start the server with --public-url set to the address customers reach it at.</p>}
    </>
  );
}

function InvoicePage({ data }: { data: BoAnswer<'invoice'> }) {
  const go = useRoute((s) => s.go);
  const session = useUser((s) => s.session);
  const reminder = useReminder(data);
  const cur = data.currency.toUpperCase();
  // The API formats taxes in the currency's home locale; shown again in the screen's (as it came if unreadable).
  const tax = (text: string) => { const cents = fromFormatted(text, cur); return cents === undefined ? text : <Money cents={cents} currency={cur} />; };
  const payments = (data.payments ?? []) as Array<Record<string, string>>;
  // A line's balance moves only where payments are applied to lines (line-item short pay); otherwise
  // it would show every line still owed on a paid invoice.
  const { data: account } = useLoad((c) => boCall(c, 'account', {}), []);
  const lineBalances = account?.capabilities.line_item_short_pay === true;
  // Staff know customers by name; the identifier stays beside it (it is what the ERP calls them).
  const { data: customer } = useLoad((c) => boCall(c, 'customer', { params: { identifier: data.customer_identifier } }), [data.customer_identifier]);
  return (
    <section className="bo-section">
      <Title
        back="/app/invoices"
        actions={
          <>
            {/* Nothing to remind of once nothing is owed (the engine would send none either). */}
            {can(session, 'collect') && data.owing_cents > 0 && !data.deleted && reminder.button}
            {can(session, 'collect') && data.owing_cents > 0 && !data.deleted && (
              <button type="button" className="primary" onClick={() => go(`/app/payments/new?customer=${encodeURIComponent(data.customer_identifier)}&invoice=${encodeURIComponent(data.number)}`)}>
                Record a payment
              </button>
            )}
          </>
        }
      >
        Invoice {data.display_number} <span className={`pill ${data.status.toLowerCase()}`}>{data.status}</span>
      </Title>
      {reminder.result}
      <div className="grid">
        <div className="card">
          <h2>Amount</h2>
          <p className="big-figure"><Money fit cents={data.amount_cents} currency={cur} /></p>
          {data.deleted ? (
            // Closed (a reconciliation found it no longer in the ERP's open invoices): nothing is collected on it.
            <p>Closed{data.owing_cents !== 0 && <> with <Money cents={data.owing_cents} currency={cur} /> owing when it was closed</>}</p>
          ) : (
            <p>Owing <strong aria-label="Owing"><Money cents={data.owing_cents} currency={cur} /></strong></p>
          )}
          {data.owing_cents > 0 && !data.deleted && data.pay_url && <PayLink url={data.pay_url} />}
        </div>
        <div className="card">
          <h2>Customer</h2>
          <p>
            <a href={link('customers', data.customer_identifier)} onClick={(e) => (e.preventDefault(), go(link('customers', data.customer_identifier)))}>{customer?.name || data.customer_identifier}</a>
            {customer?.name && customer.name !== data.customer_identifier && <span className="muted"> · {data.customer_identifier}</span>}
          </p>
          {/* With no due date of its own an invoice is due on its date (the list's due_on); "due —" beside OVERDUE told nothing. */}
          <p className="muted">Dated {day(data.date)} · due {data.due_date ? day(data.due_date) : <>{day(data.date)} (invoice date)</>}{data.division ? ` · division ${data.division}` : ''}</p>
        </div>
        <div className="card">
          <h2>Taxes</h2>
          <p aria-label="Taxes" className="bo-taxes"><span>Tax 1: {tax(data.subtotal_tax1)}</span> · <span>Tax 2: {tax(data.subtotal_tax2)}</span></p>
          {data.adjustments_attributes.map((a) => <p key={a.id} className="muted">{a.label ?? 'Adjustment'}: <Money cents={a.amount_cents} currency={cur} /></p>)}
        </div>
      </div>
      <div className="card">
        <h2>Lines</h2>
        {data.line_item_attributes.length === 0 ? <p className="muted">No line items: the invoice was imported with its amount only.</p> : (
        <table className="bo-simple">
          <thead><tr><th>#</th><th>Description</th><th className="num">Qty</th><th className="num">Unit price</th><th className="num">Amount</th>{lineBalances && <th className="num">Balance</th>}</tr></thead>
          <tbody>
            {data.line_item_attributes.map((l, i) => (
              <tr key={i}>
                <td>{l.number}</td>
                <td>{l.description}</td>
                <td className="num">{l.quantity === null || l.quantity === undefined ? '' : quantityText(Number(l.quantity))}</td>
                <td className="num">{l.unit_cost_cents === null || l.unit_cost_cents === undefined ? '' : <Money cents={l.unit_cost_cents} currency={cur} />}</td>
                <td className="num"><Money cents={l.amount_cents} currency={cur} /></td>
                {lineBalances && <td className="num"><Money cents={l.balance_cents} currency={cur} /></td>}
              </tr>
            ))}
          </tbody>
        </table>
        )}
      </div>
      <div className="card">
        <h2>Payments</h2>
        {payments.length === 0 ? <p className="muted">No payment applied yet.</p> : (
          <ul className="bo-list">
            {payments.map((p, i) => (
              <li key={i}>
                <a href={link('payments', p.payment_reference ?? '')} onClick={(e) => (e.preventDefault(), go(link('payments', p.payment_reference ?? '')))}>{p.payment_reference}</a> · {day(p.date)} · <Money cents={fromDecimal(p.amount, cur)} currency={cur} />
              </li>
            ))}
          </ul>
        )}
      </div>
      <ThreadPanel data={data} />
      <InvoiceDocument data={data} />
    </section>
  );
}
