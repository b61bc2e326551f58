import type { EngineCore } from '../core';
import { fail } from '../errors';
import { brandName } from '../gateway/reference-data';
import type { Wallets } from '../wallets';
import { bankProblemMessage, cardProblemMessage } from '../wallets/instruments';
import { FUNDS, cardDisplay, type FundDoc } from '../wallets/records';
import type { PayLinkMethod, PayLinkPaymentRequest } from '../../shared/schemas/pay-links';

/** Bank debits are ACH here: a link offers them on USD invoices only. */
export const methodsFor = (currency: string): PayLinkMethod[] => (currency.toUpperCase() === 'USD' ? ['creditCard', 'ach'] : ['creditCard']);

/**
 * The payer's card or account, checked by the wallets' rules (as the hosted frame's are) and
 * vaulted for this one payment, in no wallet: the gateway is asked with the vault's token, and the
 * number is gone once this returns.
 */
export async function vaultPayerMethod(core: EngineCore, wallets: Wallets, r: PayLinkPaymentRequest, currency: string): Promise<{ credit_card: string } | { bank_account: string }> {
  const need = (field: keyof PayLinkPaymentRequest, label: string) => {
    const v = r[field];
    if (v === undefined || (typeof v === 'string' && v.trim() === '')) throw fail.invalid('field_unspecified', `${label} is required`, [{ field, message: `${label} is required` }]);
  };
  if (r.type === 'creditCard') {
    need('name', 'The cardholder name');
    need('card_number', 'The card number');
    need('expiry_month', 'The expiry month');
    need('expiry_year', 'The expiry year');
    need('cvv', 'The security code');
    const input = wallets.parseCard({ name: r.name!, card_number: r.card_number!.replace(/[\s-]/g, ''), expiry_month: r.expiry_month!, expiry_year: r.expiry_year!, cvv: r.cvv! }, { requireCvv: true, requireAddress: false });
    if (input.problem) throw fail.precondition(`card_${input.problem}`, cardProblemMessage(input.problem, input.card));
    const { fund } = await core.mutate((tx) => wallets.vaultInTx(tx, { card: input }));
    return { credit_card: fund!.token };
  }
  if (!methodsFor(currency).includes('ach')) throw fail.invalid('method_not_offered', `Bank account payments are taken in USD only; this invoice is in ${currency.toUpperCase()}`, [{ field: 'type', message: 'Pay by card' }]);
  need('name', 'The account holder');
  need('routing_number', 'The routing number');
  need('account_number', 'The account number');
  const bank = wallets.parseBank({ account_holder: r.name!, routing_number: r.routing_number!.trim(), account_number: r.account_number!.trim(), account_type: r.account_type ?? 'checking', check_type: r.check_type ?? 'personal', currency: currency.toUpperCase() });
  if (bank.problem) throw fail.precondition('bank_account_unknown', bankProblemMessage(bank.bank));
  const { fund } = await core.mutate((tx) => wallets.vaultInTx(tx, { bank }));
  return { bank_account: fund!.token };
}

/** "Visa **0006", "Bank account **0016": how the payment and the receipt name what paid. */
export async function methodText(core: EngineCore, fundToken: string | null, type: PayLinkMethod): Promise<string> {
  const fund = fundToken ? (await core.get<FundDoc>(FUNDS, fundToken))?.data : undefined;
  if (fund?.card) return cardDisplay(brandName(fund.card.brand), fund.card.last4);
  if (fund?.bank) return `Bank account **${fund.bank.last4}`;
  return type === 'ach' ? 'Bank account' : 'Card';
}
