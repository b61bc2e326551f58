import { describe, expect, it } from 'vitest';
import { encodeFrame, FrameDecoder, type Frame } from '../../src/terminal/frame';
import { Link, type LinkError } from '../../src/terminal/link';
import { ManualTimers } from './manual-timers';

type Side = 'a' | 'b';

/**
 * Two links joined by a wire the test controls: every write is queued, and `flush()` delivers
 * what is queued, passing each frame through `fault` (drop it, corrupt it, duplicate it).
 */
function wired(options: { fault?: (bytes: Buffer, from: Side, frame: Frame | undefined) => Buffer[] } = {}) {
  const timers = new ManualTimers();
  const queue: Array<{ from: Side; bytes: Buffer }> = [];
  const received: Record<Side, string[]> = { a: [], b: [] };
  const failures: Record<Side, LinkError[]> = { a: [], b: [] };
  const onWire: Array<{ from: Side; frame: Frame | undefined; bytes: Buffer }> = [];
  const make = (side: Side) =>
    new Link({
      write: (bytes) => queue.push({ from: side, bytes: Buffer.from(bytes) }),
      onMessage: (payload) => received[side].push(payload.toString()),
      onFailure: (err) => failures[side].push(err),
      ackTimeoutMs: 100,
      retries: 3,
      baudRate: 115200,
      timers,
    });
  const links = { a: make('a'), b: make('b') };
  const peek = (bytes: Buffer) => {
    const events = new FrameDecoder().push(bytes);
    return events[0]?.kind === 'frame' ? events[0].frame : undefined;
  };
  const flush = async () => {
    for (let guard = 0; queue.length > 0 && guard < 1000; guard++) {
      const { from, bytes } = queue.shift()!;
      const frame = peek(bytes);
      onWire.push({ from, frame, bytes });
      const pieces = options.fault ? options.fault(bytes, from, frame) : [bytes];
      for (const piece of pieces) links[from === 'a' ? 'b' : 'a'].receive(piece);
    }
    await Promise.resolve();
    await Promise.resolve();
  };
  return { timers, links, received, failures, onWire, flush };
}

const msg = (text: string) => Buffer.from(text);

