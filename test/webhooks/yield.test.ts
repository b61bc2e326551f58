import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHarness, type Harness } from '../helpers/harness';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { uid } from '../helpers/receivables';

let h: Harness;
let rx: Receiver;

beforeAll(async () => {
  h = await openHarness({ api: true });
  rx = await startReceiver();
});
afterAll(async () => {
  await rx.close();
  await h.close();
});

const BUSY_MS = 3_000;

describe('webhook deliveries yield to the writers', () => {
  it('while a unit of work waits to commit, an endpoint starts about one delivery a second; then the backlog goes out, complete and in order', async () => {
    const engine = h.t.engine;
    const importCustomer = (name: string) => engine.receivables.importCustomer({ identifier: uid('Y'), name } as Parameters<typeof engine.receivables.importCustomer>[0]);
    rx.script([{ status: 200, delayMs: 1_000 }], 200);
    await engine.webhooks.create({ url: rx.url, events: ['customer.created'], concurrency: 1 });
    await importCustomer('First');
    await rx.waitFor(1); // its answer takes a second: the rest queue behind it meanwhile
    const WAITING = 40;
    await Promise.all(Array.from({ length: WAITING }, (_, i) => importCustomer(`Queued ${i}`)));
    // A unit that holds the write queue (as a long import's next group would).
    let release = () => {};
    const holding = engine.core.mutate(() => new Promise<void>((r) => (release = r)));
    await new Promise((r) => setTimeout(r, BUSY_MS));
    // The first delivery, one for the 40 units committed since it started, then one a second.
    expect(rx.received.length).toBeLessThanOrEqual(2 + BUSY_MS / 1_000 + 1);
    release();
    await holding;

    await rx.waitFor(WAITING + 1, 30_000);
    await engine.webhooks.drain();
    const marks = rx.received.map((r) => Number(r.headers['x-service-watermark']));
    const events = (await engine.core.eventsSince(0, 100_000)).filter((e) => e.type === 'customer.created').map((e) => e.watermark);
    expect(marks).toEqual(events.slice(-(WAITING + 1)));
  });
});
