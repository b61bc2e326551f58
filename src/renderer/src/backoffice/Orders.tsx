import { useMemo, useState } from 'react';
import { bankLabel, cardLabel } from '../../../shared/card-brands';
import { signedCents } from '../../../shared/money-moves';
import { boCall, type BoAnswer } from '../api/backoffice';
import { link, useRoute } from '../state/route';
import { can, useUser } from '../state/user';
import { amountInput, fromDecimal, money, orderStateText, parseAmount, transactionActionText, transactionStateText } from '../format';
import { DataTable, moneyWidths, type Columns } from './DataTable';
import { Confirm, InApp, Money, Notice, Title, day, useLoad, usePaged } from './common';

type Row = BoAnswer<'orders'>['items'][number];
type Txn = BoAnswer<'transaction'>;
type OrderTxn = { token: string; action: string | null; state: string; amount_in_cents: number; currency: string | null; created_at: string };

const columns: Columns<Row> = [
  { accessorKey: 'identifier', header: 'Order' },
  { accessorKey: 'number', header: 'Number', cell: (c) => c.row.original.number ?? '—' },
  { accessorKey: 'customer_identifier', header: 'Customer', cell: (c) => c.row.original.customer_identifier ?? '—' },
  { accessorKey: 'created_at', header: 'Created', cell: (c) => day(c.row.original.created_at) },
  { accessorKey: 'state', header: 'State', cell: (c) => orderStateText(c.row.original.state) },
  { accessorKey: 'amount_cents', header: 'Amount', cell: (c) => <Money cents={c.row.original.amount_cents} currency={c.row.original.currency} /> },
  {
    accessorKey: 'refunded_cents',
    header: 'Refunded',
    cell: (c) => (c.row.original.refunded_cents > 0 ? <Money cents={-c.row.original.refunded_cents} currency={c.row.original.currency} /> : '—'),
  },
];

/** Never cut: an order's identifier or day cut short reads as another one. */
const WHOLE: Record<string, (r: Row) => string> = { identifier: (r) => r.identifier, number: (r) => r.number ?? '—', customer_identifier: (r) => r.customer_identifier ?? '—', created_at: (r) => day(r.created_at) };
const MONEY: Record<string, (r: Row) => [number | null, string | null]> = { amount_cents: (r) => [r.amount_cents, r.currency], refunded_cents: (r) => [r.refunded_cents > 0 ? -r.refunded_cents : null, r.currency] };

type LooseTxn = BoAnswer<'transactions'>['items'][number];

const looseColumns: Columns<LooseTxn> = [
  { accessorKey: 'token', header: 'Transaction' },
  { accessorKey: 'method', header: 'Paid with' },
  { accessorKey: 'action', header: 'Action', cell: (c) => transactionActionText(c.row.original.action) },
  { accessorKey: 'state', header: 'State', cell: (c) => (c.row.original.refunded_cents > 0 ? `${transactionStateText(c.row.original.state)}, ${c.row.original.refunded_cents >= c.row.original.amount_cents ? 'refunded' : 'part refunded'}` : transactionStateText(c.row.original.state)) },
  { accessorKey: 'created_at', header: 'When', cell: (c) => day(c.row.original.created_at) },
  { accessorKey: 'amount_cents', header: 'Amount', cell: (c) => <Money cents={signedCents(c.row.original.action, c.row.original.amount_cents)} currency={c.row.original.currency} /> },
];
const LOOSE_WHOLE: Record<string, (t: LooseTxn) => string> = { token: (t) => t.token, created_at: (t) => day(t.created_at) };
const LOOSE_MONEY: Record<string, (t: LooseTxn) => [number, string | null]> = { amount_cents: (t) => [signedCents(t.action, t.amount_cents), t.currency] };

export function OrdersSection({ rest }: { rest: string[] }) {
  if (rest[0] === 'transactions' && rest[1]) return <TransactionDetail token={rest[1]} />;
  if (rest[0]) return <OrderDetail identifier={rest[0]} />;
  return <OrderLists />;
}

function OrderLists() {
  const go = useRoute((s) => s.go);
  const { rows, more, loading, error } = usePaged<Row, number>((creds, before) => boCall(creds, 'orders', { query: { ...(before ? { before } : {}), limit: 100 } }), []);
  const loose = usePaged<LooseTxn, number>((creds, before) => boCall(creds, 'transactions', { query: { ...(before ? { before } : {}), limit: 100 } }), []);
  const widths = useMemo(() => moneyWidths(columns, rows, MONEY), [rows]);
  const looseWidths = useMemo(() => moneyWidths(looseColumns, loose.rows, LOOSE_MONEY), [loose.rows]);
  return (
    <section className="bo-section">
      <Title>Orders</Title>
      <Notice error={error} />
      <DataTable numeric={widths} whole={WHOLE} label="Orders" columns={columns} rows={rows} more={more} loading={loading} onOpen={(r) => go(link('orders', r.identifier))} empty="No order yet." />
      {/* A card sale sent without an order (an API client's, a terminal's) is on no order: it is listed here. */}
      <h2>Transactions without an order</h2>
      <Notice error={loose.error} />
      <DataTable numeric={looseWidths} whole={LOOSE_WHOLE} label="Transactions without an order" columns={looseColumns} rows={loose.rows} more={loose.more} loading={loose.loading} onOpen={(t) => go(link('orders', 'transactions', t.token))} empty="No transaction without an order." />
    </section>
  );
}

