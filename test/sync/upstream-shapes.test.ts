import { describe, expect, it } from 'vitest';
import { pullPage } from '../../src/engine/sync/upstream-replication';
import { UpstreamRefused } from '../../src/engine/sync/upstream-link';
import { centsOf, customerBody, invoiceBody, paymentBody, UPSTREAM_ENTITIES } from '../../src/engine/sync/upstream-shapes';

/**
 * The conversions from export records to import bodies, and the polling against a service that
 * has only the reference's invoice feeds (the process test, upstream.test.ts, runs the rest
 * against a real upstream Laneway).
 */
const invoices = UPSTREAM_ENTITIES.find((e) => e.name === 'invoices')!;

describe('export records as import bodies', () => {
  it('reads formatted amounts as cents', () => {
    expect([centsOf('$1,234.56'), centsOf('-12.00 €'), centsOf('0.00'), centsOf(''), centsOf(null)]).toEqual([123456, -1200, 0, null, null]);
  });

  it('reads an amount in its own currency\'s minor units: a yen has no cents, a dinar has fils', () => {
    // A hub pulling a 20,000 yen payment booked it as 2,000,000 yen (and a 20 dinar one as 2 dinars).
    expect(paymentBody({ payment_reference: 'PJ', currency: 'jpy', payment_amount: '20000', payment_amounts: [{ invoice_number: 'IJ', amount: '12345' }] })).toEqual({ identifier: 'PJ', amount_cents: 20_000, currency: 'JPY', payment_amounts_attributes: [{ invoice_number: 'IJ', amount: 12_345 }] });
    expect(paymentBody({ payment_reference: 'PK', currency: 'kwd', payment_amount: '20.000', payment_amounts: [{ invoice_number: 'IK', amount: '12.345' }] })).toEqual({ identifier: 'PK', amount_cents: 20_000, currency: 'KWD', payment_amounts_attributes: [{ invoice_number: 'IK', amount: 12_345 }] });
    expect(invoiceBody({ number: 'IB', customer_identifier: 'C1', currency: 'bhd', amount_cents: 12_345, subtotal_tax1: 'BHD 1.005', subtotal_tax2: '¥0' })).toMatchObject({ amount: 12_345, subtotal_tax1: 1005 });
    expect(invoiceBody({ number: 'IY', customer_identifier: 'C1', currency: 'jpy', amount_cents: 12_345, subtotal_tax1: '¥1,005' })).toMatchObject({ subtotal_tax1: 1005 });
    expect(customerBody({ identifier: 'CY', name: 'Tokyo', credit_limit: '¥500,000', credit_limit_currency: 'jpy' })).toMatchObject({ credit_limit_cents: 500_000 });
  });

  it('carries what an import sets and nothing computed, and no nulls', () => {
    expect(customerBody({ identifier: 'C1', name: 'Acme', email: null, credit_limit: '$500.00', balance_cents: 900, notification_suppressed: 'Y', watermark: 4 })).toEqual({ identifier: 'C1', name: 'Acme', credit_limit_cents: 50000, notification_suppressed: true });
    const invoice = invoiceBody({ number: 'I1', customer_identifier: 'C1', currency: 'cad', amount_cents: 10000, owing_cents: 5000, subtotal_tax1: '$13.00', subtotal_tax2: '$0.00', auto_debit: false, shipping_address: { city: 'Laval', zip: 'H7A' }, line_item_attributes: [{ number: '1', description: 'Box', quantity: 2, unit_cost_cents: 4350, amount_cents: 8700, balance_cents: 8700, id: 7, extended_attributes: { colour: 'red' } }] });
    expect(invoiceBody({ number: 'I3', display_number: 'I3', customer_identifier: 'C1', auto_debit: true })).toEqual(invoiceBody({ number: 'I3', customer_identifier: 'C1' }));
    expect(invoice).toEqual({ number: 'I1', customer_identifier: 'C1', currency: 'CAD', amount: 10000, amount_override: true, subtotal_tax1: 1300, auto_debit: 'N', shipping_city: 'Laval', shipping_postal_code: 'H7A', replace_line_items: true, line_item_attributes: [{ number: '1', description: 'Box', quantity: 2, unit_cost_cents: 4350, amount: 8700, colour: 'red' }] });
    // Extra attributes stay extra: named like a field, they are left out, never over the export's own value.
    const forged = invoiceBody({ number: 'I4', customer_identifier: 'UP1', amount_cents: 500, extended_attributes: { customer_identifier: 'C1', amount: -250000, po_ref: 'X' }, line_item_attributes: [{ number: '1', unit_cost_cents: 100, quantity: 1, extended_attributes: { unit_cost_cents: -999, colour: 'blue' } }] });
    expect(forged).toMatchObject({ customer_identifier: 'UP1', amount: 500, po_ref: 'X', line_item_attributes: [{ unit_cost_cents: 100, colour: 'blue' }] });
    // Deleted or reversed: the key and what retired it, so both sides agree whatever else they show.
    expect(invoiceBody({ number: 'I2', customer_identifier: 'C1', amount_cents: 500, deleted: true })).toEqual({ number: 'I2', deleted: true });
    expect(invoiceBody({ number: 'I2', customer_identifier: 'C1', deleted: false })).toEqual(invoiceBody({ number: 'I2', customer_identifier: 'C1' }));
    expect(paymentBody({ payment_reference: 'P2', payment_amount: '50.00', status: 'ERROR (NSF)', status_reason: 'Insufficient funds', payment_amounts: [{ invoice_number: 'I1', amount: '30.00' }] })).toEqual({ identifier: 'P2', status: 'ERROR (NSF)', status_reason: 'Insufficient funds' });
    expect(paymentBody({ payment_reference: 'P3', payment_amount: '5.00', status: 'REVERSAL', status_reason: '' })).toEqual({ identifier: 'P3', status: 'REVERSAL' });
    expect(paymentBody({ payment_reference: 'P1', payment_amount: '50.00', payment_method: 'credit_card', status: 'PAID', payment_amounts: [{ invoice_number: 'I1', amount: '30.00' }, { invoice_number: 'I0', amount: '0.00', removed: true }] })).toEqual({ identifier: 'P1', amount_cents: 5000, external_payment_type: 'credit_card', payment_amounts_attributes: [{ invoice_number: 'I1', amount: 3000 }] });
  });
});

