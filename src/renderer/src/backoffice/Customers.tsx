import { useMemo, useState, type FormEvent } from 'react';
import { boCall, type BoAnswer, type BoCall } from '../api/backoffice';
import { link, useRoute } from '../state/route';
import { can, useUser } from '../state/user';
import { amountInput, parseAmount } from '../format';
import { webHref } from '../../../shared/web-address';
import { DataTable, moneyWidths, type Columns } from './DataTable';
import { Field, Money, NotForYourRole, Notice, Title, day, fieldErrors, useLoad, usePaged, useUnsavedGuard } from './common';
import { InvoiceTable } from './Invoices';
import { PaymentTable } from './Payments';
import { HierarchyPanel, InvitationsPanel, NotesPanel, WalletsPanel } from './CustomerPanels';

type Customer = BoAnswer<'customers'>['items'][number];

export function CustomersSection({ rest }: { rest: string[] }) {
  const session = useUser((s) => s.session);
  const editing = rest[0] === 'new' || (rest[0] && rest[1] === 'edit');
  if (editing && !can(session, 'manage')) return <NotForYourRole what={rest[0] === 'new' ? 'Add a customer' : 'Edit a customer'} back={rest[0] === 'new' ? '/app/customers' : link('customers', rest[0]!)} />;
  if (rest[0] === 'new') return <CustomerForm />;
  if (rest[0] && rest[1] === 'edit') return <CustomerForm identifier={rest[0]} />;
  if (rest[0]) return <CustomerDetail identifier={rest[0]} />;
  return <CustomerList />;
}

const columns: Columns<Customer> = [
  { accessorKey: 'identifier', header: 'Customer' },
  { accessorKey: 'name', header: 'Name' },
  { accessorKey: 'account_status', header: 'Status', cell: (c) => <span className={`pill ${c.getValue() === 'open' ? 'open' : ''}`}>{String(c.getValue())}</span> },
  { accessorKey: 'balance_cents', header: 'Balance', cell: (c) => <Money cents={c.row.original.balance_cents} currency={c.row.original.currency} /> },
  { id: 'current', header: 'Current', cell: (c) => <Money cents={c.row.original.current_cents} currency={c.row.original.currency} /> },
  { id: 'd30', header: '1–30', cell: (c) => <Money cents={c.row.original.aging_30_cents} currency={c.row.original.currency} /> },
  { id: 'd60', header: '31–60', cell: (c) => <Money cents={c.row.original.aging_60_cents} currency={c.row.original.currency} /> },
  { id: 'd90', header: '61–90', cell: (c) => <Money cents={c.row.original.aging_90_cents} currency={c.row.original.currency} /> },
  { id: 'older', header: 'Over 90', cell: (c) => <Money cents={older(c.row.original)} currency={c.row.original.currency} /> },
];

/** Who the customer is stays readable however wide the amounts are (in characters). */
const CUSTOMER_MIN = { identifier: 14, name: 16, account_status: 8 };
/** The identifier never cut: one cut short reads as another customer's. */
const CUSTOMER_WHOLE = { identifier: (c: Customer) => c.identifier, account_status: { pill: (c: Customer) => c.account_status } };

const older = (c: Customer) => (c.aging_120_cents ?? 0) + (c.aging_180_cents ?? 0) + (c.aging_older_cents ?? 0);
const MONEY_COLUMNS: Record<string, (c: Customer) => [number | null | undefined, string]> = {
  balance_cents: (c) => [c.balance_cents, c.currency],
  current: (c) => [c.current_cents, c.currency],
  d30: (c) => [c.aging_30_cents, c.currency],
  d60: (c) => [c.aging_60_cents, c.currency],
  d90: (c) => [c.aging_90_cents, c.currency],
  older: (c) => [older(c), c.currency],
};

