import type { EngineCore, Tx } from '../core';
import type { Account } from '../account';
import { fail, isEngineError } from '../errors';
import type { Orders } from '../orders';
import type { Wallets } from '../wallets';
import type { GiftCards } from '../wallets/gift-cards';
import type { Keyer } from '../wallets/instruments';
import type { ProcessingCalendar } from './processing-day';
import type { TxData } from './transaction-record';

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
}

/** `made`: the approved refund or void; `parent`: the transaction it gives back (as it was before). */
export type ReversalObserver = (tx: Tx, made: TxData, parent: TxData) => Promise<void>;

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
