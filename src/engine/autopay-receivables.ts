import { isEngineError } from './errors';
import type { Receivables } from './receivables';
import { REVERSED } from './receivables/ledger';
import type { PutBack, ReceivablesPort } from './wallets/autopay-port';

const missing = (err: unknown) => isEngineError(err) && err.kind === 'not_found';

type Applied = { customer_identifier: string; payment_amounts: Array<{ invoice_number?: string; amount: string; status: string }>; status: string };

/** What a payment pays each invoice, as the view says it (a reversed payment pays nothing). */
function appliedTo(p: Applied): Map<string, number> {
  const out = new Map<string, number>();
  if (REVERSED.has(p.status)) return out;
  for (const a of p.payment_amounts) {
    if (a.invoice_number) out.set(a.invoice_number, (out.get(a.invoice_number) ?? 0) + Number(a.amount));
  }
  return out;
}

/** The invoices a change of the payment left with less of it applied: owing again. */
function lessApplied(before: Applied, after: Applied): PutBack {
  const now = appliedTo(after);
  const invoices = [...appliedTo(before)].filter(([number, amount]) => amount > 0 && (now.get(number) ?? 0) < amount).map(([number]) => number);
  return { customer_identifier: before.customer_identifier, invoices };
}
const NOTHING: PutBack = { customer_identifier: '', invoices: [] };

/**
 * Autopay reaches the receivables domain through the port it defines; this is the wiring. A
 * payment is recorded under the gateway transaction token, so a tick that runs twice records it
 * once.
 */
export function receivablesForAutopay(receivables: Receivables): ReceivablesPort {
  const viewPayment = async (reference: string, options?: { tree?: boolean }) => {
    try {
      return await receivables.viewPayment(reference, options);
    } catch (err) {
      if (missing(err)) return undefined;
      throw err;
    }
  };
  const customerName = async (identifier: string): Promise<string | null | undefined> => {
    try {
      return (await receivables.viewCustomer(identifier)).name ?? null;
    } catch (err) {
      if (missing(err)) return undefined;
      throw err;
    }
  };
  return {
    customerName,
    async setAutoDebit(identifier, enabled) {
      try {
        await receivables.setAutoDebit(identifier, enabled);
      } catch (err) {
        // A customer receivables does not know (agreements made before it was wired) has no flag to keep.
        if (!missing(err)) throw err;
      }
    },
    async customerExists(identifier) {
      return (await customerName(identifier)) !== undefined;
    },
    async dueInvoices(customerIdentifier, asOfDate) {
      let due;
      try {
        due = await receivables.dueOpenInvoices(customerIdentifier, asOfDate);
      } catch (err) {
        if (missing(err)) return [];
        throw err;
      }
      return due.map((i) => ({
        number: i.number,
        customer_identifier: customerIdentifier,
        currency: i.currency,
        owing_cents: i.owing_cents,
        discount_cents: i.discount_cents,
        due_date: i.due_date ?? i.date,
        auto_debit: i.auto_debit,
        auto_debit_reference: i.auto_debit_reference,
      }));
    },
    async recordPayment(p) {
      if (await viewPayment(p.identifier)) return { identifier: p.identifier };
      await receivables.recordPayment({
        customer_identifier: p.customer_identifier,
        amount_cents: p.amount_cents,
        currency: p.currency,
        date: p.date,
        invoices: p.invoices,
        channel: 'autopay',
        payment_method: p.payment_method === 'credit_card' ? 'Credit card' : 'Bank account',
        transaction_token: p.transaction_token,
        ...(p.authorization_code ? { authorization_code: p.authorization_code } : {}),
        status: p.status,
        reference: p.identifier,
      });
      return { identifier: p.identifier };
    },
    async reversePayment(identifier, status, reason, cause) {
      const before = await viewPayment(identifier);
      return before ? lessApplied(before, await receivables.reversePayment(identifier, status, reason, cause)) : NOTHING;
    },
    async keepOfPayment(identifier, keepCents, reason, cause) {
      const before = await viewPayment(identifier);
      return before ? lessApplied(before, await receivables.keepOfPayment(identifier, keepCents, reason, cause)) : NOTHING;
    },
    keepOfPaymentInTx: (tx, identifier, keepCents, reason, cause) => receivables.keepOfPaymentInTx(tx, identifier, keepCents, reason, cause).then((c) => (c ? lessApplied(c.before, c.after) : NOTHING)),
    owedAgainIfKept: (identifier, keepCents) => receivables.owedAgainIfKept(identifier, keepCents),
    async settlePayment(identifier) {
      if (await viewPayment(identifier)) await receivables.settlePayment(identifier);
    },
    viewPayment,
  };
}
