import type { ByteTransport, TransportEvents } from '../../src/terminal/transport';

/** Rewrites bytes on their way across (split, drop, corrupt...); returns the pieces to deliver. */
export type Tap = (bytes: Buffer, from: 'host' | 'device') => Buffer[];

/**
 * Two ends of an in-memory "cable", delivering asynchronously like a real port. `unplug()` closes
 * both ends as a pulled cable would; `plug()` opens them again.
 */
export class MemoryCable {
  readonly host: MemoryEnd;
  readonly device: MemoryEnd;
  plugged = true;
  tap: Tap | undefined;

  constructor() {
    this.host = new MemoryEnd(this, 'host');
    this.device = new MemoryEnd(this, 'device');
  }

  peerOf(end: MemoryEnd): MemoryEnd {
    return end === this.host ? this.device : this.host;
  }

  unplug(): void {
    this.plugged = false;
    this.host.drop('unplugged');
    this.device.drop('unplugged');
  }

  plug(): void {
    this.plugged = true;
    this.host.reopen();
    this.device.reopen();
  }
}

export class MemoryEnd implements ByteTransport {
  private events: TransportEvents | undefined;
  private open = false;
  private stopped = false;

  constructor(
    private readonly cable: MemoryCable,
    readonly side: 'host' | 'device',
  ) {}

  get isOpen(): boolean {
    return this.open;
  }

  start(events: TransportEvents): void {
    this.events = events;
    if (this.cable.plugged) this.reopen();
    else setImmediate(() => events.error('port not found'));
  }

  write(bytes: Buffer): void {
    if (!this.open) throw new Error('port is not open');
    const pieces = this.cable.tap ? this.cable.tap(Buffer.from(bytes), this.side) : [Buffer.from(bytes)];
    const peer = this.cable.peerOf(this);
    for (const piece of pieces) setImmediate(() => peer.deliver(piece));
  }

  deliver(bytes: Buffer): void {
    if (this.open && this.cable.plugged) this.events?.data(bytes);
  }

  drop(reason: string): void {
    if (!this.open) return;
    this.open = false;
    setImmediate(() => this.events?.closed(reason));
  }

  reopen(): void {
    if (this.stopped || this.open || !this.events) return;
    setImmediate(() => {
      if (this.stopped || this.open || !this.cable.plugged) return;
      this.open = true;
      this.events?.open();
    });
  }

  async close(): Promise<void> {
    this.stopped = true;
    this.open = false;
  }
}
