import type { Tx } from '../core';
import { fail, notFound } from '../errors';
import type { TransactionRequest } from '../../shared/schemas/gateway';
import type { OrderInput } from '../../shared/schemas/orders';
import { EXPIRED_CARD_ERROR, bankProblemMessage, cardProblemMessage, isExpired, type BankInputResult, type CardInputResult } from '../wallets/instruments';
import type { FundData } from '../wallets';
import type { GiftCardData, PinAttempt, PinGate } from '../wallets/gift-cards';
import type { ResolvedOrder } from '../orders';
import { avsResponse, cvvResponse } from './sandbox/checks';
import { APPROVED, chargeBank, chargeCard, giftDecision, outcomeOf, verifyCard, type Decision } from './sandbox/processor';
import { buildTransaction, type Action, type BankFacts, type CardFacts, type PaymentMethod } from './transaction-record';
import { asGatewayError, type GatewayContext } from './context';
import { findByUnique, fingerprintOf, replayOf, retryKeyOf, uniqueKey } from './idempotency';
import { putTx, stampOf } from './transaction-store';
import { parseAmount, resolveCurrency } from './amounts';
import { resultOf, type TransactionResult } from './results';
import { settlementTokenFor } from './settlement-tokens';

/**
 * Operations that take money from, or give it to, a payment method: verify, authorize, sale and
 * (unlinked) credit. Each is prepared outside the unit of work (parsing, card checks) and then run
 * inside it in two phases: every read and check first, every write last.
 */
export type ChargeAction = 'verify' | 'authorize' | 'sale' | 'credit';

export type Source =
  | { kind: 'fund'; token: string; expect: 'credit_card' | 'bank_account' | null }
  | { kind: 'card'; input: CardInputResult }
  | { kind: 'bank'; input: BankInputResult }
  | { kind: 'gift'; token?: string; card_number?: string; pin?: string | null; attempt?: PinAttempt };

/**
 * AVS and CVV results a caller found for a stored card it charges (the ecommerce API: the AVS answer
 * for the sale's billing address, the CVV answer from when its frame tokenized the card). They are
 * recorded as a new card's are (`avs_response`, `cvv_response`, inside `gateway_response` too).
 */
export interface CardChecks {
  avs: string | null;
  cvv: string | null;
}

