import { Fragment, useEffect, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, Pie, PieChart, ResponsiveContainer, Tooltip, XAxis, YAxis, Cell } from 'recharts';
import { boCall, type BoAnswer } from '../api/backoffice';
import { backofficeRoutes } from '../../../shared/api/backoffice-routes';
import { link, useRoute } from '../state/route';
import { can, useUser } from '../state/user';
import { exceptionTypeText, money, moneyShort, time, transactionActionText } from '../format';
import { brandName, paidWith, tenderGroupName } from '../../../shared/card-brands';
import { signedCents } from '../../../shared/money-moves';
import { Confirm, Money, Notice, Title, day, useLoad } from './common';
import { TableScroll } from './DataTable';
import './operations.css';

type Page<T> = Record<string, T> | T[];
type Batch = Extract<BoAnswer<'batches'>['batches'], unknown[]>[number];
type Exception = Extract<BoAnswer<'exceptions'>['exceptions'], unknown[]>[number];
type Statement = Extract<BoAnswer<'statements'>['statements'], unknown[]>[number];

// An export page is keyed by watermark unless `list=true`; the screens ask for lists but read both.
const rowsOf = <T,>(page: Page<T>): T[] => (Array.isArray(page) ? page : Object.values(page));
const COLORS = ['#1f5eff', '#1a8a4a', '#c77700', '#8a3ffc', '#d12771', '#5a6270'];

/** Settlement: the daily batch deposits, their exceptions, monthly statements and the volume charts. */
export function SettlementSection({ rest }: { rest: string[] }) {
  if (rest[0] === 'statements' && rest[1]) return <StatementView identifier={rest[1]} />;
  return <SettlementHome />;
}

function SettlementHome() {
  const { data: batches, error } = useLoad((c) => boCall(c, 'batches', { query: { list: true, limit: 500 } }), []);
  const { data: exceptions } = useLoad((c) => boCall(c, 'exceptions', { query: { list: true, limit: 500 } }), []);
  const { data: statements } = useLoad((c) => boCall(c, 'statements', { query: { list: true, limit: 100 } }), []);
  const rows = batches ? rowsOf(batches.batches).sort((a, b) => b.processing_date.localeCompare(a.processing_date) || b.token.localeCompare(a.token)) : [];
  return (
    <section className="bo-section">
      <Title>Settlement</Title>
      <ClockBanner />
      <Notice error={error} />
      {rows.length > 0 && <Charts batches={rows} />}
      <Batches rows={rows} loading={!batches} />
      <Exceptions rows={exceptions ? rowsOf(exceptions.exceptions) : []} />
      <Statements rows={statements ? rowsOf(statements.statements) : []} />
    </section>
  );
}

/** How far the clock is ahead, in words, to the minute (a move of one day reads "1 day", not the "23 h 59 min" the request's seconds leave). */
function aheadWords(offsetSeconds: number): string {
  const minutes = Math.round(offsetSeconds / 60);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
  if (days > 0) return hours > 0 ? `${plural(days, 'day')} ${plural(hours, 'hour')}` : plural(days, 'day');
  return hours > 0 ? `${plural(hours, 'hour')} ${plural(minutes % 60, 'minute')}` : plural(minutes % 60, 'minute');
}

