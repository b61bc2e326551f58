import { NO_FX, paymentAmountView } from './payment-view';
import type { ReceivablesUnit } from './unit-of-work';
import type { AllocationData, PaymentDoc } from './types';

/**
 * One payment_amounts record per allocation; allocations an update dropped stay, at zero, naming
 * the invoice they were on (so that a client following the feed knows which invoice lost them).
 */
export function writeAmountRecords(s: ReceivablesUnit, doc: PaymentDoc, previous: readonly AllocationData[]): void {
  const p = doc.data;
  const lineShortPay = s.account.can('line_item_short_pay');
  const sender = s.account.profile().sender_identifier;
  for (const a of p.allocations) {
    s.putPaymentAmount({ id: a.id, watermark: 0, invoice: a.invoice_number, payment: doc.id, data: paymentAmountView(p, a, { lineShortPay, sender }) });
  }
  for (let n = p.allocations.length + 1; n <= previous.length; n++) {
    const id = `${p.reference}#${n}`;
    const gone = previous[n - 1]!;
    s.putPaymentAmount({ id, watermark: 0, invoice: '', payment: doc.id, data: { payment_reference: p.reference, invoice_number: gone.invoice_number, amount: '0.00', status: p.status, removed: true, ...NO_FX } });
  }
}
