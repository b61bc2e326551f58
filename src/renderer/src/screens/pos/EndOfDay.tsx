import { useCallback, useEffect, useState } from 'react';
import { usePos } from '../../state/pos';
import { useKeys } from '../../keys';
import { dayText, money, percentText, time } from '../../format';
import { counted } from '../../../../shared/words';
import { ApiError } from '../../api/client';
import type { RegisterReport } from '../../api/pos';
import { Modal } from './Modal';

const TYPE: Record<string, string> = { card: 'Card', cash: 'Cash', cheque: 'Cheque', gift_card: 'Gift card', other: 'Other' };

export function ReportView({ report }: { report: RegisterReport }) {
  return (
    <article className="report print-area" data-testid={`report-${report.kind}`} aria-label={`${report.kind.toUpperCase()} report`}>
      <header>
        <h2>{report.kind === 'z' ? `Z report ${report.z?.number ?? ''}` : 'X report (not closed)'}</h2>
        <p className="muted">
          Lane {report.laneid} · period {report.period} · <bdi>{time(report.from)}</bdi> to <bdi>{time(report.to)}</bdi>
          {report.z && ` · closed by ${report.z.closed_by.name}`}
        </p>
      </header>
      <div className="report-grid">
        <ReportSales report={report} />
        <ReportTenders report={report} />
        <ReportCashiers report={report} />
        {report.z && <ReportBatch report={report} z={report.z} />}
      </div>
    </article>
  );
}

/** Sales, voids, refunds, net sales with their tax by rate, and tips. */
function ReportSales({ report }: { report: RegisterReport }) {
  const m = (c: number) => money(c, report.currency);
  return (
    <section>
      <h3>Sales</h3>
      <table>
        <tbody>
          <tr>
            <td>Sales ({report.sales.count})</td>
            <td className="num">{m(report.sales.total_cents)}</td>
          </tr>
          <tr>
            <td>Discounts given</td>
            <td className="num">{m(report.sales.discount_cents)}</td>
          </tr>
          <tr>
            <td>Paid sales voided ({report.voids.count})</td>
            <td className="num">{m(-report.voids.total_cents)}</td>
          </tr>
          <tr>
            <td>Refunds ({report.refunds.count})</td>
            <td className="num">{m(-report.refunds.total_cents)}</td>
          </tr>
          {report.outside.count > 0 && (
            // The engine's figure: card payments of this lane's sales given back in the back office or through the API (in the voids and refunds above).
            <tr className="muted" data-testid="outside-refunds">
              <td>of which in the back office or API ({report.outside.count})</td>
              <td className="num">{m(-report.outside.total_cents)}</td>
            </tr>
          )}
          {report.open_voids.count > 0 && (
            // The engine's count of baskets voided before payment: never sold, so apart from every total.
            <tr className="muted" data-testid="open-voids">
              <td>Voided before payment ({report.open_voids.count}): never sold, in no total</td>
              <td className="num">{m(report.open_voids.total_cents)}</td>
            </tr>
          )}
          <tr className="grand">
            <td>Net sales</td>
            <td className="num" data-testid="net-sales">
              {m(report.net_sales_cents)}
            </td>
          </tr>
          <tr>
            <td>of which tax</td>
            <td className="num">{m(report.net_tax_cents)}</td>
          </tr>
          {report.taxes.map((t) => (
            <tr key={t.tax_rate} className="muted">
              <td>
                {t.mark} Tax {percentText(t.tax_rate)} on {m(t.taxable_cents)}
              </td>
              <td className="num">{m(t.tax_cents)}</td>
            </tr>
          ))}
          <tr className="grand">
            <td>Card tips, not in sales ({report.tips.count})</td>
            <td className="num" data-testid="tips">
              {m(report.tips.total_cents)}
            </td>
          </tr>
        </tbody>
      </table>
    </section>
  );
}