function CustomerList() {
  const { search, go } = useRoute();
  const session = useUser((s) => s.session);
  const q = search.get('q') ?? '';
  const status = search.get('status') ?? '';
  const [text, setText] = useState(q);
  // Both orders are the engine's, on an index: identifier (A to Z) or balance (largest first).
  const sort = search.get('sort') === 'balance' ? 'balance' : 'identifier';
  const { rows, more, loading, error } = usePaged<Customer, string>(
    (creds, after) => boCall(creds, 'customers', { query: { ...(q ? { q } : {}), ...(status ? { status: status as 'open' } : {}), ...(after ? { after } : {}), sort, limit: 100 } }),
    [q, status, sort],
  );
  const widths = useMemo(() => moneyWidths(columns, rows, MONEY_COLUMNS), [rows]);
  const setQuery = (next: Record<string, string>) => {
    const params = new URLSearchParams({ ...(q ? { q } : {}), ...(status ? { status } : {}), ...(sort === 'balance' ? { sort } : {}), ...next });
    for (const [k, v] of [...params]) if (!v) params.delete(k);
    go(`/app/customers${params.size ? `?${params}` : ''}`, { replace: true });
  };
  const submit = (e: FormEvent) => (e.preventDefault(), setQuery({ q: text.trim() }));
  return (
    <section className="bo-section">
      <Title actions={can(session, 'manage') && <button type="button" className="primary" onClick={() => go('/app/customers/new')}>New customer</button>}>Customers</Title>
      <form className="bo-filters" onSubmit={submit}>
        <input className="bo-query" aria-label="Customer identifier or name" placeholder="Identifier or name…" value={text} onChange={(e) => setText(e.target.value)} />
        <select aria-label="Status" value={status} onChange={(e) => setQuery({ status: e.target.value })}>
          <option value="">Any status</option>
          <option value="open">Open</option>
          <option value="closed">Closed</option>
        </select>
        <button type="submit">Search</button>
      </form>
      <Notice error={error} />
      <DataTable
        numeric={widths}
        minWidths={CUSTOMER_MIN}
        whole={CUSTOMER_WHOLE}
        label="Customers"
        columns={columns}
        rows={rows}
        more={more}
        loading={loading}
        onOpen={(c) => go(link('customers', c.identifier))}
        sort={{ by: sort === 'balance' ? 'balance_cents' : 'identifier', desc: sort === 'balance', sortable: ['identifier', 'balance_cents'], set: (by) => setQuery({ sort: by === 'balance_cents' ? 'balance' : '' }) }}
        empty={q || status ? 'No customer matches.' : <NoCustomersYet manage={can(session, 'manage')} />}
      />
    </section>
  );
}

/** An empty list with no search: nothing matched nothing, so say how customers get here. */
function NoCustomersYet({ manage }: { manage: boolean }) {
  const go = useRoute((s) => s.go);
  if (!manage) return <>No customers yet: the owner or a manager adds them.</>;
  return (
    <>
      No customers yet. Add one with New customer, or import your customer list in{' '}
      <a href={link('imports')} onClick={(e) => (e.preventDefault(), go(link('imports')))}>Imports</a>.
    </>
  );
}

function CustomerDetail({ identifier }: { identifier: string }) {
  const go = useRoute((s) => s.go);
  const session = useUser((s) => s.session);
  const { data, error } = useLoad((creds) => boCall(creds, 'customer', { params: { identifier } }), [identifier]);
  const { data: row } = useLoad(async (creds) => (await boCall(creds, 'customers', { query: { q: identifier, limit: 1 } })).items.find((c) => c.identifier === identifier), [identifier]);
  const { data: account } = useLoad((c) => boCall(c, 'account', {}), []);
  if (error) return <Notice error={error} />;
  if (!data) return <p className="muted">Loading…</p>;
  const currency = row?.currency ?? data.currency;
  const buckets: Array<[string, number | undefined]> = row
    ? [['Current', row.current_cents], ['1–30', row.aging_30_cents], ['31–60', row.aging_60_cents], ['61–90', row.aging_90_cents], ['Over 90', (row.aging_120_cents ?? 0) + (row.aging_180_cents ?? 0) + (row.aging_older_cents ?? 0)]]
    : [];
  return (
    <section className="bo-section">
      <Title
        back="/app/customers"
        actions={
          <>
            {can(session, 'collect') && <button type="button" onClick={() => go(`/app/payments/new?customer=${encodeURIComponent(identifier)}`)}>Record a payment</button>}
            {can(session, 'manage') && <button type="button" onClick={() => go(`/app/invoices/new?customer=${encodeURIComponent(identifier)}`)}>New invoice</button>}
            {can(session, 'manage') && <button type="button" onClick={() => go(link('customers', identifier, 'edit'))}>Edit</button>}
          </>
        }
      >
        {data.name} <span className="muted bo-id">· {data.identifier}</span> <span className="pill">{data.account_status}</span>
      </Title>
      <div className="grid">
        <div className="card">
          <h2>Balance</h2>
          {/* The balance comes with the list row: until it is read, say so rather than show a zero the customer does not owe. */}
          <p className="big-figure" aria-label="Balance" aria-busy={!row}>
            {row ? <Money fit cents={row.balance_cents} currency={currency} /> : '…'}
          </p>
          <p className="muted">Unapplied credit: {row ? <Money cents={row.unapplied_payment_cents ?? 0} currency={currency} /> : '…'}</p>
          <p className="muted">Credit limit: {row ? (row.credit_limit_cents ? <Money cents={row.credit_limit_cents} currency={currency} /> : 'none') : '…'}</p>
        </div>
        <div className="card">
          <h2>Aging</h2>
          <dl className="bo-dl" aria-label="Aging">
            {buckets.map(([label, cents]) => (
              <div key={label}>
                <dt>{label}</dt>
                <dd><Money cents={cents ?? 0} currency={currency} /></dd>
              </div>
            ))}
          </dl>
        </div>
        <div className="card">
          <h2>Contact</h2>
          <p>{[data.first_name, data.last_name].filter(Boolean).join(' ') || '—'}</p>
          <p className="muted">{data.email || 'No e-mail'} · {data.telephone || 'no telephone'}</p>
          <p className="muted">{[data.address_1, data.city, data.province, data.postal_code, data.country].filter(Boolean).join(', ')}</p>
          {data.url && <Website url={data.url} />}
          <p className="muted">Last payment: {data.last_payment_date ? `${day(data.last_payment_date)}` : 'none yet'}</p>
        </div>
      </div>
      <div className="bo-detail-grid">
        <InvitationsPanel data={data} />
        <NotesPanel data={data} />
        <HierarchyPanel data={data} />
        {account?.capabilities.wallets && <WalletsPanel identifier={identifier} autopayOn={account.capabilities.autopay} />}
      </div>
      <h2>Open invoices</h2>
      <InvoiceTable filter={{ customer: identifier, status: 'open' }} empty="No open invoice." />
      <h2>Payments</h2>
      <PaymentTable customer={identifier} />
    </section>
  );
}