export interface PreparedCharge {
  action: ChargeAction;
  /** See CardChecks: for a stored card only; without them a stored card's AVS is its own address's and it has no CVV answer. */
  checks?: CardChecks;
  amount: number;
  currency: string | null;
  source: Source;
  order: string | OrderInput | null;
  contact: { email: string | null; first_name: string | null; last_name: string | null } | null;
  customerIdentifier: string | null;
  reference: string | null;
  /** unique_reference: the retry key (idempotency.ts). */
  retryKey: string | null;
  actor: string | null;
  feeExempt: boolean;
  secCode: string | null;
  industry: string | null;
  device: string | null;
  sourceId: string;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/** Picks the one payment method a request names; terminal requests are routed elsewhere. */
export function prepareCharge(ctx: GatewayContext, action: ChargeAction, req: TransactionRequest, actor: string | null): PreparedCharge {
  const amount = parseAmount(req.amount_cents, { required: action !== 'verify', allowZero: action === 'verify' }) ?? 0;
  const named = [req.fund_token, req.credit_card, req.bank_account, req.gift_card].filter((v) => v !== undefined && v !== null);
  if (named.length === 0) throw fail.gateway('payment_method_unspecified', 'Send one of fund_token, credit_card, bank_account, gift_card or terminal');
  if (named.length > 1) throw fail.gateway('payment_method_conflict', 'Send only one of fund_token, credit_card, bank_account, gift_card');

  let source: Source;
  let sourceId: string;
  try {
    if (req.fund_token) source = { kind: 'fund', token: req.fund_token, expect: null };
    else if (typeof req.credit_card === 'string') source = { kind: 'fund', token: req.credit_card, expect: 'credit_card' };
    else if (typeof req.bank_account === 'string') source = { kind: 'fund', token: req.bank_account, expect: 'bank_account' };
    else if (typeof req.gift_card === 'string') source = { kind: 'gift', token: req.gift_card };
    else if (req.credit_card) {
      const input = ctx.wallets.parseCard(req.credit_card, { requireCvv: true, requireAddress: !req.credit_card.gateway_token });
      // The reference's sandbox refuses a new card past its expiry outright (nothing is recorded).
      if (input.problem === 'expired') throw fail.gateway(EXPIRED_CARD_ERROR, cardProblemMessage('expired', input.card));
      source = { kind: 'card', input };
    }
    else if (req.bank_account) source = { kind: 'bank', input: ctx.wallets.parseBank(req.bank_account) };
    else {
      const g = req.gift_card!;
      source = { kind: 'gift', ...(g.token ? { token: g.token } : {}), ...(g.card_number ? { card_number: g.card_number } : {}), pin: g.pin ?? null };
    }
  } catch (err) {
    throw asGatewayError(err);
  }
  if (source.kind === 'fund') sourceId = `fund:${source.token}`;
  else if (source.kind === 'card') sourceId = `card:${source.input.card.fingerprint ?? source.input.gatewayToken}`;
  else if (source.kind === 'bank') sourceId = `bank:${source.input.bank.fingerprint}`;
  else sourceId = `gift:${source.token ?? ctx.keyer(`gift:${(source.card_number ?? '').replace(/[\s-]/g, '')}`)}`;

  if (source.kind === 'gift' && action !== 'sale') throw fail.gateway('unsupported_payment_method', `A gift card can pay a sale (and be voided or refunded), not ${action === 'authorize' ? 'an authorization' : `a ${action}`}`);
  if (source.kind === 'bank' && action === 'authorize') throw fail.gateway('unsupported_payment_method', 'Bank accounts (ACH/EFT) have no authorization: use a sale');

  return {
    action,
    amount,
    currency: req.currency ?? null,
    source,
    order: req.order ?? null,
    contact: req.contact ? { email: str(req.contact.email), first_name: str(req.contact.first_name), last_name: str(req.contact.last_name) } : null,
    customerIdentifier: str(req.customer_identifier),
    reference: str(req.transaction_reference),
    retryKey: retryKeyOf(req),
    actor,
    feeExempt: req.fee_exempt === true,
    secCode: req.sec_code ?? null,
    industry: req.industry ?? null,
    device: str(req.device),
    sourceId,
  };
}

interface Resolved {
  method: PaymentMethod;
  fund: FundData | null;
  card: CardFacts | null;
  bank: BankFacts | null;
  gift: { card?: GiftCardData; pinOk: boolean; gate: PinGate } | null;
  /** For a new card or account: the verification step's decision (before any money moves). */
  verify: Decision | null;
  charge: Decision;
  avs: string | null;
  cvv: string | null;
  holder: string | null;
  /** A bank account's own currency (an EFT account's is CAD); null for other methods. */
  bankCurrency?: string;
}

function cardFacts(c: { bin: string | null; last4: string; length: number | null; brand: string; expiry_month: number; expiry_year: number; profile: CardFacts['profile'] }): CardFacts {
  return { bin: c.bin, last4: c.last4, length: c.length, brand: c.brand, expiry_month: c.expiry_month, expiry_year: c.expiry_year, profile: c.profile };
}

function bankFacts(b: { routing_number: string | null; institution_number: string | null; branch_number: string | null; last4: string; account_type: string; check_type: string | null; profile: BankFacts['profile'] }): BankFacts {
  return {
    routing_number: b.routing_number,
    institution_number: b.institution_number,
    branch_number: b.branch_number,
    last4: b.last4,
    account_type: b.account_type,
    check_type: b.check_type,
    profile: b.profile,
  };
}

/**
 * A verify moves no money but keeps the amount it was sent, and the sandbox's declining amounts
 * (.01) decline it as any other transaction: so every card and bank decision reads `p.amount`.
 */
async function resolveSource(ctx: GatewayContext, tx: Tx, p: PreparedCharge): Promise<Resolved> {
  const tz = ctx.account.profile().timezone;
  const s = p.source;
  if (s.kind === 'fund') {
    const fund = await ctx.wallets.fundInTx(tx, s.token);
    const label = s.expect === 'credit_card' ? 'credit_card' : s.expect === 'bank_account' ? 'bank_account' : 'payment_method';
    if (!fund || (s.expect && fund.kind !== s.expect)) throw notFound(`${label}_not_found`, `No ${label.replace('_', ' ')} ${s.token}`, 'gateway');
    if (fund.inactive) throw fail.gateway('payment_method_inactive', `Payment method ${s.token} was removed from its wallet`);
    if (fund.locked) throw fail.gateway('fund_protected', `Payment method ${s.token} is locked`);
    if (fund.card) {
      // A stored card: its expiry and issuer still count; AVS fails only an explicit verify.
      const c = fund.card;
      const avs = p.checks ? p.checks.avs : avsResponse(c.address.address_1, c.address.postal_code);
      const expired = isExpired(c.expiry_month, c.expiry_year, tx.now, tz);
      const verify = verifyCard({ ...(expired ? { problem: 'expired' as const, problemMessage: cardProblemMessage('expired', c) } : {}), profile: c.profile, avs, checkAvs: p.action === 'verify' });
      const charge = verify.approved ? chargeCard(c.profile, p.amount) : verify;
      return { method: 'credit_card', fund, card: cardFacts(c), bank: null, gift: null, verify: null, charge, avs, cvv: p.checks?.cvv ?? null, holder: c.cardholder };
    }
    const b = fund.bank!;
    const charge = chargeBank({ unknown: false, message: '', amountCents: p.amount });
    return { method: 'bank_account', fund, card: null, bank: bankFacts(b), gift: null, verify: null, charge, avs: null, cvv: null, holder: b.account_holder, bankCurrency: b.currency };
  }
  if (s.kind === 'card') {
    const c = s.input.card;
    const avs = avsResponse(c.address.address_1, c.address.postal_code);
    const cvv = cvvResponse(s.input.secret?.cvv, c.brand);
    const verify = verifyCard({
      ...(s.input.problem ? { problem: s.input.problem, problemMessage: cardProblemMessage(s.input.problem, c) } : {}),
      profile: c.profile,
      avs,
      checkAvs: true,
    });
    const charge = verify.approved ? chargeCard(c.profile, p.amount) : verify;
    return { method: 'credit_card', fund: null, card: cardFacts(c), bank: null, gift: null, verify, charge, avs, cvv, holder: c.cardholder };
  }
  if (s.kind === 'bank') {
    const b = s.input.bank;
    const verify = s.input.problem ? chargeBank({ unknown: true, message: bankProblemMessage(b), amountCents: 0 }) : APPROVED;
    const charge = verify.approved ? chargeBank({ unknown: false, message: '', amountCents: p.amount }) : verify;
    return { method: 'bank_account', fund: null, card: null, bank: bankFacts(b), gift: null, verify, charge, avs: null, cvv: null, holder: b.account_holder, bankCurrency: b.currency };
  }
  const found = await ctx.giftCards.findInTx(tx, { token: s.token, card_number: s.card_number, attempt: s.attempt });
  const g = found.card;
  const charge = giftDecision({
    known: !!g,
    pinOk: found.pinOk,
    pinGate: found.gate,
    activated: g?.activated ?? false,
    expired: g ? ctx.giftCards.expired(g) : false,
    balanceCents: g?.balance_cents ?? 0,
    // A gift card's verify asks nothing of its balance.
    amountCents: p.action === 'verify' ? 0 : p.amount,
  });
  return { method: 'gift_card', fund: null, card: null, bank: null, gift: found, verify: null, charge, avs: null, cvv: null, holder: null };
}

/** Runs a prepared verify, authorize, sale or credit inside a unit of work. */
export async function chargeInTx(ctx: GatewayContext, tx: Tx, p: PreparedCharge): Promise<TransactionResult> {
  const { core, orders } = ctx;
  // ---- reads and checks (nothing written yet) ----
  let order: ResolvedOrder | null = null;
  if (p.order) order = await orders.resolveInTx(tx, p.order, { amountCents: p.amount, currency: (p.currency ?? ctx.account.profile().currency).toLowerCase() });
  const currency = resolveCurrency(ctx, p.currency, order?.data.currency);
  const orderId = order?.data.identifier ?? null;
  const key = uniqueKey(p.action, orderId, p.retryKey);
  const requestFingerprint = fingerprintOf([p.action, p.amount, currency, p.sourceId]);
  const prior = key ? await findByUnique(tx, key) : undefined;
  if (prior) return replayOf(ctx, prior, requestFingerprint, p.action, p.retryKey);
  const r = await resolveSource(ctx, tx, p).catch((err: unknown) => {
    throw asGatewayError(err);
  });
  if (r.method === 'bank_account' && p.action === 'authorize') throw fail.gateway('unsupported_payment_method', 'Bank accounts (ACH/EFT) have no authorization: use a sale');
  // A bank account is debited in its own currency: a CAD (EFT) account is never debited in USD.
  if (r.bankCurrency && r.bankCurrency.toLowerCase() !== currency) {
    throw fail.gateway('currency_mismatch', `This bank account holds ${r.bankCurrency.toUpperCase()}; it cannot be debited or credited in ${currency.toUpperCase()}`);
  }
  const settlementToken = settlementTokenFor(ctx, r.method, order?.data.settlement_token ?? null);

  // A new card or account is verified first; when that fails the verify is what gets recorded.
  const failedVerify = r.verify && !r.verify.approved;
  const action: Action = failedVerify ? 'verify' : p.action;
  const decision = failedVerify ? r.verify! : r.charge;
  const approved = decision.approved;
  const outcome = outcomeOf(decision, core.ids, { avs: r.avs, cvv: r.cvv });
  const bank = r.method === 'bank_account';
  const gift = r.method === 'gift_card';
  const email = p.contact?.email ?? order?.data.billing_email ?? null;
  const customer = p.customerIdentifier ?? order?.data.customer_identifier ?? null;
  const needsVault = approved && (p.source.kind === 'card' || p.source.kind === 'bank');

  // ---- writes ----
  if (order) await orders.putInTx(tx, order);
  let wallet = r.fund?.wallet ?? null;
  let fund = r.fund?.token ?? null;
  if (needsVault) {
    const vaulted = await ctx.wallets.vaultInTx(tx, {
      customer: customer ? { identifier: customer, name: order?.data.billing_name ?? null } : null,
      contact: p.contact,
      ...(p.source.kind === 'card' ? { card: p.source.input } : {}),
      ...(p.source.kind === 'bank' ? { bank: p.source.input } : {}),
    });
    wallet = vaulted.wallet.token;
    fund = vaulted.fund?.token ?? null;
  }
  const giftLeft = gift && approved && r.gift?.card ? r.gift.card.balance_cents - p.amount : undefined;
  if (giftLeft !== undefined) await ctx.giftCards.putInTx(tx, { ...r.gift!.card!, balance_cents: giftLeft }, 'gift_card.redeemed');
  const data = buildTransaction(stampOf(ctx, tx), {
    action,
    // A verify moves no money: the one recorded for a new card that failed it is for 0, as the
    // reference's sandbox lists it, whatever the sale or authorization asked for.
    amount_cents: failedVerify ? 0 : p.amount,
    currency,
    order: order ? { identifier: order.data.identifier, number: order.data.number, amount_cents: order.data.amount_cents } : null,
    payment_method: r.method,
    wallet,
    fund,
    gift_card: r.gift?.card?.token ?? null,
    card: r.card,
    bank: r.bank,
    gift_last4: r.gift?.card?.last4 ?? null,
    terminal: null,
    email,
    from_account: r.holder ?? order?.data.billing_name ?? ([p.contact?.first_name, p.contact?.last_name].filter(Boolean).join(' ') || null),
    created_by: p.actor,
    transaction_reference: p.reference,
    key,
    unique_reference: p.retryKey,
    request_fingerprint: requestFingerprint,
    parent: null,
    settlement_token: settlementToken,
    outcome,
    fee_exempt: p.feeExempt,
    sec_code: bank ? (p.secCode ?? (r.bank?.check_type === 'business' ? 'CCD' : 'PPD')) : null,
    industry: p.industry,
    device: p.device,
  });
  await putTx(tx, data, true);
  const result = resultOf(ctx, data);
  return giftLeft === undefined ? result : { ...result, gift_balance_cents: giftLeft };
}
