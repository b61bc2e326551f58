/**
 * Timer source of the link and the lane sessions. The real one never keeps a process alive on its
 * own (an open serial port does that); tests of the link's state machine step a manual one.
 */
export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const realTimers: Timers = {
  set(fn, ms) {
    const handle = setTimeout(fn, ms);
    handle.unref();
    return handle;
  },
  clear(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};

/** Milliseconds a number of bytes takes on the wire at a baud rate (start + 8 data + stop bits). */
export function wireMs(bytes: number, baudRate: number, bitsPerByte = 10): number {
  return (bytes * bitsPerByte * 1000) / baudRate;
}
