import type { Receipt } from '../../api/pos';
import { money, percentText, time } from '../../format';

const ENTRY: Record<string, string> = { chip: 'Chip', contactless: 'Contactless', swipe: 'Swiped', manual: 'Keyed' };
const CVM: Record<string, string> = { pin: 'Verified by PIN', signature: 'Signature', none: 'No cardholder verification' };
const TITLE: Record<Receipt['kind'], string> = { sale: 'SALE', refund: 'REFUND', void: 'VOID' };
const TOTAL: Record<Receipt['kind'], string> = { sale: 'Total', refund: 'Total refunded', void: 'Total voided' };
const PAID: Record<Receipt['kind'], string> = { sale: 'Paid', refund: 'Back to the customer', void: 'Back to the customer' };
const APPROVED: Record<string, string> = { void: 'VOID APPROVED', refund: 'REFUND APPROVED' };
const BACK: Record<string, string> = { void: 'voided', refund: 'refunded', cash: 'cash back', external: 'to settle' };

type Tender = Receipt['tenders'][number];

/**
 * A receipt as printed: 80 mm wide, monospaced amounts. Printing shows only this. Every amount is
 * the engine's, shown as it comes: a refund's or void's are negative (money going back).
 */
export function ReceiptView({ receipt }: { receipt: Receipt }) {
  const m = (c: number) => money(c, receipt.currency);
  return (
    <article className="receipt print-area" data-testid="receipt" data-kind={receipt.kind} aria-label="Receipt">
      <ReceiptHeader receipt={receipt} />
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
                <bdi>{m(l.amount_cents)}</bdi> {l.tax_mark}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ReceiptSums receipt={receipt} />
      {receipt.tenders.map((t, i) => (
        <TenderBlock key={i} receipt={receipt} tender={t} />
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

function ReceiptHeader({ receipt }: { receipt: Receipt }) {
  const back = receipt.kind !== 'sale';
  return (
    <header>
      <strong>{receipt.merchant}</strong>
      <div>{receipt.lane}</div>
      <div className="doc" data-testid="receipt-title">
        {TITLE[receipt.kind]} {receipt.number}
      </div>
      {back && <div>of sale {receipt.sale_number}</div>}
      <div>{time(receipt.at)}</div>
      <div>Cashier: {receipt.cashier}</div>
      {receipt.copy && <div className="copy">DUPLICATE — REPRINT</div>}
      {receipt.kind === 'sale' && receipt.status === 'voided' && <div className="copy">VOIDED</div>}
    </header>
  );
}

/** Subtotal, discounts, taxes by rate, total, tip, what was paid and what is still owed. */
function ReceiptSums({ receipt }: { receipt: Receipt }) {
  const m = (c: number) => money(c, receipt.currency);
  const back = receipt.kind !== 'sale';
  return (
    <table className="sums">
      <tbody>
        <tr>
          <td>Subtotal</td>
          <td className="num" data-testid="receipt-subtotal">
            {m(receipt.subtotal_cents)}
          </td>
        </tr>
        {receipt.discount_cents !== 0 && (
          <tr className="muted">
            <td>of which discounts</td>
            {/* Taken off a sale's subtotal; a refund's or void's (negative) takes that much off what goes back. */}
            <td className="num">{back ? '' : '−'}<bdi>{m(Math.abs(receipt.discount_cents))}</bdi></td>
          </tr>
        )}
        {receipt.taxes.map((t) => (
          <tr key={t.mark}>
            <td>
              {t.mark} Tax <bdi>{percentText(t.tax_rate)}</bdi> on <bdi>{m(t.taxable_cents)}</bdi>
            </td>
            <td className="num">{m(t.tax_cents)}</td>
          </tr>
        ))}
        <tr className="grand">
          <td>{TOTAL[receipt.kind]}</td>
          <td className="num" data-testid="receipt-total">
            {m(receipt.total_cents)}
          </td>
        </tr>
        {receipt.tip_cents !== 0 && (
          <tr>
            <td>{back ? 'Tip given back' : 'Tip'}</td>
            <td className="num" data-testid="receipt-tip">
              {m(receipt.tip_cents)}
            </td>
          </tr>
        )}
        {(receipt.tip_cents !== 0 || receipt.paid_cents !== receipt.total_cents) && receipt.paid_cents !== 0 && (
          <tr className="grand">
            <td>{receipt.tip_cents !== 0 && !back ? 'Paid with tip' : PAID[receipt.kind]}</td>
            <td className="num" data-testid="receipt-paid">
              {m(receipt.paid_cents)}
            </td>
          </tr>
        )}
        {receipt.outstanding_cents > 0 && (
          <tr className="grand" data-testid="receipt-owed">
            <td>Still owed to the customer</td>
            <td className="num">{m(receipt.outstanding_cents)}</td>
          </tr>
        )}
      </tbody>
    </table>
  );
}

/** One tender: its amount (with tip and cash given), its card's EMV data, the signature. */
function TenderBlock({ receipt, tender: t }: { receipt: Receipt; tender: Tender }) {
  const m = (c: number) => money(c, receipt.currency);
  const back = receipt.kind !== 'sale';
  return (
    <section className="tender-block">
      <div className="row-between">
        <span>
          {t.label}
          {back && t.method ? ` (${BACK[t.method] ?? t.method})` : ''}
        </span>
        <span className="num">{m(t.amount_cents + t.tip_cents)}</span>
      </div>
      {t.tip_cents !== 0 && (
        <>
          <div className="row-between muted">
            <span>{back ? 'Sale part' : 'Purchase'}</span>
            <span className="num">{m(t.amount_cents)}</span>
          </div>
          <div className="row-between muted">
            <span>Tip</span>
            <span className="num">{m(t.tip_cents)}</span>
          </div>
        </>
      )}
      {t.tendered_cents !== null && t.tendered_cents !== t.amount_cents && (
        <div className="row-between muted">
          <span>Given</span>
          <span className="num">{m(t.tendered_cents)}</span>
        </div>
      )}
      {t.card && <CardLines receipt={receipt} tender={t} card={t.card} />}
      {t.signature && (
        <figure className="signature">
          <img src={`data:${t.signature.media_type};base64,${t.signature.data}`} alt="Cardholder signature" />
          <figcaption>Cardholder signature</figcaption>
        </figure>
      )}
    </section>
  );
}

/** The EMV lines a card receipt must show. */
function CardLines({ receipt, tender: t, card }: { receipt: Receipt; tender: Tender; card: NonNullable<Tender['card']> }) {
  return (
    <dl className="emv">
      <dt>Card</dt>
      <dd>
        {card.brand} {card.masked_number}
      </dd>
      <dt>Entry</dt>
      <dd>{ENTRY[card.entry_mode ?? ''] ?? card.entry_mode}</dd>
      {card.application_label && (
        <>
          <dt>App</dt>
          <dd>{card.application_label}</dd>
        </>
      )}
      {card.aid && (
        <>
          <dt>AID</dt>
          <dd>{card.aid}</dd>
        </>
      )}
      {card.tvr && (
        <>
          <dt>TVR</dt>
          <dd>{card.tvr}</dd>
        </>
      )}
      {card.tsi && (
        <>
          <dt>TSI</dt>
          <dd>{card.tsi}</dd>
        </>
      )}
      <dt>Auth</dt>
      <dd>{card.authorization_code}</dd>
      <dt>Ref</dt>
      <dd>{t.transaction}</dd>
      <dd className="wide">{receipt.kind === 'sale' ? `APPROVED · ${CVM[card.cardholder_verification ?? ''] ?? ''}` : (APPROVED[t.method ?? ''] ?? 'APPROVED')}</dd>
    </dl>
  );
}
