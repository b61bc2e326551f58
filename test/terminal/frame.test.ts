import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { crc16 } from '../../src/terminal/crc16';
import { encodeFrame, FrameDecoder, MAX_PAYLOAD, STX, type Frame, type FrameType } from '../../src/terminal/frame';
import { parseDeviceMessage } from '../../src/terminal/protocol';

const data = (payload: string, seq = 1, msgId = 0x01020304): Frame => ({ type: 'data', seq, msgId, payload: Buffer.from(payload) });

function frames(events: ReturnType<FrameDecoder['push']>): Frame[] {
  return events.flatMap((e) => (e.kind === 'frame' ? [e.frame] : []));
}

function feed(decoder: FrameDecoder, chunks: Buffer[]) {
  return chunks.flatMap((c) => decoder.push(c));
}

describe('CRC-16/CCITT-FALSE', () => {
  it('has the standard check value', () => {
    expect(crc16(Buffer.from('123456789'))).toBe(0x29b1);
    expect(crc16(Buffer.alloc(0))).toBe(0xffff);
  });
});

describe('frame encoding', () => {
  it('lays out STX, length and its complement, type, seq, message id, payload and CRC byte by byte', () => {
    const bytes = encodeFrame(data('{}'));
    expect([...bytes]).toEqual([0x02, 0x00, 0x08, 0xff, 0xf7, 0x44, 0x01, 0x01, 0x02, 0x03, 0x04, 0x7b, 0x7d, 0x92, 0xcb]);
  });

  it('encodes ACK and NAK as frames with an empty payload', () => {
    const ack = encodeFrame({ type: 'ack', seq: 7, msgId: 9, payload: Buffer.alloc(0) });
    expect(ack.length).toBe(13);
    expect(ack[5]).toBe(0x41);
    expect(encodeFrame({ type: 'nak', seq: 0, msgId: 0, payload: Buffer.alloc(0) })[5]).toBe(0x4e);
  });

  it('refuses payloads over the limit and out-of-range header fields', () => {
    expect(() => encodeFrame(data('x'.repeat(MAX_PAYLOAD + 1)))).toThrow(RangeError);
    expect(() => encodeFrame({ ...data('x'), seq: 256 })).toThrow(RangeError);
    expect(() => encodeFrame({ ...data('x'), msgId: -1 })).toThrow(RangeError);
  });
});

