import type { Timers } from '../timers';
import type { EntryMode } from './cards';

/** How a simulated device is told to behave: the customer's scenario, the pace, the card and the hooks. */
export const SCENARIOS = [
  'approve',
  'decline',
  'card_removed',
  'customer_cancels',
  'pin',
  'signature',
  'timeout',
  'busy',
  'garbage',
  'disconnect',
  'nak_storm',
  'reset',
] as const;
export type Scenario = (typeof SCENARIOS)[number];

export interface Pace {
  /** Until the customer presents a card. */
  presentMs: number;
  /** Reading the card. */
  readMs: number;
  /** Entering the PIN or choosing a tip. */
  pinMs: number;
  /** Signing. */
  signMs: number;
  /** How long a result stays on screen before the device returns to idle. */
  resultMs: number;
}

export const FAST_PACE: Pace = { presentMs: 30, readMs: 20, pinMs: 30, signMs: 30, resultMs: 50 };
export const HUMAN_PACE: Pace = { presentMs: 2000, readMs: 800, pinMs: 1800, signMs: 2500, resultMs: 3000 };

export interface SimulatorOptions {
  scenario?: Scenario;
  /** The card the customer presents (a sandbox test card, or any number of a known brand). */
  card?: string;
  /** How it is presented; by default the card's usual way. */
  entry?: EntryMode;
  /** The tip the customer picks when asked (percent; 0 = no tip). */
  tipPercent?: number;
  pace?: Partial<Pace>;
  /** The customer acts only through present() / customerCancel() / removeCard() (a person at the CLI). */
  interactive?: boolean;
  /** Overrides the host's card wait (timeout_s), for tests. */
  cardTimeoutMs?: number;
  /** Scenario `disconnect`: how long the device goes silent mid-payment (default 10 s). */
  silenceMs?: number;
  firmware?: string;
  model?: string;
  serial?: string;
  link?: { ackTimeoutMs?: number; retries?: number; baudRate?: number };
  timers?: Timers;
  /** Every screen change. */
  onScreen?(lines: string[]): void;
  /** What happens, in words (never a full card number). */
  onEvent?(text: string): void;
}