/** What each tender took in and gave out, and the cash the drawer should hold. */
function ReportTenders({ report }: { report: RegisterReport }) {
  const m = (c: number) => money(c, report.currency);
  return (
    <section>
      <h3>Tenders</h3>
      <table data-testid="report-tenders">
        <thead>
          <tr>
            <th>Tender</th>
            <th className="num">In</th>
            <th className="num">Tips</th>
            <th className="num">Out</th>
            <th className="num">Net</th>
          </tr>
        </thead>
        <tbody>
          {report.tenders.map((t) => (
            <tr key={`${t.type}-${t.label}`}>
              <td>
                {t.label === TYPE[t.type] ? t.label : `${TYPE[t.type]}: ${t.label}`} ({t.count})
              </td>
              <td className="num">{m(t.in_cents)}</td>
              <td className="num">{m(t.tip_cents)}</td>
              <td className="num">{m(t.out_cents)}</td>
              <td className="num">{m(t.net_cents)}</td>
            </tr>
          ))}
          {report.tenders.length === 0 && (
            <tr>
              <td colSpan={5} className="muted">
                No payments in this period.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <p>
        Cash expected in the drawer (beyond the float): <strong data-testid="cash-net">{m(report.cash.net_cents)}</strong> · drawer opened {counted(report.cash.drawer_opens, { one: 'time', other: 'times' })} ·{' '}
        {counted(report.declined, { one: 'card attempt', other: 'card attempts' })} not approved (declined, cancelled or failed)
      </p>
    </section>
  );
}

function ReportCashiers({ report }: { report: RegisterReport }) {
  const m = (c: number) => money(c, report.currency);
  return (
    <section>
      <h3>By cashier</h3>
      <table data-testid="report-cashiers">
        <thead>
          <tr>
            <th>Cashier</th>
            <th className="num">Sales</th>
            <th className="num">Paid voids</th>
            <th className="num">Refunds</th>
            <th className="num">Tips</th>
          </tr>
        </thead>
        <tbody>
          {report.cashiers.map((c) => (
            <tr key={c.cashier.id}>
              <td>{c.cashier.name}</td>
              <td className="num">
                {c.sales_count} · {m(c.sales_total_cents)}
              </td>
              <td className="num">
                {c.voids_count} · {m(c.voids_total_cents)}
              </td>
              <td className="num">
                {c.refunds_count} · {m(c.refunds_total_cents)}
              </td>
              <td className="num">
                {c.tips_count} · {m(c.tips_cents)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** A Z report's card batch and its reconciliation. */
function ReportBatch({ report, z }: { report: RegisterReport; z: NonNullable<RegisterReport['z']> }) {
  const m = (c: number) => money(c, report.currency);
  return (
    <section>
      <h3>Card batch</h3>
      {z.batch_closed ? (
        z.batches.length ? (
          <ul data-testid="batches">
            {z.batches.map((b) => {
              // A cashier reads the day; the batch's id is for the back office and support, kept as its title.
              const sameDay = z.batches.filter((o) => o.processing_date === b.processing_date);
              const nth = sameDay.length > 1 ? ` ${sameDay.indexOf(b) + 1}` : '';
              return (
                <li key={b.token} title={`Batch ${b.token}`}>
                  Card batch{nth} of <bdi>{dayText(b.processing_date)}</bdi>: {counted(b.transaction_count, { one: 'transaction', other: 'transactions' })}, net <bdi>{m(b.net_cents)}</bdi>
                </li>
              );
            })}
          </ul>
        ) : (
          <p data-testid="batches">The day's card batch is closed; it had no card payments left to send.</p>
        )
      ) : (
        <p>The card batch was not closed with this report.</p>
      )}
      {z.reconciliation && <Reconciliation r={z.reconciliation} m={m} />}
    </section>
  );
}

type Rec = NonNullable<NonNullable<RegisterReport['z']>['reconciliation']>;

/** The lane's card net beside the batch net, with every cent of the difference named (the engine's figures). */
function Reconciliation({ r, m }: { r: Rec; m: (c: number) => string }) {
  return (
    <table data-testid="reconciliation">
      <tbody>
        <tr>
          <td>This lane's card net (sales + tips − money back)</td>
          <td className="num">{m(r.lane_card_net_cents)}</td>
        </tr>
        {r.lane_elsewhere_cents !== 0 && (
          <tr className="muted">
            <td>of which in earlier batches</td>
            <td className="num">{m(r.lane_elsewhere_cents)}</td>
          </tr>
        )}
        <tr>
          <td>In the batch from this lane</td>
          <td className="num">{m(r.lane_in_batches_cents)}</td>
        </tr>
        {r.others.map((o) => (
          <tr key={o.source}>
            <td>
              + {o.source} ({o.count})
            </td>
            <td className="num">{m(o.net_cents)}</td>
          </tr>
        ))}
        <tr className="grand">
          <td>Card batch net</td>
          <td className="num" data-testid="batch-net">
            {m(r.batch_net_cents)}
          </td>
        </tr>
      </tbody>
    </table>
  );
}

function EndOfDayActions({ xReport, askZ, canPrint, back }: { xReport: () => void; askZ: () => void; canPrint: boolean; back: () => void }) {
  return (
    <div className="row wrap no-print">
      <button type="button" className="big" onClick={xReport} autoFocus>
        X report <kbd>X</kbd>
      </button>
      <button type="button" className="big danger" onClick={askZ}>
        Z close the day <kbd>Z</kbd>
      </button>
      <button type="button" className="big" onClick={() => window.print()} disabled={!canPrint}>
        Print <kbd>P</kbd>
      </button>
      <button type="button" className="big" onClick={back}>
        Back to the register <kbd>Esc</kbd>
      </button>
    </div>
  );
}

/** X report on arrival; Z closes the period and the day's card batch. */
export function EndOfDay() {
  const { api, laneid, run, go } = usePos();
  const [report, setReport] = useState<RegisterReport | null>(null);
  const [confirm, setConfirm] = useState(false);
  /** The engine's refusal of an empty Z, shown to be confirmed. */
  const [empty, setEmpty] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    if (!api || !laneid) return;
    const x = await run((a) => a.xReport(laneid));
    if (x) setReport(x);
  }, [api, laneid, run]);
  useEffect(() => void refresh(), [refresh]);

  const close = async (confirmEmpty = false) => {
    if (!laneid) return;
    setConfirm(false);
    setEmpty(null);
    const z = await run(async (a, shift) => {
      try {
        return await a.zClose(laneid, shift.id, confirmEmpty);
      } catch (err) {
        if (err instanceof ApiError && err.code === 'z_empty') return { empty: err.message };
        throw err;
      }
    });
    if (z && 'empty' in z) setEmpty(z.empty);
    else if (z) {
      setReport(z);
      usePos.getState().notify({ kind: 'ok', text: `Z report ${z.z?.number} closed${z.z?.batch_closed ? ' and the day\'s card batch sent' : ''}.` });
      void usePos.getState().refreshRegister();
    }
  };

  useKeys(
    empty !== null
      ? { Enter: () => void close(true), Escape: () => setEmpty(null) }
      : confirm
      ? { Enter: () => void close(), Escape: () => setConfirm(false) }
      : { x: () => void refresh(), X: () => void refresh(), z: () => setConfirm(true), Z: () => setConfirm(true), p: () => window.print(), P: () => window.print(), Escape: () => go('sale') },
  );

  return (
    <div className="eod">
      <EndOfDayActions xReport={() => void refresh()} askZ={() => setConfirm(true)} canPrint={!!report} back={() => go('sale')} />
      {report ? <ReportView report={report} /> : <p className="muted">Loading the X report…</p>}
      {empty !== null && (
        <Modal title="Close an empty Z report?" onClose={() => setEmpty(null)}>
          <p data-testid="z-empty">{empty}.</p>
          <div className="row">
            <button type="button" className="solid danger big" onClick={() => void close(true)} autoFocus>
              Close an empty Z <kbd>Enter</kbd>
            </button>
            <button type="button" className="big" onClick={() => setEmpty(null)}>
              Not now <kbd>Esc</kbd>
            </button>
          </div>
        </Modal>
      )}
      {confirm && (
        <Modal title="Close the day (Z report)?" onClose={() => setConfirm(false)}>
          <p>This lane's totals since its last Z are recorded as closed and a new period starts. Then the processing day's card batch is sent: today's card payments can then only be refunded, not voided.</p>
          <div className="row">
            <button type="button" className="solid danger big" onClick={() => void close()} autoFocus>
              Close the day <kbd>Enter</kbd>
            </button>
            <button type="button" className="big" onClick={() => setConfirm(false)}>
              Not yet <kbd>Esc</kbd>
            </button>
          </div>
        </Modal>
      )}
    </div>
  );
}