/** Says plainly when the sandbox is not at the real time; owners and managers may move it on, once they confirm. */
function ClockBanner() {
  const { creds, session } = useUser();
  const { data: status, reload } = useLoad((c) => boCall(c, 'status', {}), []);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [asked, setAsked] = useState<{ by: string; words: string } | null>(null);
  if (!status) return null;
  const offset = status.clock_offset_seconds ?? 0;
  const sandbox = status.environment === 'sandbox';
  const move = async (by: string) => {
    if (!creds) return;
    setBusy(true);
    try {
      await boCall(creds, 'advanceClock', { body: { by } });
      setError(null);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
      setAsked(null);
      reload();
    }
  };
  // The shop's time, its zone named when the reader's computer is in another (as every screen
  // writes a time): "here" beside a time of another zone read as the reader's own.
  const now = time(status.now);
  return (
    <>
      {offset > 0 && (
        <p role="status" className="notice warn" aria-label="Sandbox clock">
          The sandbox clock is moved {aheadWords(offset)} ahead of the real time: in the shop it is now {now}. Cut-offs, deposits and statements follow this time.
        </p>
      )}
      {sandbox && can(session, 'settings') && (
        <div className="bo-actions bo-clock" aria-label="Move the sandbox clock">
          <span className="muted small">Sandbox clock</span>
          <button type="button" disabled={busy} onClick={() => setAsked({ by: 'P1D', words: '1 day' })}>Advance 1 day</button>
          <button type="button" disabled={busy} onClick={() => setAsked({ by: 'P7D', words: '1 week' })}>Advance 1 week</button>
          {busy && <span className="muted small">Running the cut-offs…</span>}
        </div>
      )}
      {asked && (
        <Confirm
          title={`Move the sandbox clock ${asked.words} ahead?`}
          body={
            <>
              <p>
                In the shop it is now {now}. Every cut-off in that time runs as it would have: open batches close, deposits are made and statements are issued. The clock only moves forward: it cannot be put back.
              </p>
              <p>Autopay runs too: customers with autopay on are charged, on their saved card or bank account, for the invoices that fall due in that time.</p>
            </>
          }
          confirm={`Advance ${asked.words}`}
          cancelFirst
          busy={busy}
          onCancel={() => setAsked(null)}
          onConfirm={() => void move(asked.by)}
        />
      )}
      <Notice error={error} />
    </>
  );
}

function Charts({ batches }: { batches: Batch[] }) {
  const cur = (batches[0]?.currency ?? 'usd').toUpperCase();
  const days = new Map<string, { day: string; sales: number; refunds: number }>();
  const brands = new Map<string, number>();
  const tenders = new Map<string, number>();
  for (const b of [...batches].reverse()) {
    if (b.currency.toUpperCase() !== cur) continue;
    const d = days.get(b.processing_date) ?? { day: b.processing_date, sales: 0, refunds: 0 };
    d.sales += b.sales_cents;
    d.refunds += b.refunds_cents;
    days.set(b.processing_date, d);
    for (const v of b.count_by_brand) brands.set(brandName(v.brand), (brands.get(brandName(v.brand)) ?? 0) + v.sales_cents);
    tenders.set(tenderGroupName(b.payment_method_group), (tenders.get(tenderGroupName(b.payment_method_group)) ?? 0) + b.sales_cents);
  }
  const fmt = (v: unknown) => money(Number(v), cur);
  const dayList = [...days.values()].slice(-31);
  // Room for the longest tick ("1,4 k $ US" in fr-CA), a little above the largest day.
  const axis = Math.max(60, (moneyShort(Math.max(0, ...dayList.map((d) => Math.max(d.sales, d.refunds))), cur).length + 2) * 9);
  const pie = (m: Map<string, number>) => [...m].filter(([, v]) => v > 0).map(([name, value]) => ({ name, value }));
  return (
    <div className="bo-charts">
      <div className="card" aria-label="Daily volume">
        <h2>Daily volume</h2>
        <ResponsiveContainer width="100%" height={200}>
          <BarChart data={dayList}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="day" tickFormatter={(d: string) => day(d)} />
            <YAxis width={axis} tickFormatter={(v: number) => moneyShort(v, cur)} />
            <Tooltip formatter={fmt} />
            <Legend />
            <Bar dataKey="sales" name="Sales" fill={COLORS[0]} radius={[4, 4, 0, 0]} isAnimationActive={false} />
            <Bar dataKey="refunds" name="Refunds" fill={COLORS[2]} radius={[4, 4, 0, 0]} isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
      {[['Mix by card brand', brands], ['Mix by tender', tenders]].map(([title, m]) => (
        <div className="card" key={title as string} aria-label={title as string}>
          <h2>{title as string}</h2>
          <ResponsiveContainer width="100%" height={200}>
            <PieChart>
              {/* Radii in parts of the room the card leaves (a third of the row at 1024 wide), not pixels that overflow it. */}
              <Pie data={pie(m as Map<string, number>)} dataKey="value" nameKey="name" innerRadius="60%" outerRadius="90%" isAnimationActive={false}>
                {pie(m as Map<string, number>).map((_, i) => <Cell key={i} fill={COLORS[i % COLORS.length]} />)}
              </Pie>
              <Tooltip formatter={fmt} />
              <Legend />
            </PieChart>
          </ResponsiveContainer>
        </div>
      ))}
    </div>
  );
}

