import { Fragment, useState } from 'react';
import { boCall, type BoAnswer } from '../api/backoffice';
import type { Credentials } from '../api/client';
import { money } from '../format';
import { link, useRoute } from '../state/route';
import { Confirm, day } from './common';

/**
 * The customer page's autopay: on or off, the fund it charges, the charges it could not make and
 * the invoices it leaves alone. What autopay charges is the engine's answer (GET /api/autopay and
 * /api/autopay/preview); this section only words it.
 */
export type Method = { token: string; label: string; detail: string; wallet: string };
type Agreement = BoAnswer<'autopay'>['autopays'][number];
type Preview = BoAnswer<'previewAutopay'>;
type Failure = Agreement['last_failures'][number];
type Held = NonNullable<BoAnswer<'autopay'>['held_invoices']>[number];

const HELD_BECAUSE: Record<Held['cause'], string> = {
  refunded: 'its payment was refunded',
  voided: 'its payment was voided',
  charged_back: 'the cardholder charged it back',
  returned: 'the bank returned the debit',
  returned_nsf: 'the bank returned the debit three times for missing funds',
};

const CANNOT_PAY: Record<NonNullable<Agreement['fund_problem']>, string> = {
  removed: 'was removed from the wallet',
  locked: 'is locked',
  expired: 'has expired',
};

// The gateway's message for a refusal may name the fund's token: the cause is worded here instead.
const FAILED_BECAUSE = (f: Failure): string =>
  f.cause === 'method_removed'
    ? 'its payment method was removed from the wallet'
    : f.cause === 'method_locked'
      ? 'its payment method is locked'
      : f.cause === 'declined'
        ? `the charge was declined${f.message ? ` (${f.message})` : ''}`
        : `the charge was refused (${f.code ?? 'no reason given'})`;

const total = (c: { amount_cents: number; currency: string }) => money(c.amount_cents, c.currency);
const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

function InvoiceLink({ number }: { number: string }) {
  const go = useRoute((s) => s.go);
  return (
    <a href={link('invoices', number)} onClick={(e) => (e.preventDefault(), go(link('invoices', number)))}>
      {number}
    </a>
  );
}

const invoiceLinks = (numbers: string[]) => numbers.map((n, i) => (
  <Fragment key={n}>
    {i > 0 && ', '}
    <InvoiceLink number={n} />
  </Fragment>
));

/** Invoices autopay no longer charges on its own: said, with why and how to charge them again. */
function HeldInvoices({ held }: { held: Held[] }) {
  if (held.length === 0) return null;
  return (
    <div aria-label="Invoices autopay leaves alone">
      <p className="small">Autopay no longer charges {held.length === 1 ? 'this invoice' : 'these invoices'} on its own, because a charge came back. Turning autopay off and on again (a new authorization from the customer) lets it charge {held.length === 1 ? 'it' : 'them'} again.</p>
      <ul className="small">
        {held.map((h) => (
          <li key={h.invoice_number}>
            <InvoiceLink number={h.invoice_number} />: {HELD_BECAUSE[h.cause]} ({day(h.held_at.slice(0, 10))})
          </li>
        ))}
      </ul>
    </div>
  );
}

type Skipped = NonNullable<BoAnswer<'autopay'>['skipped_invoices']>[number];

