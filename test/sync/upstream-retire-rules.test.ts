import { describe, expect, it } from 'vitest';
import { UpstreamRefused, type UpstreamLink } from '../../src/engine/sync/upstream-link';
import { reportRetired, type ExceptionDetail } from '../../src/engine/sync/upstream-retire';
import { UPSTREAM_ENTITIES } from '../../src/engine/sync/upstream-shapes';

/**
 * When a deletion or reversal made on the hub is reported (the upstream still counts the money)
 * and when there is nothing to do, whatever the upstream's single view shows (a Laneway's, with
 * `deleted`; the reference's, without it). The process tests (upstream-retire.test.ts,
 * upstream-reference-retire.test.ts) run the same against real installs.
 */
const invoices = UPSTREAM_ENTITIES.find((e) => e.name === 'invoices')!;
const payments = UPSTREAM_ENTITIES.find((e) => e.name === 'payments')!;

async function reported(entity: typeof invoices, id: string, body: Record<string, unknown>, view: Record<string, unknown> | 404 | 503) {
  const asked: string[] = [];
  const link: UpstreamLink = {
    peerId: 'test',
    async call(path) {
      asked.push(path);
      if (view === 404) throw new UpstreamRefused(404, '{"error":"not found"}');
      if (view === 503) throw new Error('upstream answered 503');
      return view;
    },
    async send() {
      throw new Error('a retired record is never sent');
    },
  };
  const out: Array<ExceptionDetail & { message: string }> = [];
  await reportRetired(link, entity, { id, body, watermark: 1 }, async (_e, _k, _d, err, detail) => out.push({ ...detail!, message: (err as Error).message }));
  expect(asked).toEqual([entity.viewPath(id)]);
  return out;
}

describe('a deletion or reversal made on the hub, for the upstream', () => {
  const deleted = { number: 'I1', deleted: true };
  const reversed = { identifier: 'P1', status: 'REVERSAL' };

  it('reports an invoice the upstream still has owing, with what it owes', async () => {
    expect(await reported(invoices, 'I1', deleted, { number: 'I1', owing_cents: 2500, currency: 'cad', status: 'CURRENT' })).toEqual([
      expect.objectContaining({ reason: 'upstream_not_deleted', upstream_owing_cents: 2500, currency: 'CAD', message: expect.stringContaining('delete or void it on the upstream') }),
    ]);
    // The reference's view, formatted owing and no `deleted`.
    expect(await reported(invoices, 'I1', deleted, { number: 'I1', owing: '$12.00' })).toEqual([expect.objectContaining({ upstream_owing_cents: 1200, currency: null })]);
  });

  it('leaves alone an invoice the upstream never had, deleted too, or owes nothing on', async () => {
    expect(await reported(invoices, 'I1', deleted, 404)).toEqual([]);
    expect(await reported(invoices, 'I1', deleted, { number: 'I1', owing_cents: 2500, deleted: true })).toEqual([]);
    expect(await reported(invoices, 'I1', deleted, { number: 'I1', owing_cents: 0, status: 'CLOSED' })).toEqual([]);
  });

  it('reports a payment the upstream still counts, and leaves one it reversed too', async () => {
    expect(await reported(payments, 'P1', reversed, { payment_reference: 'P1', payment_amount: '40.00', status: 'PAID', currency: 'usd' })).toEqual([
      expect.objectContaining({ reason: 'upstream_not_reversed', upstream_status: 'PAID', upstream_amount_cents: 4000, currency: 'USD' }),
    ]);
    expect(await reported(payments, 'P1', reversed, { payment_reference: 'P1', payment_amount: '40.00', status: 'ERROR (NSF)' })).toEqual([]);
    expect(await reported(payments, 'P1', reversed, 404)).toEqual([]);
  });

  it('takes a link error as the link\'s: retried, not reported', async () => {
    await expect(reported(invoices, 'I1', deleted, 503)).rejects.toThrow('503');
  });
});
