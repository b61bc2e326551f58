import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openHarness, type Harness } from '../helpers/harness';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { uid } from '../helpers/receivables';

let h: Harness;
let a: Receiver;
let b: Receiver;

beforeAll(async () => {
  h = await openHarness({ api: true });
  a = await startReceiver();
  b = await startReceiver();
});
afterAll(async () => {
  await a.close();
  await b.close();
  await h.close();
});

const engine = () => h.t.engine;
const importCustomer = (identifier: string, name: string) => engine().receivables.importCustomer({ identifier, name } as Parameters<ReturnType<typeof engine>['receivables']['importCustomer']>[0]);
const nameIn = (body: Buffer) => (JSON.parse(body.toString()) as { name: string }).name;

describe('one body for the endpoints that take the same record', () => {
  it('renders and signs a record once for two endpoints: the same bytes and signature reach both', async () => {
    const ea = await engine().webhooks.create({ url: a.url, events: ['customer.created'] });
    const eb = await engine().webhooks.create({ url: b.url, events: ['customer.created'] });
    const views = vi.spyOn(engine().receivables, 'viewCustomer');
    const N = 6;
    for (let i = 0; i < N; i++) await importCustomer(uid('SB'), `Shared ${i}`);
    await engine().webhooks.drain();
    expect(a.received).toHaveLength(N);
    expect(b.received).toHaveLength(N);
    for (let i = 0; i < N; i++) {
      expect(b.received[i]!.body.equals(a.received[i]!.body)).toBe(true);
      expect(b.received[i]!.headers['x-service-signature']).toBe(a.received[i]!.headers['x-service-signature']);
    }
    // Rendered fewer times than delivered (once each unless a second passed between the two).
    expect(views.mock.calls.length).toBeLessThan(2 * N);
    views.mockRestore();
    await engine().webhooks.remove(ea.endpoint.id);
    await engine().webhooks.remove(eb.endpoint.id);
  });

  it('a change of the record published after a body was rendered makes the next delivery render it again', async () => {
    a.received.length = 0;
    b.received.length = 0;
    await engine().webhooks.create({ url: a.url, events: ['customer.created'] });
    const later = await engine().webhooks.create({ url: b.url, events: ['customer.created', 'customer.updated'] });
    await engine().webhooks.update(later.endpoint.id, { enabled: false });
    const customer = uid('SB');
    await importCustomer(customer, 'Before');
    await engine().webhooks.drain();
    expect(nameIn(a.received[0]!.body)).toBe('Before');
    // Only the second endpoint takes the update: nothing renders the record for it before it is on again.
    await importCustomer(customer, 'After');
    await engine().webhooks.update(later.endpoint.id, { enabled: true });
    await engine().webhooks.drain();
    expect(b.received.map((r) => [r.headers['x-service-event'], nameIn(r.body)])).toEqual([
      ['customer.created', 'After'],
      ['customer.updated', 'After'],
    ]);
  });
});