function OrderDetail({ identifier }: { identifier: string }) {
  const go = useRoute((s) => s.go);
  const { data, error } = useLoad((creds) => boCall(creds, 'order', { params: { identifier } }), [identifier]);
  if (error) return <Notice error={error} />;
  if (!data) return <p className="muted">Loading…</p>;
  // A register sale's order: its tenders and refunds are the register's (cash takes no gateway transaction).
  const lane = typeof data.attributes?.pos_lane === 'string' ? data.attributes.pos_lane : null;
  return (
    <section className="bo-section">
      <Title back="/app/orders">Order {data.identifier}</Title>
      <div className="card">
        <p>
          <Money cents={data.amount_cents} currency={data.currency} /> {data.customer_identifier && <span className="muted">· customer {data.customer_identifier}</span>}
        </p>
      </div>
      {lane && <RegisterSale sale={data.identifier} />}
      <div className="card">
        <h2>Transactions</h2>
        {data.transactions.length === 0 ? <p className="muted">{lane ? 'No card or gift card payment: what the register took is above.' : 'No transaction on this order.'}</p> : (
          <table className="bo-simple">
            <thead><tr><th>Token</th><th>Action</th><th>State</th><th>Amount</th><th>When</th></tr></thead>
            <tbody>
              {(data.transactions as OrderTxn[]).map((t) => (
                <tr key={t.token} tabIndex={0} className="clickable" onClick={() => go(link('orders', 'transactions', t.token))} onKeyDown={(e) => e.key === 'Enter' && go(link('orders', 'transactions', t.token))}>
                  <td>{t.token}</td><td>{transactionActionText(t.action)}</td><td>{transactionStateText(t.state)}</td><td><Money cents={signedCents(t.action, t.amount_in_cents)} currency={t.currency} /></td><td>{day(t.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </section>
  );
}

/** What the register took and gave back on a sale, as its receipts say: each tender, then each refund or void. */
function RegisterSale({ sale }: { sale: string }) {
  const { data } = useLoad((c) => boCall(c, 'registerSale', { params: { sale } }), [sale]);
  if (!data) return null;
  const cur = data.currency;
  const taken = data.tenders.filter((t) => t.status === 'approved' || t.status === 'reversed');
  const back = data.reversals.filter((r) => r.status !== 'planned');
  return (
    <div className="card" aria-label="At the register">
      <h2>At the register</h2>
      <p>
        Receipt {data.number} · lane {data.laneid} · {data.cashier.name} · {day(data.at)} <span className="pill" data-testid="sale-state">{orderStateText(data.status)}</span>
      </p>
      <table className="bo-simple">
        <tbody>
          {taken.map((t) => (
            <tr key={t.id}><td>Paid</td><td>{t.label}</td><td className="num"><Money cents={t.amount_cents} currency={cur} /></td></tr>
          ))}
          {back.map((r) => (
            <tr key={r.id}><td>{r.kind === 'void' ? 'Voided' : 'Refunded'}</td><td>{r.document}{r.status === 'incomplete' ? ' (not all of it went back)' : ''}</td><td className="num"><Money cents={-r.refunded_cents} currency={cur} /></td></tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

type Move = 'capture' | 'void' | 'refund';

/** "Visa •••• 0006", "Bank account •••• 0016": what paid, as a person names it (never a token). */
function methodText(t: Txn): string {
  if (t.credit_card_masked_number) return cardLabel(t.credit_card_brand ?? 'unknown', t.credit_card_masked_number.slice(-4));
  if (t.bank_account_masked_number) return bankLabel(t.bank_account_masked_number.slice(-4));
  return t.payment_method.replace(/_/g, ' ');
}

/**
 * Which money moves a transaction offers; the engine decides whether each one is allowed. A void
 * only before the cut-off batches it and before any refund; a refund while something is left to
 * refund.
 */
function movesOf(t: Txn): Move[] {
  if (t.state !== 'completed') return [];
  if (t.authorization && t.authorization.remaining_cents > 0) return ['capture', 'void'];
  if (!['sale', 'capture'].includes(t.action ?? '') || t.voided_by) return [];
  const moves: Move[] = [];
  if (t.settlement.status === 'pending' && t.refunded_cents === 0) moves.push('void');
  if (t.refunded_cents < t.amount_in_cents) moves.push('refund');
  return moves;
}

/** The gateway's refusals (the reference's shape carries a code only) in words. */
const REFUSALS: Record<string, string> = {
  amount_exceeds_refundable: 'That is more than is left to refund on this transaction.',
  amount_exceeds_authorization: 'That is more than is left to capture on this authorization.',
  void_window_closed: 'This transaction was already batched at the cut-off: it can no longer be voided. Refund it instead.',
  transaction_charged_back: 'The card holder charged this transaction back: the money is already returned to them, so it cannot be refunded.',
  transaction_already_voided: 'This transaction was already voided.',
  transaction_not_settled: 'This bank payment has not settled yet: void it before the cut-off, or refund it once it settles.',
  invalid_amount: 'Type an amount above zero.',
};
const refusalText = (err: unknown) => {
  const e = err as { code?: string; message?: string };
  return (e.code && REFUSALS[e.code]) ?? e.message ?? String(err);
};

/** One invoicing payment the sale paid: whose, and the invoices it pays now. */
function PaidPayment({ reference }: { reference: string }) {
  const { data } = useLoad((c) => boCall(c, 'payment', { params: { reference_or_token: reference }, query: {} }), [reference]);
  const cur = data?.currency.toUpperCase() ?? '';
  const paid = (data?.payment_amounts ?? []).filter((a) => (fromDecimal(a.amount, cur) ?? 0) !== 0);
  return (
    <li>
      <InApp to={link('payments', reference)}>Payment {reference}</InApp>
      {data && (
        <>
          {' '}from <InApp to={link('customers', data.customer_identifier)}>{data.customer_name || data.customer_identifier}</InApp>
          {paid.length > 0 ? ': ' : ' · nothing applied to an invoice now'}
          {paid.map((a, i) => (
            <span key={`${a.invoice_number}-${i}`}>
              {i > 0 && ', '}
              <InApp to={link('invoices', a.invoice_number ?? '')}>Invoice {a.invoice_number}</InApp> <Money cents={fromDecimal(a.amount, cur)} currency={cur} />
            </span>
          ))}
        </>
      )}
    </li>
  );
}

/** The invoicing payments a sale was recorded as (a pay link's, autopay's): what a refund takes money off. */
function InvoicesPaid({ payments }: { payments: Txn['payments'] }) {
  if (payments.length === 0) return null;
  return (
    <div className="card" aria-label="Invoices paid">
      <h2>Invoices paid</h2>
      <ul>
        {payments.map((p) => <PaidPayment key={p.identifier} reference={p.identifier} />)}
      </ul>
    </div>
  );
}

/**
 * What the refund or void asked about puts back owing, as the engine works it out (the rule the
 * refund itself follows); `cents` null is the void of the whole sale.
 */
function OwedAgainNote({ token, cents }: { token: string; cents: number | null }) {
  const { data, error } = useLoad((c) => boCall(c, 'owedAgain', { params: { token }, query: cents === null ? {} : { amount_cents: cents } }), [token, cents]);
  if (error) return <p className="error small">What the invoices will owe cannot be read: {error}</p>;
  if (!data) return <p className="muted small">Reading the invoices it paid…</p>;
  if (data.payments.length === 0) return <p aria-label="Owed again">No invoice goes back to owing: it comes off the credit the payment left on account.</p>;
  return (
    <p aria-label="Owed again">
      {data.payments.flatMap((p) =>
        p.invoices.map((i) => (
          <span key={`${p.payment_reference}-${i.invoice_number}`}>
            Invoice <strong>{i.display_number}</strong> ({p.customer_name || p.customer_identifier}) will owe <strong>{money(i.owed_again_cents, p.currency.toUpperCase())}</strong> again.{' '}
          </span>
        )),
      )}
    </p>
  );
}

function TransactionDetail({ token }: { token: string }) {
  const { creds, session } = useUser();
  const { data, error, reload } = useLoad((c) => boCall(c, 'transaction', { params: { token_or_reference: token } }), [token]);
  const [move, setMove] = useState<Move | null>(null);
  const [amount, setAmount] = useState('');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  if (error) return <Notice error={error} />;
  if (!data) return <p className="muted">Loading…</p>;
  const cur = (data.currency ?? 'usd').toUpperCase();
  const allowed = can(session, 'money');
  const auth = data.authorization;
  // Voiding an authorization releases what is still held; what was captured stays captured.
  const voids = auth ? auth.remaining_cents : data.amount_in_cents;
  const left = move === 'capture' ? (auth?.remaining_cents ?? 0) : move === 'refund' ? data.amount_in_cents - data.refunded_cents : voids;
  const parsed = amount.trim() ? parseAmount(amount, cur) : null;
  const cents = move === 'void' ? voids : parsed?.ok ? parsed.minor : left;
  const tooMuch = move !== 'void' && (cents > left || cents <= 0);
  const run = async () => {
    if (!creds || !move) return;
    setBusy(true);
    try {
      const body = { transaction: data.token, ...(move !== 'void' ? { amount_cents: cents } : {}) };
      const r = await boCall(creds, move, { body });
      setOutcome(r.success ? { ok: true, text: `${move === 'void' ? (auth ? 'Released' : 'Voided') : move === 'refund' ? 'Refunded' : 'Captured'} ${money(cents, cur)}.` } : { ok: false, text: `Declined: ${r.response_code ?? 'refused'}` });
    } catch (err) {
      setOutcome({ ok: false, text: refusalText(err) });
    } finally {
      setBusy(false);
      setMove(null);
      setAmount('');
      reload();
    }
  };
  return (
    <section className="bo-section">
      <Title back="/app/orders" actions={allowed && movesOf(data).map((m) => <button key={m} type="button" className={m === 'capture' ? 'primary' : 'danger'} onClick={() => (setOutcome(null), setMove(m))}>{m[0]!.toUpperCase() + m.slice(1)}</button>)}>
        Transaction {data.token} <span className="pill">{transactionActionText(data.action)}</span> <span className="pill">{auth && data.state === 'completed' ? auth.status : transactionStateText(data.state)}</span>
      </Title>
      {outcome && <p role="status" className={`notice ${outcome.ok ? 'ok' : 'error'}`}>{outcome.text}</p>}
      <div className="grid">
        <div className="card">
          <h2>Amount</h2>
          <p className="big-figure"><Money fit cents={signedCents(data.action, data.amount_in_cents)} currency={cur} /></p>
          {auth ? (
            <p className="muted" aria-label="Authorization">
              Captured <Money cents={auth.captured_cents} currency={cur} /> · {auth.remaining_cents > 0 ? 'still held' : 'released'} <Money cents={auth.remaining_cents > 0 ? auth.remaining_cents : auth.voided_cents + auth.released_cents} currency={cur} />
            </p>
          ) : (
            <p className="muted">Refunded <Money cents={data.refunded_cents} currency={cur} />{data.voided_by ? ` · voided by ${data.voided_by}` : ''}</p>
          )}
        </div>
        <div className="card">
          <h2>{data.payment_method === 'bank_account' ? 'Bank account' : 'Card'}</h2>
          <p>{methodText(data)}</p>
          <p className="muted">{[day(data.created_at), data.message].filter(Boolean).join(' · ')}</p>
        </div>
      </div>
      <InvoicesPaid payments={data.payments} />
      {move && (
        <Confirm
          // While the amount typed cannot be read, the title names no amount rather than the whole one.
          title={`${move[0]!.toUpperCase() + move.slice(1)} ${(parsed && !parsed.ok) || tooMuch ? 'how much' : money(cents, cur)}?`}
          fieldFirst={move !== 'void'}
          danger={move !== 'capture'}
          busy={busy || (parsed !== null && !parsed.ok) || tooMuch}
          confirm={`${move[0]!.toUpperCase() + move.slice(1)} ${money(cents, cur)}`}
          onCancel={() => setMove(null)}
          onConfirm={() => void run()}
          body={
            <>
              <p>
                {move === 'void'
                  ? auth && auth.captured_cents > 0
                    ? `What is still held is released; the ${money(auth.captured_cents, cur)} captured stays captured`
                    : auth
                      ? 'The authorization is cancelled'
                      : 'The whole transaction is cancelled'
                  : `Up to ${money(left, cur)} can be ${move === 'refund' ? 'refunded' : 'captured'}`}
                {/* An amount that cannot be taken is not shown as what the card holder will see. */}
                {(parsed && !parsed.ok) || tooMuch ? '.' : <>: the card holder sees <strong>{money(cents, cur)}</strong>{move === 'void' && auth ? ' released' : ''}.</>}
              </p>
              {/* Money given back on a sale that paid invoices leaves them owing: said before, not found later. */}
              {move !== 'capture' && !auth && data.payments.length > 0 && !((parsed && !parsed.ok) || tooMuch) && <OwedAgainNote token={data.token} cents={move === 'void' ? null : cents} />}
              {move !== 'void' && (
                <label className="bo-field">
                  Amount ({cur})
                  <input aria-label="Amount" value={amount} placeholder={amountInput(left, cur)} onChange={(e) => setAmount(e.target.value)} />
                  {parsed && !parsed.ok && <span className="error small">{parsed.message}</span>}
                  {parsed?.ok && tooMuch && <span className="error small">{cents <= 0 ? 'Type an amount above zero.' : `At most ${money(left, cur)}.`}</span>}
                </label>
              )}
            </>
          }
        />
      )}
    </section>
  );
}
