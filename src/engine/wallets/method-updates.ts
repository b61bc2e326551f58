import type { Tx } from '../core';
import { fail, notFound } from '../errors';
import type { WalletMethodPatch } from '../../shared/schemas/wallets';
import { isExpired, parseMonth, parseYear, toAddress } from './instruments';
import { FUNDS, putFund, touchWallet, type FundData, type FundDoc } from './records';
import { applyMethodSettings } from './method-settings';
import { str, type WalletsContext } from './vault';

/** Inside a unit of work: changes a payment method's settings, expiry or address. */
export async function updateMethodInTx(ctx: WalletsContext, tx: Tx, walletToken: string, fundToken: string, patch: WalletMethodPatch): Promise<{ fund_token: string }> {
  const doc = await tx.get<FundDoc>(FUNDS, fundToken);
  if (!doc || doc.data.wallet !== walletToken || doc.data.inactive) throw notFound('payment_method_not_found', `No payment method ${fundToken} in wallet ${walletToken}`, 'precondition');
  const f = structuredClone(doc.data);
  const common = f.card ? patch.credit_card : patch.bank_account;
  if (!common) throw notFound('payment_method_not_found', `Payment method ${fundToken} is a ${f.kind}: send a ${f.kind} patch`, 'precondition');
  await applyMethodSettings(tx, f, common);
  if (f.card && patch.credit_card) patchCard(f.card, patch.credit_card, tx.now, ctx.account.profile().timezone);
  if (f.bank && patch.bank_account) patchBank(f.bank, patch.bank_account);
  f.updated_at = tx.at;
  await putFund(tx, f, false);
  await touchWallet(tx, walletToken);
  return { fund_token: f.token };
}

/** A card's holder, expiry (which must not have passed) and address. */
function patchCard(card: NonNullable<FundData['card']>, p: NonNullable<WalletMethodPatch['credit_card']>, nowMs: number, timeZone: string): void {
  if (p.name !== undefined) card.cardholder = str(p.name);
  if (p.expiry_month !== undefined || p.expiry_year !== undefined) {
    const month = p.expiry_month !== undefined ? parseMonth(p.expiry_month) : card.expiry_month;
    const year = p.expiry_year !== undefined ? parseYear(p.expiry_year) : card.expiry_year;
    if (month === undefined || year === undefined) throw fail.precondition('expiry_unspecified', 'credit_card.expiry_month must be 1..12 and expiry_year YYYY');
    if (isExpired(month, year, nowMs, timeZone)) throw fail.precondition('card_expired', `The new expiry ${month}/${year} has passed`);
    card.expiry_month = month;
    card.expiry_year = year;
  }
  if (p.address !== undefined) card.address = toAddress(p.address);
}

function patchBank(bank: NonNullable<FundData['bank']>, p: NonNullable<WalletMethodPatch['bank_account']>): void {
  if (p.account_holder !== undefined) bank.account_holder = str(p.account_holder) ?? bank.account_holder;
  if (p.account_type !== undefined) bank.account_type = p.account_type;
  if (p.check_type !== undefined) bank.check_type = p.check_type;
  if (p.external_name !== undefined) bank.external_name = str(p.external_name);
  if (p.external_number !== undefined) bank.external_number = str(p.external_number);
  if (p.address !== undefined) bank.address = toAddress(p.address);
}

/** Inside a unit of work: removes a payment method. */
export async function removeMethodInTx(tx: Tx, walletToken: string, fundToken: string): Promise<{ fund_token: string }> {
  const doc = await tx.get<FundDoc>(FUNDS, fundToken);
  if (!doc || doc.data.wallet !== walletToken) throw notFound('payment_method_not_found', `No payment method ${fundToken} in wallet ${walletToken}`, 'precondition');
  if (doc.data.inactive) throw fail.precondition('payment_method_inactive', `Payment method ${fundToken} was already removed`);
  // Kept (inactive) so past transactions still name it; it can no longer pay.
  await putFund(tx, { ...doc.data, inactive: true, updated_at: tx.at }, false);
  await touchWallet(tx, walletToken);
  return { fund_token: fundToken };
}
