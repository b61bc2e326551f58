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
      ...(method === 'credit_card' ? { credit_card: t.fund } : {}),
      ...(method === 'bank_account' ? { bank_account: t.fund } : {}),
      ...(method === 'gift_card' ? { gift_card: t.gift_card } : {}),
      response_code: t.outcome.response_code,
      transactions: [transactionView(t, { accountName: ctx.account.profile().name })],
    },
  };
}
