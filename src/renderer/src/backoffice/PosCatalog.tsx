import { useState, type FormEvent } from 'react';
import { boCall, type BoAnswer } from '../api/backoffice';
import { can, useUser } from '../state/user';
import { amountInput, parseAmount, parsePercent, percentInput, percentText, time, typedCode } from '../format';
import { Field, Money, Notice, fieldErrors, useLoad, usePaged, useUnsavedGuard } from './common';
import { ListFoot, TableScroll } from './DataTable';

type Product = BoAnswer<'posProducts'>['products'][number];
type Cashier = BoAnswer<'posCashiers'>['cashiers'][number];

/** Products a page shows before "Load more". */
const PAGE = 100;

const EMPTY = { code: '', barcode: '', description: '', price: '', tax: '', category: 'General' };

/** The register's catalog: add, edit and deactivate products; prices read in the screen's locale. */
export function ProductsPanel() {
  const { creds, session } = useUser();
  const edit = can(session, 'settings');
  const [q, setQ] = useState('');
  const { rows: products, more, loading, error, reload } = useProductPages(q);
  const { data: account } = useLoad((c) => boCall(c, 'account', {}), []);
  const cur = (account?.currency ?? 'usd').toUpperCase();
  const [form, setForm] = useState(EMPTY);
  // What the form opened with (empty, or the product being edited): anything else typed is unsaved.
  const [startedWith, setStartedWith] = useState(EMPTY);
  useUnsavedGuard((Object.keys(EMPTY) as Array<keyof typeof EMPTY>).some((k) => form[k] !== startedWith[k]));
  const [editing, setEditing] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const set = (k: keyof typeof EMPTY) => (v: string) => setForm((f) => ({ ...f, [k]: v }));
  const start = (p: Product | null) => {
    setErrors({});
    setMessage(null);
    setEditing(p ? p.code : null);
    const opened = p ? { code: p.code, barcode: p.barcode ?? '', description: p.description, price: amountInput(p.price_cents, cur), tax: percentInput(p.tax_rate), category: p.category } : EMPTY;
    setForm(opened);
    setStartedWith(opened);
  };
  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!creds) return;
    const price = parseAmount(form.price, cur);
    const tax = form.tax.trim() ? parsePercent(form.tax, 3) : ({ ok: true, percent: 0 } as const);
    const local: Record<string, string> = {};
    if (!price.ok) local.price_cents = price.message;
    if (!tax.ok) local.tax_rate = tax.message;
    if (!price.ok || !tax.ok) return setErrors(local);
    const fields = { description: form.description.trim(), price_cents: price.minor, tax_rate: tax.percent, category: form.category.trim() || 'General', barcode: typedCode(form.barcode) || null };
    try {
      if (editing) await boCall(creds, 'updateProduct', { params: { code: editing }, body: fields });
      else await boCall(creds, 'createProduct', { body: { code: typedCode(form.code), ...fields } });
      start(null);
      setMessage(`Saved ${form.description.trim()}.`);
      reload();
    } catch (err) {
      const f = fieldErrors(err);
      setErrors(f.fields);
      setMessage(Object.keys(f.fields).length ? null : f.message);
    }
  };
  const toggle = async (p: Product) => {
    if (!creds) return;
    try {
      await boCall(creds, 'updateProduct', { params: { code: p.code }, body: { active: !p.active } });
    } catch (err) {
      setMessage((err as Error).message);
    }
    reload();
  };
  return (
    <>
      <Notice error={error} />
      {message && <p role="status" className="notice info">{message}</p>}
      {edit && (
        <form className="card" aria-label={editing ? `Edit ${editing}` : 'Add a product'} onSubmit={(e) => void save(e)}>
          <h2>{editing ? `Edit ${editing}` : 'Add a product'}</h2>
          <div className="bo-inline">
            {!editing && <Field label="Code" name="code" value={form.code} onChange={set('code')} errors={errors} required />}
            <Field label="Barcode" name="barcode" value={form.barcode} onChange={set('barcode')} errors={errors} hint="EAN-8, UPC-A, EAN-13" />
            <Field label="Name" name="description" value={form.description} onChange={set('description')} errors={errors} required />
            <Field label={`Price (${cur})`} name="price_cents" value={form.price} onChange={set('price')} errors={errors} hint={`e.g. ${amountInput(1250, cur)}`} required />
            <Field label="Tax rate (%)" name="tax_rate" value={form.tax} onChange={set('tax')} errors={errors} hint={`e.g. ${percentInput(13)}`} />
            <Field label="Category" name="category" value={form.category} onChange={set('category')} errors={errors} />
            <button type="submit" className="primary">{editing ? 'Save product' : 'Add product'}</button>
            {editing && <button type="button" onClick={() => start(null)}>Cancel</button>}
          </div>
        </form>
      )}
      <div className="card">
        <div className="bo-title">
          <h2 className="page-title">Products</h2>
          <input aria-label="Search products" placeholder="Name, code, barcode…" value={q} onChange={(e) => setQ(e.target.value)} />
        </div>
        <ProductTable products={products} cur={cur} edit={edit} onEdit={start} onToggle={(p) => void toggle(p)} />
        {!loading && products.length === 0 && <p className="muted">No product{q ? ` matching “${q}”` : ' yet'}.</p>}
        <ListFoot shown={products.length} loading={loading} more={more} />
      </div>
    </>
  );
}