function Batches({ rows, loading }: { rows: Batch[]; loading: boolean }) {
  const [open, setOpen] = useState<string | null>(null);
  return (
    <div className="card">
      <h2>Batch deposits</h2>
      {rows.length === 0 ? (
        <p className="muted">{loading ? 'Loading…' : 'No batch closed yet: batches close at the processing cut-off.'}</p>
      ) : (
        <TableScroll>
          <table className="bo-simple" aria-label="Batch deposits">
            <thead><tr><th>Date</th><th>Merchant</th><th>Tender</th><th className="num">Sales</th><th className="num">Refunds</th><th className="num">Fees</th><th className="num">Net deposit</th><th>Deposit date</th></tr></thead>
            <tbody>
              {rows.map((b) => (
                <Fragment key={b.token}>
                  <tr tabIndex={0} className="clickable" aria-expanded={open === b.token} onClick={() => setOpen(open === b.token ? null : b.token)} onKeyDown={(e) => e.key === 'Enter' && setOpen(open === b.token ? null : b.token)}>
                    <td className="nowrap">{day(b.processing_date)}</td>
                    <td>{b.mid} <span className="muted small">{b.merchant_account_token}</span></td>
                    <td>{tenderGroupName(b.payment_method_group)}</td>
                    <td className="num"><Money cents={b.sales_cents} currency={b.currency} /> <span className="muted small">×{b.sales_count}</span></td>
                    <td className="num"><Money cents={-b.refunds_cents} currency={b.currency} /></td>
                    <td className="num"><Money cents={-b.fees_cents} currency={b.currency} /></td>
                    <td className="num"><strong><Money cents={b.deposit_amount_cents} currency={b.deposit_currency} /></strong></td>
                    <td className="nowrap">{day(b.batch_deposit_date)}</td>
                  </tr>
                  {open === b.token && (
                    <tr className="bo-expanded">
                      <td colSpan={8}>
                        <table className="bo-simple" aria-label={`Transactions of ${b.token}`}>
                          <thead><tr><th>Transaction</th><th>Action</th><th>Card</th><th>Order</th><th className="num">Amount</th></tr></thead>
                          <tbody>
                            {(b.transactions ?? []).map((t) => (
                              <tr key={t.token}>
                                <td>{t.token}</td><td>{transactionActionText(t.action)}</td><td>{paidWith(t.payment_method, t.card_brand)}</td>
                                <td>{t.orders.map((o) => o.identifier).join(', ') || '—'}</td>
                                <td className="num"><Money cents={signedCents(t.action, t.amount_cents)} currency={t.currency} /></td>
                              </tr>
                            ))}
                          </tbody>
                        </table>
                      </td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </div>
  );
}

function Exceptions({ rows }: { rows: Exception[] }) {
  const go = useRoute((s) => s.go);
  return (
    <div className="card">
      <h2>Exceptions</h2>
      {rows.length === 0 ? <p className="muted">No ACH return or chargeback.</p> : (
        <TableScroll>
          <table className="bo-simple" aria-label="Exceptions">
            <thead><tr><th>Date</th><th>Type</th><th>Reason</th><th>Original transaction</th><th>Order</th><th className="num">Amount</th></tr></thead>
            <tbody>
              {rows.map((x) => {
                const t = x.exception_transaction;
                return (
                  <tr key={`${x.exception_type}:${t.token}:${x.exception_date}`}>
                    <td className="nowrap">{day(x.exception_date)}</td>
                    <td><span className="pill" title={x.exception_type}>{exceptionTypeText(x.exception_type)}</span></td>
                    {/* The description often starts with its code ("10.4 Other Fraud"): the code is not said twice. */}
                    <td>{x.exception_description.startsWith(x.reason_code) ? x.exception_description : `${x.reason_code} ${x.exception_description}`}</td>
                    <td><a href={link('orders', 'transactions', t.token)} onClick={(e) => (e.preventDefault(), go(link('orders', 'transactions', t.token)))}>{t.token}</a> <span className="muted small">{transactionActionText(t.action)} · {day(t.processing_date)}</span></td>
                    <td>{t.order ? <a href={link('orders', t.order.identifier)} onClick={(e) => (e.preventDefault(), go(link('orders', t.order!.identifier)))}>{t.order.identifier}</a> : '—'}</td>
                    <td className="num"><Money cents={-x.exception_amount_in_cents} currency={t.currency} /></td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
      )}
    </div>
  );
}

function Statements({ rows }: { rows: Statement[] }) {
  const go = useRoute((s) => s.go);
  const open = (id: string) => go(link('settlement', 'statements', id));
  return (
    <div className="card">
      <div className="bo-title">
        <h2 className="page-title">Monthly statements</h2>
        <button type="button" onClick={() => open('sample')}>Open the sample statement</button>
      </div>
      {rows.length === 0 ? <p className="muted">No month closed yet: a statement is made when a month's last cut-off passes.</p> : (
        <TableScroll>
          <table className="bo-simple" aria-label="Monthly statements">
            <thead><tr><th>Statement</th><th>Period</th><th>Merchant</th><th className="num">Net deposits</th></tr></thead>
            <tbody>
              {rows.map((s) => (
                <tr key={s.identifier} tabIndex={0} className="clickable" onClick={() => open(s.identifier)} onKeyDown={(e) => e.key === 'Enter' && open(s.identifier)}>
                  <td>{s.identifier}</td><td>{day(s.start_date)} – {day(s.end_date)}</td><td>{s.merchant_account_identifier}</td><td className="num"><Money cents={s.net_cents} currency={s.currency} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </div>
  );
}

/**
 * A statement's PDF shown in the page. An <iframe src> would go without the session's
 * Authorization header, so the PDF is fetched with it and shown from an object URL.
 */
function StatementView({ identifier }: { identifier: string }) {
  const creds = useUser((s) => s.creds);
  // The path's type reads `:statement_identifier.:format` as one name; boCall fills both segments.
  const params = { statement_identifier: identifier, format: 'json' } as unknown as Record<'statement_identifier.:format', string>;
  const { data, error } = useLoad((c) => boCall(c, 'statement', { params }), [identifier]);
  const [pdf, setPdf] = useState<string | null>(null);
  const [pdfError, setPdfError] = useState<string | null>(null);
  useEffect(() => {
    if (!creds) return;
    let url: string | null = null;
    let live = true;
    const path = backofficeRoutes.statement.path.replace(':statement_identifier', encodeURIComponent(identifier)).replace(':format', 'pdf');
    fetch(`${creds.baseUrl}${path}`, { headers: { Authorization: creds.authorization } })
      .then(async (res) => {
        if (!res.ok) throw new Error(`The PDF could not be read (${res.status}).`);
        const blob = await res.blob();
        if (!live) return;
        url = URL.createObjectURL(new Blob([blob], { type: 'application/pdf' }));
        setPdf(url);
      })
      .catch((e: unknown) => live && setPdfError((e as Error).message));
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [creds, identifier]);
  return (
    <section className="bo-section">
      <Title back="/app/settlement" actions={pdf && <a className="button" href={pdf} download={`${identifier}.pdf`}>Download PDF</a>}>
        Statement {data?.identifier ?? identifier}
      </Title>
      <Notice error={error ?? pdfError} />
      {data && (
        <div className="grid">
          <div className="card"><h2>Period</h2><p>{day(data.start_date)} – {day(data.end_date)}</p><p className="muted">{data.merchant.name} · MID {data.merchant_account_identifier}</p></div>
          <div className="card"><h2>Net deposits</h2><p className="big-figure"><Money fit cents={data.totals.net_cents ?? 0} currency={data.currency} /></p></div>
          <div className="card"><h2>Deposited in the period</h2><p className="big-figure"><Money fit cents={data.deposited_in_period_cents} currency={data.currency} /></p></div>
        </div>
      )}
      {pdf ? <iframe className="bo-pdf card" title={`Statement ${identifier} (PDF)`} src={pdf} /> : !pdfError && <p className="muted">Loading the PDF…</p>}
    </section>
  );
}
