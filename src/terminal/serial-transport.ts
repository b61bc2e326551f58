import { SerialPort } from 'serialport';
import type { SerialSettings } from '../engine/lanes/driver-port';
import { realTimers, type Timers } from './timers';
import type { ByteTransport, TransportEvents } from './transport';

export interface SerialTransportOptions {
  /** First reopen delay; doubles up to maxBackoffMs and resets after a successful open. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  timers?: Timers;
}

/** Why an open failed, in words for the lane's last_error (no internals). */
function openFailure(err: Error, path: string): string {
  const m = err.message;
  if (/no such file|ENOENT/i.test(m)) return `port ${path} not found`;
  if (/lock|busy|EBUSY|resource temporarily unavailable/i.test(m)) return `port ${path} is in use by another program`;
  if (/permission|EACCES/i.test(m)) return `no permission to open port ${path}`;
  return `port ${path} could not be opened`;
}

/**
 * A serial port that keeps itself open: when it is missing at start or unplugged later it is
 * reopened with backoff until close() is called, so a lane comes back by itself when its port
 * does.
 */
export class SerialTransport implements ByteTransport {
  /** Set only while open. */
  private port: SerialPort | undefined;
  private opening = false;
  private events: TransportEvents | undefined;
  private stopped = false;
  private retryTimer: unknown;
  private backoff: number;
  private readonly minBackoff: number;
  private readonly maxBackoff: number;
  private readonly timers: Timers;

  constructor(
    private readonly settings: SerialSettings,
    options: SerialTransportOptions = {},
  ) {
    this.minBackoff = options.minBackoffMs ?? 200;
    this.maxBackoff = options.maxBackoffMs ?? 5000;
    this.backoff = this.minBackoff;
    this.timers = options.timers ?? realTimers;
  }

  get isOpen(): boolean {
    return this.port?.isOpen ?? false;
  }

  start(events: TransportEvents): void {
    this.events = events;
    this.open();
  }

  write(bytes: Buffer): void {
    const port = this.port;
    if (!port?.isOpen) throw new Error('port is not open');
    port.write(bytes);
  }

  async close(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer !== undefined) this.timers.clear(this.retryTimer);
    const port = this.port;
    this.port = undefined;
    if (port?.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
  }

  private open(): void {
    if (this.stopped || this.opening || this.port) return;
    this.opening = true;
    const { path, baudRate, dataBits, parity, stopBits } = this.settings;
    const port = new SerialPort({ path, baudRate, dataBits, parity, stopBits, autoOpen: false, lock: true });
    port.on('data', (chunk: Buffer) => {
      if (this.port === port) this.events?.data(chunk);
    });
    // 'error' after open is followed by 'close'; listening keeps it from being thrown.
    port.on('error', () => undefined);
    // Only the current port's first close counts: one reopen chain, never two ports on one path.
    port.on('close', (err: (Error & { disconnected?: boolean }) | null) => {
      if (this.port !== port) return;
      this.port = undefined;
      if (this.stopped) return;
      this.events?.closed(err?.disconnected ? `port ${path} disconnected` : `port ${path} closed`);
      this.schedule();
    });
    port.open((err) => {
      this.opening = false;
      if (this.stopped) {
        if (!err) port.close(() => undefined);
        return;
      }
      if (err) {
        this.events?.error(openFailure(err, path));
        this.schedule();
        return;
      }
      this.port = port;
      this.backoff = this.minBackoff;
      this.events?.open();
    });
  }

  private schedule(): void {
    if (this.stopped || this.retryTimer !== undefined) return;
    const delay = this.backoff;
    this.backoff = Math.min(this.maxBackoff, this.backoff * 2);
    this.retryTimer = this.timers.set(() => {
      this.retryTimer = undefined;
      this.open();
    }, delay);
  }
}
