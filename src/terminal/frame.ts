import { crc16 } from './crc16';

/**
 * The frame of the lane link (docs/terminal-protocol.md):
 *
 *   STX | LEN (u16 BE) | ~LEN (u16 BE) | TYPE | SEQ | MSGID (u32 BE) | PAYLOAD | CRC-16 (u16 BE)
 *
 * LEN counts TYPE through PAYLOAD. ~LEN (its complement) lets the reader reject a stray STX in
 * garbage at once instead of waiting for a bogus length's worth of bytes. The CRC covers LEN
 * through PAYLOAD.
 */
export const STX = 0x02;
export const FRAME_TYPES = { data: 0x44, ack: 0x41, nak: 0x4e } as const; // 'D', 'A', 'N'
export type FrameType = keyof typeof FRAME_TYPES;
export const MAX_PAYLOAD = 8192;
/** STX + LEN + ~LEN. */
const PREFIX = 5;
/** TYPE + SEQ + MSGID. */
const BODY_HEADER = 6;
const CRC_BYTES = 2;
export const FRAME_OVERHEAD = PREFIX + BODY_HEADER + CRC_BYTES;

export interface Frame {
  type: FrameType;
  /** 0..255, the sender's frame counter; an ACK or NAK echoes it. */
  seq: number;
  /** 0..2^32-1, the message's identity: a resent frame keeps it, so the receiver can drop copies. */
  msgId: number;
  payload: Buffer;
}

const TYPE_OF = new Map<number, FrameType>(Object.entries(FRAME_TYPES).map(([name, byte]) => [byte, name as FrameType]));

export function encodeFrame(frame: Frame): Buffer {
  const { payload } = frame;
  if (payload.length > MAX_PAYLOAD) throw new RangeError(`frame payload of ${payload.length} bytes is over the ${MAX_PAYLOAD}-byte limit`);
  if (!Number.isInteger(frame.seq) || frame.seq < 0 || frame.seq > 0xff) throw new RangeError('seq must be 0..255');
  if (!Number.isInteger(frame.msgId) || frame.msgId < 0 || frame.msgId > 0xffffffff) throw new RangeError('msgId must be a u32');
  const len = BODY_HEADER + payload.length;
  const out = Buffer.alloc(PREFIX + len + CRC_BYTES);
  out[0] = STX;
  out.writeUInt16BE(len, 1);
  out.writeUInt16BE(len ^ 0xffff, 3);
  out[5] = FRAME_TYPES[frame.type];
  out[6] = frame.seq;
  out.writeUInt32BE(frame.msgId, 7);
  payload.copy(out, PREFIX + BODY_HEADER);
  out.writeUInt16BE(crc16(out, 1, PREFIX + len), PREFIX + len);
  return out;
}

export type DecodeEvent =
  | { kind: 'frame'; frame: Frame }
  /** A complete frame whose CRC (or type) was wrong: the sender should be told (NAK). */
  | { kind: 'corrupt'; reason: 'crc' | 'type' };

/**
 * Turns a byte stream into frames whatever the reads look like: a frame split across reads, several
 * frames in one read, garbage before, between or inside frames. Bytes that cannot start a frame
 * are skipped; after a bad CRC only the start byte is dropped and the scan resumes from the next
 * byte, so a good frame hidden behind garbage is still found.
 */
export class FrameDecoder {
  private buffer: Buffer = Buffer.alloc(0);
  /** Bytes skipped because they could not start a frame (statistics). */
  skipped = 0;

  push(chunk: Uint8Array): DecodeEvent[] {
    const previous = this.buffer;
    this.buffer = previous.length === 0 ? Buffer.from(chunk) : Buffer.concat([previous, chunk]);
    previous.fill(0);
    return this.scan();
  }

  /** Bytes held for a frame that has not fully arrived. */
  get pending(): number {
    return this.buffer.length;
  }

  /**
   * Gives up on a partial frame that stopped arriving (the link calls this after an inter-byte
   * gap): its start byte is dropped and what followed is scanned again.
   */
  resync(): DecodeEvent[] {
    if (this.buffer.length === 0) return [];
    this.drop(1);
    this.skipped += 1;
    return this.scan();
  }

  clear(): void {
    this.buffer.fill(0);
    this.buffer = Buffer.alloc(0);
  }

  private scan(): DecodeEvent[] {
    const events: DecodeEvent[] = [];
    for (;;) {
      const start = this.buffer.indexOf(STX);
      if (start < 0) {
        this.skipped += this.buffer.length;
        this.clear();
        return events;
      }
      if (start > 0) {
        this.skipped += start;
        this.drop(start);
      }
      if (this.buffer.length < PREFIX) return events;
      const len = this.buffer.readUInt16BE(1);
      const check = this.buffer.readUInt16BE(3);
      if ((len ^ 0xffff) !== check || len < BODY_HEADER || len > BODY_HEADER + MAX_PAYLOAD) {
        this.skipped += 1;
        this.drop(1);
        continue;
      }
      const total = PREFIX + len + CRC_BYTES;
      if (this.buffer.length < total) return events;
      const crc = this.buffer.readUInt16BE(PREFIX + len);
      const type = TYPE_OF.get(this.buffer[5] ?? 0);
      if (crc !== crc16(this.buffer, 1, PREFIX + len) || !type) {
        events.push({ kind: 'corrupt', reason: type ? 'crc' : 'type' });
        this.skipped += 1;
        this.drop(1);
        continue;
      }
      const payload = Buffer.from(this.buffer.subarray(PREFIX + BODY_HEADER, PREFIX + len));
      events.push({ kind: 'frame', frame: { type, seq: this.buffer[6] ?? 0, msgId: this.buffer.readUInt32BE(7), payload } });
      this.drop(total);
    }
  }

  /** Consumed bytes are zeroed: a frame may carry card data, which must not linger in a buffer. */
  private drop(n: number): void {
    this.buffer.fill(0, 0, n);
    this.buffer = this.buffer.subarray(n);
    if (this.buffer.length === 0) this.buffer = Buffer.alloc(0);
  }
}
