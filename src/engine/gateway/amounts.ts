import { fail } from '../errors';
import type { GatewayContext } from './context';

/** The largest amount one transaction takes (the reference's limit). */
export const MAX_AMOUNT = 999_999_999;

export function parseAmount(value: number | string | null | undefined, options: { required: boolean; allowZero: boolean }): number | null {
  if (value === null || value === undefined || value === '') {
    if (options.required) throw fail.gateway('amount_unspecified', 'amount_cents is required');
    return null;
  }
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(n) || n < 0 || (!options.allowZero && n === 0)) {
    throw fail.gateway('invalid_amount', `amount_cents must be a whole number of cents${options.allowZero ? '' : ' above 0'}`);
  }
  if (n > MAX_AMOUNT) throw fail.gateway('invalid_amount', `amount_cents must not exceed ${MAX_AMOUNT}`);
  return n;
}

/** The transaction currency: the request's, else the order's, else the account's; one per account. */
export function resolveCurrency(ctx: GatewayContext, requested: string | null | undefined, orderCurrency: string | null | undefined): string {
  const account = ctx.account.profile().currency;
  const req = requested?.toLowerCase() ?? null;
  const ord = orderCurrency?.toLowerCase() ?? null;
  if (req && ord && req !== ord) throw fail.gateway('currency_mismatch', `currency ${req.toUpperCase()} differs from the order's ${ord.toUpperCase()}`);
  const currency = req ?? ord ?? account;
  if (currency !== account) throw fail.gateway('unsupported_currency', `This account's processors settle in ${account.toUpperCase()} only`);
  return currency;
}
