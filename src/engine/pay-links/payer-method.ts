import type { EngineCore } from '../core';
import { fail } from '../errors';
import { brandName } from '../gateway/reference-data';
import { FUNDS, cardDisplay, type FundDoc } from '../wallets/records';
import type { CreditCardInput, BankAccountInput, TransactionRequest } from '../../shared/schemas/gateway';
import type { PayLinkMethod, PayLinkPaymentRequest } from '../../shared/schemas/pay-links';

/** Bank debits are ACH here: a link offers them on USD invoices only. */
export const methodsFor = (currency: string): PayLinkMethod[] => (currency.toUpperCase() === 'USD' ? ['creditCard', 'ach'] : ['creditCard']);

/**
 * The payer's card or account as the gateway's request takes a new one: the gateway's own rules
 * check it (format, expiry, the processor's verification with AVS on the billing postal code and
 * the security code), and only an approved one is vaulted, which the link then removes (payers do
 * not store a card by paying one invoice). A bank debit authorized on a web page is a WEB entry.
 */
export function payerMethod(r: PayLinkPaymentRequest, currency: string): Pick<TransactionRequest, 'credit_card' | 'bank_account' | 'sec_code'> {
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
    need('postal_code', 'The billing postal code');
    const card: CreditCardInput = { name: r.name!.trim(), card_number: r.card_number!.replace(/[\s-]/g, ''), expiry_month: r.expiry_month!, expiry_year: r.expiry_year!, cvv: r.cvv!.trim(), address: { postal_code: r.postal_code!.trim() } };
    return { credit_card: card };
  }
  if (!methodsFor(currency).includes('ach')) throw fail.invalid('method_not_offered', `Bank account payments are taken in USD only; this invoice is in ${currency.toUpperCase()}`, [{ field: 'type', message: 'Pay by card' }]);
  need('name', 'The account holder');
  need('routing_number', 'The routing number');
  need('account_number', 'The account number');
  const bank: BankAccountInput = { account_holder: r.name!.trim(), routing_number: r.routing_number!.trim(), account_number: r.account_number!.trim(), account_type: r.account_type ?? 'checking', check_type: r.check_type ?? 'personal', currency: currency.toUpperCase() };
  return { bank_account: bank, sec_code: 'WEB' };
}

/** "Visa **0006", "Bank account **0016": how the payment and the receipt name what paid. */
export async function methodText(core: EngineCore, fundToken: string | null, type: PayLinkMethod, last4: string | null): Promise<string> {
  const fund = fundToken ? (await core.get<FundDoc>(FUNDS, fundToken))?.data : undefined;
  if (fund?.card) return cardDisplay(brandName(fund.card.brand), fund.card.last4);
  if (fund?.bank) return `Bank account **${fund.bank.last4}`;
  return `${type === 'ach' ? 'Bank account' : 'Card'}${last4 ? ` **${last4}` : ''}`;
}