describe('frame decoding', () => {
  const one = encodeFrame(data('{"t":"status","rid":"s-1"}', 3, 77));

  it('decodes a frame delivered one byte at a time', () => {
    const d = new FrameDecoder();
    const out: Frame[] = [];
    for (const byte of one) out.push(...frames(d.push(Buffer.from([byte]))));
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ type: 'data', seq: 3, msgId: 77 });
    expect(out[0]!.payload.toString()).toBe('{"t":"status","rid":"s-1"}');
    expect(d.pending).toBe(0);
  });

  it('decodes a frame split at every possible point', () => {
    for (let cut = 1; cut < one.length; cut++) {
      const d = new FrameDecoder();
      const out = frames(feed(d, [one.subarray(0, cut), one.subarray(cut)]));
      expect(out, `split at ${cut}`).toHaveLength(1);
      expect(out[0]!.msgId).toBe(77);
    }
  });

  it('decodes several frames merged into one read, in order', () => {
    const many = [0, 1, 2].map((i) => encodeFrame(data(`{"n":${i}}`, i, 100 + i)));
    const out = frames(new FrameDecoder().push(Buffer.concat(many)));
    expect(out.map((f) => f.msgId)).toEqual([100, 101, 102]);
  });

  it('skips garbage before, between and after frames, including stray start bytes', () => {
    const garbage = Buffer.from([0x00, 0xff, STX, 0x13, STX, STX, 0x37, 0x02]);
    const d = new FrameDecoder();
    const out = frames(d.push(Buffer.concat([garbage, one, garbage, one, Buffer.from([0x55, 0x66])])));
    expect(out).toHaveLength(2);
    expect(d.pending).toBe(0);
    expect(d.skipped).toBeGreaterThan(0);
  });

  it('reports a frame with a bad CRC (for a NAK) and still finds the good frame after it', () => {
    const bad = Buffer.from(one);
    bad[12] = (bad[12] ?? 0) ^ 0x01;
    const events = new FrameDecoder().push(Buffer.concat([bad, one]));
    expect(events.map((e) => e.kind)).toEqual(['corrupt', 'frame']);
    expect(events[0]).toMatchObject({ reason: 'crc' });
  });

  it('does not wait on a stray start byte whose length check fails', () => {
    const d = new FrameDecoder();
    // STX, length 0x7fff with a wrong complement: rejected at once, so the frame after it decodes.
    const out = frames(d.push(Buffer.concat([Buffer.from([STX, 0x7f, 0xff, 0x00, 0x00]), one])));
    expect(out).toHaveLength(1);
  });

  it('abandons a truncated frame on resync and decodes what followed it', () => {
    const d = new FrameDecoder();
    const truncated = encodeFrame(data('x'.repeat(200))).subarray(0, 60);
    expect(frames(d.push(Buffer.concat([truncated, one])))).toHaveLength(0); // swallowed as "the rest of the frame"
    expect(d.pending).toBeGreaterThan(0);
    const out = frames(d.resync());
    expect(out.map((f) => f.msgId)).toEqual([77]);
  });

  it('rejects an unknown frame type as corrupt', () => {
    const odd = Buffer.from(one);
    odd[5] = 0x5a;
    // Recompute the CRC so only the type is wrong.
    odd.writeUInt16BE(crc16(odd, 1, odd.length - 2), odd.length - 2);
    expect(new FrameDecoder().push(odd)).toEqual([{ kind: 'corrupt', reason: 'type' }]);
  });

  it('finds every frame whatever the chunking and the garbage between them (property)', () => {
    const frameArb = fc.record({
      type: fc.constantFrom<FrameType>('data', 'ack', 'nak'),
      seq: fc.integer({ min: 0, max: 255 }),
      msgId: fc.integer({ min: 0, max: 0xffffffff }),
      payload: fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
    });
    // Garbage without start bytes: a stray STX is covered above; here the claim is exact.
    const garbageArb = fc.uint8Array({ maxLength: 20 }).map((a) => Buffer.from(a.map((b) => (b === STX ? 0x03 : b))));
    fc.assert(
      fc.property(fc.array(fc.tuple(garbageArb, frameArb), { minLength: 1, maxLength: 8 }), garbageArb, fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 30 }), (pairs, tail, cuts) => {
        const stream = Buffer.concat([...pairs.flatMap(([g, f]) => [g, encodeFrame(f)]), tail]);
        const d = new FrameDecoder();
        const out: Frame[] = [];
        let at = 0;
        let i = 0;
        while (at < stream.length) {
          const size = cuts[i++ % cuts.length]!;
          out.push(...frames(d.push(stream.subarray(at, at + size))));
          at += size;
        }
        expect(out.map((f) => [f.type, f.seq, f.msgId, f.payload.toString('hex')])).toEqual(pairs.map(([, f]) => [f.type, f.seq, f.msgId, f.payload.toString('hex')]));
      }),
      { numRuns: 200 },
    );
  });
});

describe('protocol messages', () => {
  it('zeroes a payload after parsing it and never throws on junk', () => {
    const payload = Buffer.from(JSON.stringify({ t: 'card', rid: 'P1', entry_mode: 'chip', pan: '4895281000000006', exp_month: '12', exp_year: '2029', cvm: 'pin', tip_cents: 0 }));
    const message = parseDeviceMessage(payload);
    expect(message?.t).toBe('card');
    expect(payload.every((b) => b === 0)).toBe(true);
    expect(parseDeviceMessage(Buffer.from('{not json'))).toBeUndefined();
    expect(parseDeviceMessage(Buffer.from('{"t":"card","rid":"P1","pan":"12"}'))).toBeUndefined();
  });
});