/** Invoices the last autopay run charged and gave the charge back for: said, with the engine's why. */
function SkippedInvoices({ skipped }: { skipped: Skipped[] }) {
  if (skipped.length === 0) return null;
  return (
    <div aria-label="Invoices autopay skipped">
      <p className="small">The last autopay run did not pay {skipped.length === 1 ? 'this invoice' : 'these invoices'}:</p>
      <ul className="small">
        {skipped.map((s) => (
          <li key={s.invoice_number}>
            <InvoiceLink number={s.invoice_number} /> ({day(s.date)}): {s.message}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The last run's sales that were not made: their invoices stayed owing, and the log was the only place that said so. */
function FailedCharges({ failures }: { failures: Failure[] }) {
  if (failures.length === 0) return null;
  return (
    <div className="notice warn bo-autopay-failed" role="status" aria-label="Autopay charges not made">
      {failures.map((f) => (
        <p key={f.currency}>
          Autopay could not charge {total(f)} on {day(f.date)} for {invoiceLinks(f.invoices)}: {FAILED_BECAUSE(f)}. {plural(f.invoices.length, 'This invoice stays', 'These invoices stay')} unpaid.
        </p>
      ))}
    </div>
  );
}

/** Asked before an agreement is made while invoices are already due: its first run charges them within seconds. */
function ChargeNowDialog({ preview, method, busy, onConfirm, onCancel }: { preview: Preview; method: Method; busy: boolean; onConfirm(): void; onCancel(): void }) {
  const one = preview.charges.length === 1 ? preview.charges[0]! : null;
  const count = preview.charges.reduce((n, c) => n + c.invoices.length, 0);
  return (
    <Confirm
      title={one ? `Turn autopay on and charge ${total(one)} now?` : 'Turn autopay on and charge now?'}
      body={
        <div className="bo-stack" aria-label="Charged at once">
          <p>
            {plural(count, 'An invoice is', `${count} invoices are`)} already due. Autopay charges {method.label} for {plural(count, 'it', 'them')} at once, within a few seconds of turning it on:
          </p>
          {preview.charges.map((c) => (
            <table key={c.currency} className="bo-simple" aria-label={`Charged now in ${c.currency}`}>
              <thead><tr><th>Invoice</th><th>Due</th><th>Charged</th></tr></thead>
              <tbody>
                {c.invoices.map((i) => (
                  <tr key={i.invoice_number}><td>{i.invoice_number}</td><td>{day(i.due_date)}</td><td className="num">{money(i.amount_cents, c.currency)}</td></tr>
                ))}
              </tbody>
              <tfoot><tr><th scope="row" colSpan={2}>Total</th><td className="num" aria-label={`Total in ${c.currency}`}>{total(c)}</td></tr></tfoot>
            </table>
          ))}
          <p>After that, invoices are charged on their due date.</p>
        </div>
      }
      confirm={one ? `Turn on and charge ${total(one)}` : 'Turn on and charge'}
      cancelFirst
      busy={busy}
      onCancel={onCancel}
      onConfirm={onConfirm}
    />
  );
}

export function AutopaySection(props: {
  identifier: string;
  methods: Method[];
  autopay: BoAnswer<'autopay'> | undefined;
  creds: Credentials | null;
  money: boolean;
  busy: boolean;
  run(work: () => Promise<unknown>, ok: string): Promise<void>;
  fail(message: string): void;
}) {
  const { identifier, methods, autopay, creds, busy, run } = props;
  const [fund, setFund] = useState('');
  const [asking, setAsking] = useState<{ preview: Preview; method: Method } | null>(null);
  const agreement = autopay?.autopays[0];
  const chosen = methods.find((m) => m.token === fund) ?? methods[0];
  const create = (method: Method) => (creds ? run(() => boCall(creds, 'createAutopay', { body: { customer_identifier: identifier, fund_token: method.token } }), 'Autopay turned on.') : Promise.resolve());
  // What a new agreement charges at once is the engine's answer; with nothing due, nothing to ask.
  const turnOn = async (method: Method) => {
    if (!creds) return;
    let preview: Preview;
    try {
      preview = await boCall(creds, 'previewAutopay', { query: { customer_identifier: identifier } });
    } catch (err) {
      props.fail((err as Error).message);
      return;
    }
    if (preview.charges.length === 0) await create(method);
    else setAsking({ preview, method });
  };
  return (
    <div className="bo-autopay" aria-label="Autopay">
      {agreement ? (
        <>
          {agreement.fund_problem ? (
            <p className="notice warn" role="status">
              Autopay is on but cannot charge: {agreement.fund_display ? `${agreement.fund_display} ${CANNOT_PAY[agreement.fund_problem]}` : 'no card: its payment method is gone'}. Invoices that fall due stay unpaid until autopay is turned off and on again with another payment method.
            </p>
          ) : (
            <p>Autopay is <strong>on</strong>: due invoices are charged to {agreement.fund_display ?? 'its payment method'} on their due date.</p>
          )}
          <FailedCharges failures={agreement.last_failures} />
          {props.money && creds && <button type="button" disabled={busy} onClick={() => void run(() => boCall(creds, 'revokeAutopay', { body: { customer_identifier: identifier, token: agreement.agreement_token } }), 'Autopay turned off.')}>Turn autopay off</button>}
        </>
      ) : (
        <>
          <p>Autopay is <strong>off</strong>.</p>
          {props.money && creds && chosen && (
            <form className="bo-filters" onSubmit={(e) => (e.preventDefault(), void turnOn(chosen))}>
              <select aria-label="Pay with" value={chosen.token} onChange={(e) => setFund(e.target.value)}>
                {methods.map((m) => <option key={m.token} value={m.token}>{m.label}</option>)}
              </select>
              <button type="submit" disabled={busy}>Turn autopay on</button>
            </form>
          )}
        </>
      )}
      <HeldInvoices held={autopay?.held_invoices ?? []} />
      <SkippedInvoices skipped={autopay?.skipped_invoices ?? []} />
      {asking && (
        <ChargeNowDialog
          preview={asking.preview}
          method={asking.method}
          busy={busy}
          onCancel={() => setAsking(null)}
          onConfirm={() => void create(asking.method).then(() => setAsking(null))}
        />
      )}
    </div>
  );
}
