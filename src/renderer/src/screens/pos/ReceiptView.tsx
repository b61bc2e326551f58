import type { Receipt } from '../../api/pos';
import { money, time } from '../../format';

const ENTRY: Record<string, string> = { chip: 'Chip', contactless: 'Contactless', swipe: 'Swiped', manual: 'Keyed' };
const CVM: Record<string, string> = { pin: 'Verified by PIN', signature: 'Signature', none: 'No cardholder verification' };
const TITLE: Record<Receipt['kind'], string> = { sale: 'Sale', refund: 'Refund', void: 'Void' };

/** A receipt as printed: 80 mm wide, monospaced amounts. Printing shows only this. */
export function ReceiptView({ receipt }: { receipt: Receipt }) {
  const m = (c: number) => money(c, receipt.currency);
  const back = receipt.kind !== 'sale';
  return (
    <article className="receipt print-area" data-testid="receipt" aria-label="Receipt">
      <header>
        <strong>{receipt.merchant}</strong>
        <div>{receipt.lane}</div>
        <div>
          {TITLE[receipt.kind]} {receipt.number}
        </div>
        <div>{time(receipt.at)}</div>
        <div>Cashier: {receipt.cashier}</div>
        {receipt.copy && <div className="copy">DUPLICATE — REPRINT</div>}
        {receipt.kind === 'sale' && receipt.status === 'voided' && <div className="copy">VOIDED</div>}
      </header>
      <table>
        <tbody>
          {receipt.lines.map((l, i) => (
            <tr key={i}>
              <td>
                {l.description}
                {l.notes.map((n) => (
                  <div key={n} className="note">
                    {n}
                  </div>
                ))}
              </td>
              <td className="num">
                {back ? '−' : ''}
                {m(l.amount_cents)} {l.tax_mark}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <table className="sums">
        <tbody>
          <tr>
            <td>Subtotal</td>
            <td className="num">{m(receipt.subtotal_cents)}</td>
          </tr>
          {receipt.taxes.map((t) => (
            <tr key={t.mark}>
              <td>
                {t.mark} Tax {t.tax_rate}% on {m(t.taxable_cents)}
              </td>
              <td className="num">{m(t.tax_cents)}</td>
            </tr>
          ))}
          <tr className="grand">
            <td>{back ? 'Total refunded' : 'Total'}</td>
            <td className="num">{m(receipt.total_cents)}</td>
          </tr>
        </tbody>
      </table>
      {receipt.tenders.map((t, i) => (
        <section key={i} className="tender-block">
          <div className="row-between">
            <span>
              {t.label}
              {back && t.method ? ` (${t.method === 'void' ? 'voided' : t.method === 'refund' ? 'refunded' : t.method === 'cash' ? 'cash back' : 'to settle'})` : ''}
            </span>
            <span className="num">{m(t.amount_cents)}</span>
          </div>
          {t.tendered_cents !== null && t.tendered_cents !== t.amount_cents && (
            <div className="row-between muted">
              <span>Given</span>
              <span className="num">{m(t.tendered_cents)}</span>
            </div>
          )}
          {t.card && (
            <dl className="emv">
              <dt>Card</dt>
              <dd>
                {t.card.brand} {t.card.masked_number}
              </dd>
              <dt>Entry</dt>
              <dd>{ENTRY[t.card.entry_mode ?? ''] ?? t.card.entry_mode}</dd>
              {t.card.application_label && (
                <>
                  <dt>App</dt>
                  <dd>{t.card.application_label}</dd>
                </>
              )}
              {t.card.aid && (
                <>
                  <dt>AID</dt>
                  <dd>{t.card.aid}</dd>
                </>
              )}
              {t.card.tvr && (
                <>
                  <dt>TVR</dt>
                  <dd>{t.card.tvr}</dd>
                </>
              )}
              {t.card.tsi && (
                <>
                  <dt>TSI</dt>
                  <dd>{t.card.tsi}</dd>
                </>
              )}
              <dt>Auth</dt>
              <dd>{t.card.authorization_code}</dd>
              <dt>Ref</dt>
              <dd>{t.transaction}</dd>
              <dd className="wide">{receipt.kind === 'sale' ? `APPROVED · ${CVM[t.card.cardholder_verification ?? ''] ?? ''}` : 'RETURN APPROVED'}</dd>
            </dl>
          )}
          {t.signature && (
            <figure className="signature">
              <img src={`data:${t.signature.media_type};base64,${t.signature.data}`} alt="Cardholder signature" />
              <figcaption>Cardholder signature</figcaption>
            </figure>
          )}
        </section>
      ))}
      {receipt.change_cents > 0 && (
        <div className="row-between grand">
          <span>Change</span>
          <span className="num">{m(receipt.change_cents)}</span>
        </div>
      )}
      <footer>
        {receipt.footer.map((f) => (
          <div key={f}>{f}</div>
        ))}
      </footer>
    </article>
  );
}
