/** A byte pipe to the other end of a lane: a serial port, or an in-memory pair in unit tests. */
export interface TransportEvents {
  open(): void;
  data(chunk: Buffer): void;
  /** The pipe closed on its own (unplugged, the other side went away); it reopens by itself. */
  closed(reason: string): void;
  /** Opening failed (the port is missing, busy, not permitted); it keeps trying. */
  error(message: string): void;
}

export interface ByteTransport {
  start(events: TransportEvents): void;
  write(bytes: Buffer): void;
  readonly isOpen: boolean;
  /** Stops for good: closes the port and stops reopening it. */
  close(): Promise<void>;
}
