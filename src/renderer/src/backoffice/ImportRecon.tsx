import type { ReactNode } from 'react';
import { boCall, type BoAnswer } from '../api/backoffice';
import type { Credentials } from '../api/client';
import { fromReconAmount, money } from '../format';
import { Money, Notice, day, useLoad, usePaged } from './common';

type InvoiceRecon = Extract<BoAnswer<'invoiceRecon'>['reconciliation_invoices'], unknown[]>[number];
type PaymentRecon = Extract<BoAnswer<'paymentRecon'>['reconciliation_payments'], unknown[]>[number];
const PAGE = 100;
/** Said while the batch runs: an empty list then means "not found yet", not "all matched". */
const STILL_RUNNING = 'The file is still being read: what the reconciliation finds appears here as it goes (invoices the file leaves out once it is read to the end).';

/** One page of a batch's reconciliation records after a watermark (the export's own paging). */
async function page<T extends { watermark?: number }>(read: () => Promise<T[] | Record<string, T>>): Promise<{ items: T[]; next: number | null }> {
  const answer = await read();
  const items = Array.isArray(answer) ? answer : Object.values(answer);
  return { items, next: items.length === PAGE ? (items[items.length - 1]?.watermark ?? null) : null };
}

/**
 * A record's amount (the engine writes it in en-US, "CA$1,234.50") in the reader's locale; an
 * empty one is a side that has no such record.
 */
function Amount({ text, currency }: { text: string | undefined; currency: string }) {
  if (!text) return <span className="muted">—</span>;
  const cents = fromReconAmount(text, currency);
  return cents === undefined ? <span className="num">{text}</span> : <Money cents={cents} currency={currency} />;
}

/** The reference's messages carry en-US amounts ("Balance corrected from $112.00"): shown in the reader's locale. */
function message(text: string, currency: string): string {
  return text.replace(/-?(?:[A-Z]{1,3})?\$-?\d[\d,]*(?:\.\d+)?/g, (amount) => {
    const cents = fromReconAmount(amount, currency);
    return cents === undefined ? amount : money(cents, currency);
  });
}

/** `amounts`: the columns of amounts, by index (right-aligned); the last column, the finding, is given room to read. */
function Table(props: { label: string; head: string[]; amounts: number[]; rows: ReactNode[][]; loading: boolean; more: (() => void) | null; empty: string }) {
  const cls = (i: number) => (props.amounts.includes(i) ? 'num' : i === props.head.length - 1 ? 'bo-finding' : undefined);
  return (
    <>
      <table className="bo-simple bo-recon" aria-label={props.label}>
        <thead>
          <tr>{props.head.map((h, i) => <th key={h} className={cls(i)}>{h}</th>)}</tr>
        </thead>
        <tbody>
          {props.rows.map((cells, r) => (
            <tr key={r}>{cells.map((c, i) => <td key={i} className={cls(i)}>{c}</td>)}</tr>
          ))}
        </tbody>
      </table>
      {props.rows.length === 0 && !props.loading && <p className="muted bo-empty">{props.empty}</p>}
      <div className="bo-foot">
        <span className="muted">{props.rows.length.toLocaleString()} shown</span>
        {props.loading && <span className="muted">Loading…</span>}
        {props.more && !props.loading && <button type="button" onClick={props.more}>Load more</button>}
      </div>
    </>
  );
}

function useCurrency(): string {
  const { data } = useLoad((c) => boCall(c, 'account', {}), []);
  return (data?.currency ?? 'usd').toUpperCase();
}

function InvoiceReconTable({ id, running }: { id: number; running: boolean }) {
  const currency = useCurrency();
  const read = (c: Credentials, after: number | undefined) =>
    page(async () => (await boCall(c, 'invoiceRecon', { params: { batch_file_id: id }, query: { list: true, limit: PAGE, watermark: after ?? 0 } })).reconciliation_invoices);
  const { rows, more, loading, error } = usePaged<InvoiceRecon, number>(read, [id]);
  return (
    <>
      <Notice error={error} />
      <Table
        label="Invoices reconciled"
        head={['Invoice', 'Customer', 'Balance here', 'Balance in your system', 'What was found']}
        amounts={[2, 3]}
        rows={rows.map((r) => [
          r.number,
          [r.customer_number, r.customer_name].filter(Boolean).join(' · ') || '—',
          <Amount key="here" text={r.balance_in_arc} currency={currency} />,
          <Amount key="there" text={r.balance_in_source_system} currency={currency} />,
          message(r.discrepancy_message, currency),
        ])}
        loading={loading}
        more={more}
        empty={running ? STILL_RUNNING : 'Every invoice in the file has the same balance here, and every open invoice here is in the file: nothing to correct.'}
      />
    </>
  );
}

function PaymentReconTable({ id, running }: { id: number; running: boolean }) {
  const currency = useCurrency();
  const read = (c: Credentials, after: number | undefined) =>
    page(async () => (await boCall(c, 'paymentRecon', { params: { batch_file_id: id }, query: { list: true, limit: PAGE, watermark: after ?? 0 } })).reconciliation_payments);
  const { rows, more, loading, error } = usePaged<PaymentRecon, number>(read, [id]);
  // Theirs are in the file's currency when it names one.
  const theirs = (r: PaymentRecon) => (r.currency_in_source_system || currency).toUpperCase();
  const ours = (r: PaymentRecon) => (r.currency || currency).toUpperCase();
  const pair = (here: string, there: string, r: PaymentRecon) => (
    <>
      <Amount text={here} currency={ours(r)} /> / <Amount text={there} currency={theirs(r)} />
    </>
  );
  return (
    <>
      <Notice error={error} />
      <Table
        label="Payments reconciled"
        head={['Payment', 'Customer', 'Date here / yours', 'Amount here / yours', 'Applied here / yours', 'Unapplied here / yours', 'What was found']}
        amounts={[3, 4, 5]}
        rows={rows.map((r) => [
          r.payment_reconciliation_identifier,
          r.customer_identifier || '—',
          <>
            <span className="bo-nowrap">{day(r.payment_date)}</span> / <span className="bo-nowrap">{day(r.payment_date_in_source_system)}</span>
          </>,
          pair(r.payment_amount, r.payment_amount_in_source_system, r),
          pair(r.applied_amount, r.applied_amount_in_source_system, r),
          pair(r.unapplied_amount, r.unapplied_amount_in_source_system, r),
          r.discrepancy_message,
        ])}
        loading={loading}
        more={more}
        empty={running ? STILL_RUNNING : 'Every payment in the file matches the one here.'}
      />
    </>
  );
}

/**
 * What a reconciliation file found (GET /api/exports/{invoice,payment}_recon/{batch}): without it
 * the batch said "2 invoices reconciled" and nothing of the invoices it closed or corrected.
 */
export function ReconResults({ id, kind, running }: { id: number; kind: 'invoice_recon' | 'payment_recon'; running: boolean }) {
  return (
    <div className="card">
      <h2>What the reconciliation found</h2>
      <p className="muted small">
        {kind === 'invoice_recon'
          ? 'Only the invoices that did not match are listed: an invoice open here that the file leaves out is closed; a different balance is corrected when the account uses balance sync.'
          : 'Only the payments that did not match are listed; nothing was changed.'}
      </p>
      {kind === 'invoice_recon' ? <InvoiceReconTable id={id} running={running} /> : <PaymentReconTable id={id} running={running} />}
    </div>
  );
}
