import { describe, expect, it } from 'vitest';
import { decodeInvoice, encodeInvoice, invoiceJson } from '../../src/engine/receivables/invoice-codec';
import type { InvoiceData, InvoiceDoc } from '../../src/engine/receivables/types';

const base: InvoiceData = {
  number: 'INV-1',
  display_number: 'D-1',
  iid: 42,
  customer_identifier: 'C1',
  currency: 'usd',
  amount_cents: 10000,
  owing_cents: 2500,
  applied_cents: 7500,
  date: '2026-03-01',
  line_items: [{ number: '1', amount_cents: 10000, balance_cents: 2500, extra: {} }],
  adjustments: [],
  auto_debit: true,
  summary_invoice_parent: false,
  suppress_notifications: false,
  deleted: false,
  attachments: [],
  pay_token: 'PAYTOKEN00000001',
  extra: {},
  created_at: '2026-03-01T10:00:00.000Z',
  updated_at: '2026-03-02T10:00:00.000Z',
  updated_ms: 1772445600000,
};

const rich: InvoiceData = {
  ...base,
  subtotal_tax1: 130,
  subtotal_tax2: 0,
  due_date: '2026-03-31',
  order_date: '2026-02-20',
  purchase_order_number: 'PO-9',
  notes_text: 'Thanks',
  shipping: { name: 'Acme', address_1: '1 Main', city: 'Toronto', province: 'ON', postal_code: 'M5M 5M5', country: 'CA' },
  line_items: [
    { number: '1', description: 'Modems', quantity: 40, unit_cost_cents: 250, amount_cents: 10000, balance_cents: 2500, order_key: '1', purchase_order_number: 'L-PO', extra: { item_number: 'A3947' } },
  ],
  adjustments: [{ label: 'Fuel', amount_cents: 200 }, { amount_cents: -50 }],
  auto_debit: false,
  division: 'ATL',
  auto_debit_reference: 'POL-7',
  ref1: 'r1',
  ref2: 'r2',
  ref3: 'r3',
  plan_identifier: 'MONTHLY',
  plan_start_date: '2026-01-01',
  plan_end_date: '2026-12-31',
  plan_payment_cents: 1000,
  annualized_amount_cents: 120000,
  annualized_effective_date: '2026-01-01',
  annualized_expiry_date: '2026-12-31',
  external_id: 'ERP-1',
  summary_invoice_parent: true,
  summary_invoice_number: 'SUM-1',
  service_rep_email: 'rep@x.test',
  discount_amount_cents: 0,
  discount_rate: 0.05,
  discount_expiry_date: '2026-03-15',
  l3: { L3_po_number: 'PO1', L3_ship_from_country: 'US' },
  suppress_notifications: true,
  deleted: true,
  attachments: [{ file_name: 'a.pdf', invoice_display: true, size: 10, sha256: 'ab', added_at: '2026-03-02T00:00:00.000Z' }],
  extra: { lease_type: 'LS' },
};

const doc = (data: InvoiceData): InvoiceDoc => ({ id: data.number, watermark: 77, display_number: data.display_number, customer: 'CID', feed: 'open', division: data.division ?? '', iid: data.iid, data });

describe('invoice storage codec', () => {
  it('decodes exactly what it encoded, for a bare and a full invoice', () => {
    for (const data of [base, rich]) {
      const row = encodeInvoice(doc(data), 'sender');
      expect(decodeInvoice(row).data).toEqual(data);
    }
  });

  it('splices status, watermark and (on request) deleted into the stored rendering', () => {
    const row = encodeInvoice(doc(base), 'sender');
    const view = JSON.parse(invoiceJson(row, '2026-04-05', true)) as Record<string, unknown>;
    expect([view.status, view.watermark, view.deleted, view.number]).toEqual(['OVERDUE', 77, false, 'INV-1']);
    expect(JSON.parse(invoiceJson(row, '2026-03-02', false))).not.toHaveProperty('deleted');
  });
});
