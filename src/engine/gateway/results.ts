import type { TransactionResponse } from '../../shared/schemas/gateway';
import type { GatewayContext } from './context';
import { transactionView, type TxData } from './transaction-record';

/** A gateway operation's answer: a decline is `approved: false` (HTTP 200), never an error. */
export interface TransactionResult {
  approved: boolean;
  body: TransactionResponse;
  /**
   * A gift card sale's balance left on the card, read in the unit of work that debited it (not in
   * the reference's body: the register's tender answer says it). Absent otherwise, and on a replay.
   */
  gift_balance_cents?: number;
}

export function resultOf(ctx: GatewayContext, t: TxData): TransactionResult {
  const method = t.payment_method;
  const approved = t.outcome.approved && t.state !== 'cancelled';
  return {
    approved,
    body: {
      success: approved,
      transaction: t.token,
      authorization: t.outcome.processor_reference,
      gateway_token: t.outcome.processor_id,
      order: t.order?.identifier ?? null,
      wallet: t.wallet,
      // Every tender's key, as the reference's answer lists them: the one used names its fund.
      credit_card: method === 'credit_card' ? t.fund : null,
      bank_account: method === 'bank_account' ? t.fund : null,
      gift_card: method === 'gift_card' ? t.gift_card : null,
      response_code: t.outcome.response_code,
      transactions: [transactionView(t, { accountName: ctx.account.profile().name })],
    },
  };
}
