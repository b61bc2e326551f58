import type { TransactionRequest } from '../../shared/schemas/gateway';
import type { GatewayContext } from './context';
import { parseAmount } from './amounts';
import { givesBack } from './prior-transaction-ops';
import type { TransactionResult } from './results';
import { refundAmount, voidRefusal } from './transaction-record';
import { getTx, newTxToken } from './transaction-store';
import { findByUnique, retryKeyOf, uniqueKey } from './idempotency';

/**
 * A refund or void of a payment, through the install's reversal gate when it has one (a lane
 * paired with a hub: docs/sync.md, "Refunds of a lane's payments"). The gate agrees to the money
 * going back before anything is asked of the processor, under the token the reversal will take
 * (`run(token)`), and is told the outcome after. Without a gate, or for what gives no money back
 * (an authorization's release, a void of a refund), it runs as it is.
 */
export async function throughReversalGate(ctx: GatewayContext, action: 'refund' | 'void', request: TransactionRequest, run: (token: string | undefined) => Promise<TransactionResult>): Promise<TransactionResult> {
  const gate = ctx.reversalGate;
  const parent = gate && request.transaction ? await getTx(ctx.core, request.transaction) : undefined;
  if (!gate || !parent || !givesBack(parent) || parent.state === 'declined') return run(undefined);
  // A retry of a reversal made already is answered by it (idempotency.ts): nothing more goes back.
  const key = uniqueKey(action, parent.order?.identifier ?? null, retryKeyOf(request));
  if (key && (await findByUnique(ctx.core, key))) return run(undefined);
  // This install's own rules first: a refund it refuses anyway asks nothing of the hub.
  const now = ctx.core.clock.now();
  let amount: number;
  if (action === 'refund') {
    amount = refundAmount(parent, parseAmount(request.amount_cents, { required: false, allowZero: false }));
  } else {
    const refusal = voidRefusal(parent, now);
    if (refusal) throw refusal;
    amount = parent.amount_cents;
  }
  const token = newTxToken(ctx, now);
  const done = await gate({ parent, action, amount_cents: amount, token });
  let made: TransactionResult | undefined;
  try {
    made = await run(token);
    return made;
  } finally {
    if (done) await done(made);
  }
}

