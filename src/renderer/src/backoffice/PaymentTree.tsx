import type { ReactNode } from 'react';
import { boCall, type BoAnswer } from '../api/backoffice';
import { fromDecimal, takenOffText } from '../format';
import { link } from '../state/route';
import { InApp, Money, day, paidBy, paymentStatus, useLoad } from './common';
import './details.css';

/**
 * A payment's tree as the engine answers it (options[export_payment_tree]): the payment on top, at
 * what it received; below it what it became: an allocation to each invoice, the credit left on the
 * customer's account, each refund, void, chargeback or bank return of its transaction taken off it, and the payments that
 * came from it (reversals), each a node of its own. So the nodes add up to what was received.
 */
type Payment = BoAnswer<'payment'>;

function Node(props: { kind: string; tone: string; title: ReactNode; amount: ReactNode; sub?: ReactNode; children?: ReactNode }) {
  return (
    <li>
      <div className={`bo-node ${props.tone}`} role="treeitem" aria-label={`${props.kind}`} aria-expanded={props.children ? true : undefined}>
        <span className="kind">{props.kind}</span>
        <span>{props.title}</span>
        <span className="amount">{props.amount}</span>
        {props.sub && <span className="sub">{props.sub}</span>}
      </div>
      {props.children && <ul role="group">{props.children}</ul>}
    </li>
  );
}

/** A payment that came from this one (a refund or a reversal), read to show its amount and state. */
function ChildPayment({ reference, currency }: { reference: string; currency: string }) {
  const { data } = useLoad((c) => boCall(c, 'payment', { params: { reference_or_token: reference }, query: {} }), [reference]);
  const cents = fromDecimal(data?.payment_amount, currency);
  return (
    <Node
      kind={data?.status === 'REVERSAL' ? 'Reversal' : 'Refund'}
      tone="refund"
      title={<InApp to={link('payments', reference)}>{reference}</InApp>}
      amount={data ? <Money cents={cents === undefined ? undefined : -Math.abs(cents)} currency={currency} /> : '…'}
      sub={data ? `${day(data.date)} · ${paymentStatus(data.status).words}` : undefined}
    />
  );
}

/** A refund or void of the payment's sale, or a chargeback or bank return of it, taken off what it received. */
function TakenOff({ refund, currency }: { refund: Payment['refunds'][number]; currency: string }) {
  const transaction = refund.transaction_token ?? refund.sale_transaction_token;
  const words = takenOffText(refund.kind);
  // A chargeback or return has no transaction of its own: it names the sale whose money came back.
  const title = refund.transaction_token ? `Transaction ${refund.transaction_token}` : refund.kind === 'refund' ? `Refunds of transaction ${refund.sale_transaction_token}` : `${words.name} of transaction ${refund.sale_transaction_token}`;
  return (
    <Node
      kind={words.name}
      tone="refund"
      title={<InApp to={link('orders', 'transactions', transaction)}>{title}</InApp>}
      amount={<Money cents={-(fromDecimal(refund.amount, currency) ?? 0)} currency={currency} />}
      sub={`${day(refund.date)} · ${words.how}, taken off this payment`}
    />
  );
}

export function PaymentTree({ data }: { data: Payment }) {
  const cur = data.currency.toUpperCase();
  const applied = data.payment_amounts.filter((a) => (fromDecimal(a.amount, cur) ?? 0) !== 0);
  const unapplied = fromDecimal(data.unapplied_amount, cur) ?? 0;
  const children = data.payment_tree?.children ?? [];
  const empty = applied.length === 0 && unapplied === 0 && children.length === 0 && data.refunds.length === 0;
  return (
    <div className="card bo-stack">
      <h2>Payment tree</h2>
      <ul className="bo-tree" role="tree" aria-label="Payment tree">
        <Node
          kind="Payment"
          tone="root"
          title={<strong>{data.payment_reference}</strong>}
          amount={<Money cents={fromDecimal(data.received_amount, cur)} currency={cur} />}
          sub={`${day(data.date)} · ${paidBy(data)} · from ${data.customer_name || data.customer_identifier}${data.refunds.length > 0 ? ' · received' : ''}`}
        >
          {applied.map((a, i) => (
            <Node
              key={`${a.invoice_number}-${i}`}
              kind="Invoice"
              tone="invoice"
              title={<InApp to={link('invoices', a.invoice_number ?? '')}>Invoice {a.invoice_number}</InApp>}
              amount={<Money cents={fromDecimal(a.amount, cur)} currency={cur} />}
              sub={a.invoice_balance !== undefined ? <>Left owing on the invoice: <Money cents={fromDecimal(a.invoice_balance, cur)} currency={cur} /></> : undefined}
            />
          ))}
          {unapplied !== 0 && <Node kind="Credit" tone="credit" title="Unapplied credit" amount={<Money cents={unapplied} currency={cur} />} sub="Kept on the customer's account for a later invoice" />}
          {data.refunds.map((r, i) => <TakenOff key={`${r.timestamp}-${i}`} refund={r} currency={cur} />)}
          {children.map((reference) => <ChildPayment key={reference} reference={reference} currency={cur} />)}
          {empty && <li className="muted small">Nothing applied yet.</li>}
        </Node>
      </ul>
    </div>
  );
}