/** The web site as a link only when it is an http(s) address: one stored before the rule (javascript:) stays text. */
function Website({ url }: { url: string }) {
  const href = webHref(url);
  return (
    <p className="muted">
      Web site: {href ? <a href={href} target="_blank" rel="noopener noreferrer">{url}</a> : url}
    </p>
  );
}

const FIELDS: Array<[name: string, label: string, type?: string]> = [
  ['name', 'Name'],
  ['email', 'E-mail', 'email'],
  ['telephone', 'Telephone'],
  ['address_1', 'Address'],
  ['city', 'City'],
  ['province', 'Province or state'],
  ['postal_code', 'Postal code'],
  ['country', 'Country (2 letters)'],
];

function CustomerForm({ identifier }: { identifier?: string }) {
  const creds = useUser((s) => s.creds);
  const go = useRoute((s) => s.go);
  const { data: account } = useLoad((c) => boCall(c, 'account', {}), []);
  const { data: existing } = useLoad(async (c) => (identifier ? boCall(c, 'customer', { params: { identifier } }) : undefined), [identifier]);
  // The credit limit in cents comes with the list row (the single view has it as the reference's formatted text).
  const { data: row } = useLoad(async (c) => (identifier ? (await boCall(c, 'customers', { query: { q: identifier, limit: 1 } })).items.find((x) => x.identifier === identifier) : undefined), [identifier]);
  const [values, setValues] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const cur = (account?.currency ?? 'usd').toUpperCase();
  const value = (name: string) => values[name] ?? (existing ? String((existing as Record<string, unknown>)[name] ?? '') : '');
  const set = (name: string) => (v: string) => setValues((s) => ({ ...s, [name]: v }));
  const creditText = values.credit_limit ?? (row?.credit_limit_cents ? amountInput(row.credit_limit_cents, cur) : '');
  const savedCredit = row?.credit_limit_cents ? amountInput(row.credit_limit_cents, cur) : '';
  const saved = useUnsavedGuard(Object.entries(values).some(([name, v]) => v !== (name === 'credit_limit' ? savedCredit : existing ? String((existing as Record<string, unknown>)[name] ?? '') : '')));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!creds) return;
    // The last refusal's banner goes with a new try: it may be about a field fixed since.
    setMessage(null);
    const body: Record<string, unknown> = { identifier: identifier ?? value('identifier').trim() };
    for (const [name] of FIELDS) {
      const v = value(name).trim();
      if (v || values[name] !== undefined) body[name] = v;
    }
    const local: Record<string, string> = {};
    if (creditText.trim()) {
      const parsed = parseAmount(creditText, cur);
      if (parsed.ok) body.credit_limit_cents = parsed.minor;
      else local.credit_limit_cents = parsed.message;
    } else if (values.credit_limit !== undefined) body.credit_limit_cents = 0; // emptied: no limit
    setErrors(local);
    if (Object.keys(local).length) return;
    setBusy(true);
    try {
      // A new customer's identifier already in use is refused, not the existing customer overwritten.
      const answer = await boCall(creds, 'saveCustomer', { query: identifier ? {} : { create_only: true }, body: body as BoCall<'saveCustomer'>['body'] });
      saved();
      go(link('customers', answer.identifier), { replace: true });
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
      <Title back="/app/customers">{identifier ? `Edit ${identifier}` : 'New customer'}</Title>
      <form className="card bo-form" onSubmit={(e) => void submit(e)} noValidate>
        <Notice error={message} />
        {!identifier && <Field label="Identifier" name="identifier" value={value('identifier')} onChange={set('identifier')} errors={errors} required hint="The customer number your accounting system uses" />}
        {FIELDS.map(([name, label, type]) => (
          <Field key={name} label={label} name={name} type={type} value={value(name)} onChange={set(name)} errors={errors} required={name === 'name'} />
        ))}
        <Field label={`Credit limit (${cur})`} name="credit_limit_cents" value={creditText} onChange={set('credit_limit')} errors={errors} hint={`For example ${amountInput(250000, cur)}`} />
        <div className="bo-actions">
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save customer'}
          </button>
        </div>
      </form>
    </section>
  );
}
