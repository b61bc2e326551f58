import type { Reversal, Tender } from '../../shared/schemas/register';
import type { ReversalData, TenderData } from './model';

export function tenderView(t: TenderData): Tender {
  const { request: _request, ...view } = t;
  return view;
}

export function reversalView(r: ReversalData): Reversal {
  return { ...r, allocations: r.allocations.map(({ reference: _reference, ...a }) => a) };
}