/** Products matching `q`, a page at a time, then "Load more", as Customers and Invoices (a shop's catalog runs to thousands). */
function useProductPages(q: string) {
  return usePaged<Product, string>(
    async (c, after) => {
      const page = await boCall(c, 'posProducts', { query: { include_inactive: true, limit: PAGE, ...(q.trim() ? { q: q.trim() } : {}), ...(after ? { after } : {}) } });
      return { items: page.products, next: page.next ?? null };
    },
    [q],
  );
}

function ProductTable({ products, cur, edit, onEdit, onToggle }: { products: Product[]; cur: string; edit: boolean; onEdit(p: Product): void; onToggle(p: Product): void }) {
  // Wider than a 1024-px window with its buttons: it scrolls inside its card (TableScroll), as the other tables do, not the page.
  return (
    <TableScroll>
      <table className="bo-simple" aria-label="Products">
        <thead><tr><th>Code</th><th>Barcode</th><th>Name</th><th>Category</th><th className="num">Price</th><th className="num">Tax</th><th>State</th>{edit && <th />}</tr></thead>
        <tbody>
          {products.map((p) => (
            <tr key={p.code} className={p.active ? undefined : 'inactive'}>
              <td>{p.code}</td><td>{p.barcode ?? '—'}</td><td>{p.description}</td><td>{p.category}</td>
              <td className="num"><Money cents={p.price_cents} currency={cur} /></td><td className="num">{percentText(p.tax_rate)}</td>
              <td>{p.active ? 'Active' : 'Inactive'}</td>
              {edit && (
                <td>
                  <div className="bo-actions">
                    <button type="button" aria-label={`Edit ${p.code}`} onClick={() => onEdit(p)}>Edit</button>
                    <button type="button" className={p.active ? 'danger' : undefined} onClick={() => onToggle(p)}>{p.active ? 'Deactivate' : 'Reactivate'}</button>
                  </div>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

/** Cashiers: add, rename, reset the code (shown once), make a supervisor (approves refunds and voids), deactivate. */
export function CashiersPanel() {
  const { creds, session } = useUser();
  const edit = can(session, 'settings');
  const { data, error, reload } = useLoad((c) => boCall(c, 'posCashiers', {}), []);
  const [name, setName] = useState('');
  const [supervisor, setSupervisor] = useState(false);
  useUnsavedGuard(name.trim() !== '');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [shown, setShown] = useState<{ name: string; code: string } | null>(null);
  const [renaming, setRenaming] = useState<{ id: string; name: string } | null>(null);
  const add = async (e: FormEvent) => {
    e.preventDefault();
    if (!creds) return;
    try {
      // Laneway makes the code and answers it this once; the screen only shows it.
      const made = await boCall(creds, 'createCashier', { body: { name: name.trim(), supervisor } });
      if (made.code) setShown({ name: made.name, code: made.code });
      setName('');
      setSupervisor(false);
      setErrors({});
      setMessage(null);
      reload();
    } catch (err) {
      const f = fieldErrors(err);
      setErrors(f.fields);
      setMessage(f.message);
    }
  };
  const change = async (c: Cashier, patch: CashierChange) => {
    if (!creds) return;
    try {
      if (patch === 'new-code') {
        const after = await boCall(creds, 'resetCashierCode', { params: { id: c.id } });
        if (after.code) setShown({ name: after.name, code: after.code });
      } else await boCall(creds, 'updateCashier', { params: { id: c.id }, body: patch });
      setMessage(null);
      setRenaming(null);
    } catch (err) {
      setMessage((err as Error).message);
    }
    reload();
  };
  return (
    <>
      <Notice error={error ?? message} />
      {shown && (
        <div className="notice info" role="status">
          Sign-in code for {shown.name} (shown once; the register keeps only a hash): <code className="bo-secret">{shown.code}</code>
        </div>
      )}
      {edit && (
        <form className="card bo-inline" aria-label="Add a cashier" onSubmit={(e) => void add(e)}>
          <Field label="Cashier name" name="name" value={name} onChange={setName} errors={errors} required />
          <label className="bo-check">
            <input type="checkbox" checked={supervisor} onChange={(e) => setSupervisor(e.target.checked)} /> Supervisor: approves refunds and voids
          </label>
          <button type="submit" className="primary">Add cashier</button>
        </form>
      )}
      <div className="card">
        <p className="muted">A cashier who is not a supervisor gives money back (a refund, the void of a paid sale) only once a supervisor types their code at the register.</p>
        <table className="bo-simple" aria-label="Cashiers">
          <thead><tr><th>Name</th><th>Last sign-in</th><th>Supervisor</th><th>State</th>{edit && <th />}</tr></thead>
          <tbody>
            {(data?.cashiers ?? []).map((c) => (
              <CashierRow key={c.id} c={c} edit={edit} renaming={renaming} setRenaming={setRenaming} change={(patch) => void change(c, patch)} />
            ))}
          </tbody>
        </table>
        {data && data.cashiers.length === 0 && <p className="muted">No cashier yet.</p>}
      </div>
    </>
  );
}

type CashierChange = { name?: string; active?: boolean; supervisor?: boolean } | 'new-code';

function CashierRow(props: { c: Cashier; edit: boolean; renaming: { id: string; name: string } | null; setRenaming(r: { id: string; name: string } | null): void; change(patch: CashierChange): void }) {
  const { c, edit, renaming, setRenaming, change } = props;
  return (
    <tr className={c.active ? undefined : 'inactive'}>
      <td>
        {renaming?.id === c.id ? (
          <form className="bo-inline" onSubmit={(e) => (e.preventDefault(), change({ name: renaming.name.trim() }))}>
            <input aria-label={`New name for ${c.name}`} value={renaming.name} onChange={(e) => setRenaming({ id: c.id, name: e.target.value })} autoFocus />
            <button type="submit">Save</button>
            <button type="button" onClick={() => setRenaming(null)}>Cancel</button>
          </form>
        ) : c.name}
      </td>
      <td>{c.last_sign_in_at ? time(c.last_sign_in_at) : '—'}</td>
      <td>{c.supervisor ? 'Yes' : 'No'}</td>
      <td>{c.active ? 'Active' : 'Inactive'}</td>
      {edit && (
        <td>
          <div className="bo-actions">
            <button type="button" onClick={() => setRenaming({ id: c.id, name: c.name })}>Rename</button>
            <button type="button" onClick={() => change({ supervisor: !c.supervisor })}>{c.supervisor ? 'No longer supervisor' : 'Make supervisor'}</button>
            <button type="button" onClick={() => change('new-code')}>Reset code</button>
            <button type="button" className={c.active ? 'danger' : undefined} onClick={() => change({ active: !c.active })}>{c.active ? 'Deactivate' : 'Reactivate'}</button>
          </div>
        </td>
      )}
    </tr>
  );
}
