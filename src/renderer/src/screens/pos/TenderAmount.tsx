import { money } from '../../format';
import type { Sale } from '../../api/pos';

/** What a tender took, its card tip beside it: the same on the register and in a sale's detail. */
export function TenderAmount({ tender, currency }: { tender: Sale['tenders'][number]; currency: string }) {
  return (
    <span className="num">
      {money(tender.amount_cents, currency)}
      {tender.tip_cents > 0 && <span className="muted"> + tip {money(tender.tip_cents, currency)}</span>}
    </span>
  );
}
