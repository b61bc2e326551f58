import type { EngineCore, Tx } from '../core';
import type { Account } from '../account';
import { fail, isEngineError } from '../errors';
import type { Orders } from '../orders';
import type { Wallets } from '../wallets';
import type { GiftCards } from '../wallets/gift-cards';
import type { Keyer } from '../wallets/instruments';
import type { ProcessingCalendar } from './processing-day';
import type { TxData } from './transaction-record';
import type { TransactionResult } from './results';

/** What every gateway operation works with. */
export interface GatewayContext {
  core: EngineCore;
  account: Account;
  orders: Orders;
  wallets: Wallets;
  giftCards: GiftCards;
  calendar: ProcessingCalendar;
  /** The vault's keyed hash (fingerprints of numbers, never the numbers). */
  keyer: Keyer;
  /**
   * Other domains' work on an approved refund or void, in its unit of work (all of it commits, or
   * none): the register journals one of its sales' card payments given back outside it.
   */
  reversalObservers: ReversalObserver[];
  /**
   * Other domains' checks on a refund or void about to give money back, in its unit of work
   * (a hub counts what its lanes were allowed to give back of the same payment). Throw to refuse.
   */
  reversalChecks: ReversalCheck[];
  /** Set on a lane paired with a hub: asks the hub before a refund or void gives money back (reversal-gate.ts). */
  reversalGate?: ReversalGate;
}

/** `made`: the approved refund or void; `parent`: the transaction it gives back (as it was before). */
export type ReversalObserver = (tx: Tx, made: TxData, parent: TxData) => Promise<void>;

/** `parent`: the payment about to be given back (as it is); `amount`: what goes back. */
export type ReversalCheck = (tx: Tx, parent: TxData, action: 'refund' | 'void', amount: number) => Promise<void>;

/**
 * A lane's agreement for a refund or void of one of its payments: `token` is the transaction the
 * reversal will be. Resolves with what to do once the reversal is made (`made`: its result;
 * undefined when it failed), or undefined when no agreement is needed; rejects to refuse it.
 */
export type ReversalGate = (claim: { parent: TxData; action: 'refund' | 'void'; amount_cents: number; token: string }) => Promise<((made: TransactionResult | undefined) => Promise<void>) | undefined>;

/** Gateway operations answer errors the reference's way (500, `errors: [code]`). */
export function asGatewayError(err: unknown): unknown {
  if (isEngineError(err) && (err.kind === 'precondition' || err.kind === 'invalid' || err.kind === 'not_found')) {
    return fail.gateway(err.code, err.message, err.details);
  }
  return err;
}

export function gatewayGuard(ctx: GatewayContext): void {
  if (!ctx.account.can('order_transactions')) throw fail.gateway('capability_disabled', 'This account is not enabled for order transactions');
  if (ctx.account.profile().environment !== 'sandbox') {
    throw fail.gateway('processor_unavailable', 'No payment processor is connected to this production install; nothing was charged');
  }
}