describe('link: acknowledged delivery', () => {
  it('delivers a message once and resolves the send on its ACK', async () => {
    const w = wired();
    const sent = w.links.a.send(msg('hello'));
    await w.flush();
    await expect(sent).resolves.toBeUndefined();
    expect(w.received.b).toEqual(['hello']);
    expect(w.onWire.map((x) => `${x.from}:${x.frame?.type}`)).toEqual(['a:data', 'b:ack']);
    expect(w.links.a.stats).toMatchObject({ sent: 1, resent: 0 });
  });

  it('sends queued messages one at a time, in order, and both directions at once', async () => {
    const w = wired();
    const all = Promise.all([w.links.a.send(msg('1')), w.links.a.send(msg('2')), w.links.b.send(msg('x')), w.links.a.send(msg('3'))]);
    for (let i = 0; i < 10; i++) await w.flush();
    await all;
    expect(w.received.b).toEqual(['1', '2', '3']);
    expect(w.received.a).toEqual(['x']);
    const dataFromA = w.onWire.filter((x) => x.from === 'a' && x.frame?.type === 'data').map((x) => x.frame!.seq);
    expect(dataFromA).toEqual([1, 2, 3]);
  });

  it('resends the same frame (same SEQ and MSGID) when the receiver NAKs a corrupted copy', async () => {
    let spoiled = false;
    const w = wired({
      fault: (bytes, from, frame) => {
        if (from === 'a' && frame?.type === 'data' && !spoiled) {
          spoiled = true;
          const bad = Buffer.from(bytes);
          bad[bad.length - 1] = (bad[bad.length - 1] ?? 0) ^ 0xff;
          return [bad];
        }
        return [bytes];
      },
    });
    const sent = w.links.a.send(msg('pay'));
    for (let i = 0; i < 4; i++) await w.flush();
    await sent;
    expect(w.onWire.map((x) => `${x.from}:${x.frame?.type ?? 'corrupt'}`)).toEqual(['a:data', 'b:nak', 'a:data', 'b:ack']);
    const copies = w.onWire.filter((x) => x.from === 'a');
    expect(copies[0]!.frame).toMatchObject({ seq: copies[1]!.frame!.seq, msgId: copies[1]!.frame!.msgId });
    expect(w.received.b).toEqual(['pay']);
    expect(w.links.a.stats.resent).toBe(1);
    expect(w.links.b.stats).toMatchObject({ corrupt: 1, naksSent: 1 });
  });

  it('resends after silence, up to three times, then fails every queued message and reports the failure', async () => {
    const w = wired({ fault: (bytes, from) => (from === 'a' ? [] : [bytes]) }); // a's frames never arrive
    const first = w.links.a.send(msg('one'));
    const second = w.links.a.send(msg('two'));
    const outcome = Promise.allSettled([first, second]);
    for (let i = 0; i < 6; i++) {
      await w.flush();
      w.timers.advance(150);
    }
    const [r1, r2] = await outcome;
    expect(r1.status).toBe('rejected');
    expect(((r1 as PromiseRejectedResult).reason as LinkError).code).toBe('no_ack');
    expect(((r2 as PromiseRejectedResult).reason as LinkError).code).toBe('no_ack');
    expect(w.onWire.filter((x) => x.from === 'a').length).toBe(4); // the first send and 3 resends
    expect(w.failures.a).toHaveLength(1);
    expect(w.received.b).toEqual([]);
  });

  it('recognises a duplicate by its message id when an ACK is lost: delivered once, acknowledged twice', async () => {
    let dropped = false;
    const w = wired({
      fault: (bytes, from, frame) => {
        if (from === 'b' && frame?.type === 'ack' && !dropped) {
          dropped = true;
          return [];
        }
        return [bytes];
      },
    });
    const sent = w.links.a.send(msg('charge 42.00'));
    await w.flush();
    w.timers.advance(150); // no ACK: resend
    await w.flush();
    await sent;
    expect(w.received.b).toEqual(['charge 42.00']);
    expect(w.links.b.stats.duplicates).toBe(1);
    expect(w.onWire.filter((x) => x.from === 'b' && x.frame?.type === 'ack')).toHaveLength(2);
  });

  it('ignores an ACK for another frame', async () => {
    const w = wired({ fault: (bytes, from) => (from === 'a' ? [] : [bytes]) });
    const sent = w.links.a.send(msg('x'));
    await w.flush();
    const inFlight = w.onWire[0]!.frame!;
    w.links.a.receive(encodeFrame({ type: 'ack', seq: inFlight.seq, msgId: inFlight.msgId + 1, payload: Buffer.alloc(0) }));
    w.links.a.receive(encodeFrame({ type: 'ack', seq: (inFlight.seq + 1) & 0xff, msgId: inFlight.msgId, payload: Buffer.alloc(0) }));
    let settled = false;
    void sent.then(() => (settled = true), () => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    w.links.a.receive(encodeFrame({ type: 'ack', seq: inFlight.seq, msgId: inFlight.msgId, payload: Buffer.alloc(0) }));
    await expect(sent).resolves.toBeUndefined();
  });

  it('survives frames split and merged on the wire', async () => {
    const w = wired({ fault: (bytes) => [...bytes].map((b) => Buffer.from([b])) });
    const sent = Promise.all([w.links.a.send(msg('a'.repeat(100))), w.links.b.send(msg('b'))]);
    for (let i = 0; i < 6; i++) await w.flush();
    await sent;
    expect(w.received.b).toEqual(['a'.repeat(100)]);
    expect(w.received.a).toEqual(['b']);
  });

  it('drops a partial frame whose bytes stopped, and reads the next frame', async () => {
    const w = wired();
    const partial = encodeFrame({ type: 'data', seq: 9, msgId: 999, payload: msg('lost in the middle') }).subarray(0, 12);
    w.links.b.receive(partial);
    w.links.b.receive(encodeFrame({ type: 'data', seq: 10, msgId: 1000, payload: msg('next') }));
    expect(w.received.b).toEqual([]); // still read as the rest of the partial frame
    w.timers.advance(150); // the inter-byte gap passes
    expect(w.received.b).toEqual(['next']);
  });

  it('fails what is in flight when the line is reset', async () => {
    const w = wired({ fault: () => [] });
    const sent = w.links.a.send(msg('x'));
    await w.flush();
    w.links.a.reset('port reopened');
    await expect(sent).rejects.toMatchObject({ code: 'reset' });
    w.links.a.close();
    await expect(w.links.a.send(msg('y'))).rejects.toMatchObject({ code: 'closed' });
  });
});
