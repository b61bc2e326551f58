import type { Reversal, Tender } from '../../shared/schemas/register';
import type { ReversalData, TenderData } from './model';

export function tenderView(t: TenderData): Tender {
  const { request: _request, ...view } = t;
  return view;
}

export function reversalView(r: ReversalData): Reversal {
  return { ...r, document: r.document ?? '', allocations: r.allocations.map(({ reference: _reference, ...a }) => ({ ...a, tip_cents: a.tip_cents ?? 0 })) };
}