describe('polling a service without the full invoice feed', () => {
  it('reads every open invoice, then the recent feed from its start, by the greatest watermark seen', async () => {
    const open = [10, 20, 30].map((w) => ({ number: `O${w}`, customer_identifier: 'C', watermark: w }));
    const recent = [25, 40].map((w) => ({ number: `R${w}`, customer_identifier: 'C', watermark: w }));
    const asked: string[] = [];
    const call = async (path: string) => {
      asked.push(path);
      const url = new URL(path, 'http://x');
      const after = Number(url.searchParams.get('watermark'));
      const limit = Number(url.searchParams.get('limit'));
      if (url.pathname === '/api/exports/invoices') throw new UpstreamRefused(404, '{"error":"not found"}');
      const feed = url.pathname === '/api/exports/open_invoices' ? open : recent;
      const page = feed.filter((r) => r.watermark > after).slice(0, limit);
      return url.pathname === '/api/exports/open_invoices' ? { open_invoices: page } : { invoices: page };
    };
    let checkpoint = undefined as Parameters<typeof pullPage>[2];
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) {
      const page = await pullPage(call, invoices, checkpoint, 2);
      seen.push(...page.records.map((r) => String(r.number)));
      checkpoint = page.checkpoint;
    }
    expect(seen).toEqual(['O10', 'O20', 'O30', 'R25', 'R40']);
    expect(checkpoint).toEqual({ watermark: 40, feed: 'recent' });
    // Every invoice feed is asked for deleted invoices too (they are retired here).
    const withDeleted = '&options[include_deleted_invoices]=true';
    expect(asked[0]).toBe(`/api/exports/invoices?watermark=0&list=true&limit=2${withDeleted}`);
    expect(asked).toContain(`/api/exports/open_invoices?watermark=20&list=true&limit=2${withDeleted}`);
    expect(asked[asked.length - 1]).toBe(`/api/exports/invoices/recent?watermark=40&list=true&limit=2${withDeleted}`);
  });

  it('takes a link error as the link\'s, not as a missing feed', async () => {
    const call = async () => {
      throw new Error('upstream answered 503');
    };
    await expect(pullPage(call, invoices, undefined, 100)).rejects.toThrow('503');
  });
});
