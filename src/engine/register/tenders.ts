import type { Tx } from '../core';
import { fail, isEngineError, notFound } from '../errors';
import type { Gateway, TransactionResult } from '../gateway';
import type { GiftCards } from '../wallets/gift-cards';
import { brandName } from '../gateway/reference-data';
import type { Sale, Tender, TenderInput, TenderType } from '../../shared/schemas/register';
import { KIND, type SaleData, type ShiftData, type TenderData } from './model';
import { cashFarAboveDue, cashSplit, formatMoney, type MoneyFormat } from '../../shared/money';
import { declineMessage, tenderFailureMessage } from './messages';
import { allowedTenders, liveLines, person, requireSale, requireSameLane, saleView, saveSale, totalsOf, type SaleContext } from './sales';
import { taxesByRate } from './taxes';
import { tenderView } from './views';
import { getRecord } from '../records';
import { GIFT_CARD_COPY, type GiftCardCopy } from '../wallets/gift-cards';
import type { InstallKeys } from '../security/install-keys';
import type { HubGift, TenderRecord } from '../sync/hub-gift-cards';
import { hubLink, recordOfflineSpendInTx, requireWithinFloor, shopCardRef, spentApartInTx, DEFAULT_OFFLINE_FLOOR } from '../sync/offline-floor';

export interface TenderDeps extends SaleContext {
  gateway: Gateway;
  giftCards: GiftCards;
  /** Card and gift card tenders whose gateway call is running in this process. */
  inflight: Set<string>;
  /** The install's keys: a gift card spent while the hub is unreachable is named by the shop's key. */
  keys?: InstallKeys;
  /** On a lane, gift cards live on the hub: reads, sales, voids and refunds go there while linked. */
  hubGift?: HubGift;
}

export interface TenderOutcome {
  sale: Sale;
  tender: Tender;
  message: string;
  /** An approved gift card tender: what is left on the card, as the debit left it (null when not known: a tender settled later from the gateway's record). */
  gift_card_balance_cents?: number | null;
}


/** Marks the sale paid when nothing is left to pay: its order is published and the lane is free for the next sale. */
export async function completeIfPaid(ctx: SaleContext, tx: Tx, sale: SaleData, shift: ShiftData): Promise<SaleData> {
  const totals = totalsOf(sale);
  if (sale.status !== 'open' || totals.balance_cents > 0 || liveLines(sale).length === 0 || sale.pending_tender) return sale;
  const paid: SaleData = { ...sale, status: 'paid', paid_at: tx.at };
  await ctx.registers.journalInTx(tx, shift.laneid, {
    type: 'sale',
    sale: sale.id,
    number: sale.number,
    cashier: sale.cashier,
    subtotal_cents: totals.subtotal_cents,
    discount_cents: totals.discount_cents,
    tax_cents: totals.tax_cents,
    total_cents: totals.total_cents,
    taxes: taxesByRate(liveLines(paid)),
    at: tx.at,
  });
  const state = await ctx.registers.getInTx(tx, sale.laneid);
  if (state.open_sale === sale.id) await ctx.registers.putInTx(tx, { ...state, open_sale: null });
  return paid;
}

function requireAllowed(ctx: SaleContext, sale: SaleData, type: TenderType): void {
  if (sale.status !== 'open') throw fail.precondition('sale_closed', `Sale ${sale.number} is ${sale.status}: there is nothing to pay`);
  if (sale.pending_tender) throw fail.conflict('tender_in_progress', 'A payment is already in progress on this sale: wait for it to finish (or cancel it on the terminal)');
  if (liveLines(sale).length === 0) throw fail.precondition('sale_empty', 'Add an item before taking payment');
  if (!allowedTenders(ctx, sale).includes(type)) {
    throw fail.precondition('tender_not_allowed', `${type.replace('_', ' ')} is not accepted on this register now`);
  }
}

function amountWithin(amount: number, due: number, field: string, currency: string, words: MoneyFormat): void {
  if (amount > due) throw fail.invalid('amount_over_balance', `${formatMoney(amount, currency, words)} is more than the balance due (${formatMoney(due, currency, words)}); only cash can be given with change`, [{ field, message: 'more than the balance due' }]);
}

function baseTender(sale: SaleData, shift: ShiftData, id: string, at: string, type: TenderType, label: string, amount: number): TenderData {
  return {
    id,
    type,
    label,
    status: 'approved',
    amount_cents: amount,
    tendered_cents: null,
    change_cents: 0,
    tip_cents: 0,
    reference: null,
    cashier: person(shift),
    laneid: shift.laneid,
    transaction: null,
    card: null,
    gift_card_last4: null,
    response_code: null,
    error: null,
    refunded_cents: 0,
    drawer_opened: false,
    created_at: at,
    completed_at: at,
    request: null,
  };
}

/** Cash, cheque and other external tenders: register records only, in one unit of work. */
async function externalTender(deps: TenderDeps, saleId: string, input: TenderInput, words: MoneyFormat): Promise<TenderOutcome> {
  return deps.core.mutate(async (tx) => {
    const shift = await deps.cashiers.requireShiftInTx(tx, input.shift);
    let sale = await requireSale(tx, saleId);
    requireSameLane(sale, shift);
    requireAllowed(deps, sale, input.type);
    const due = totalsOf(sale).balance_cents;
    const id = deps.core.ids.token();
    let tender: TenderData;
    let message: string;
    if (input.type === 'cash') {
      const tendered = input.tendered_cents ?? input.amount_cents ?? due;
      // With both, `amount_cents` is what this tender pays (at most the balance; another tender pays
      // the rest) and `tendered_cents` what was handed over: the difference is change. Alone, either
      // is the cash handed over, paying up to the balance.
      const both = input.tendered_cents !== undefined && input.amount_cents !== undefined;
      const pays = both ? input.amount_cents! : due;
      if (both) {
        amountWithin(pays, due, 'amount_cents', sale.currency, words);
        if (tendered < pays) {
          throw fail.invalid('tendered_below_amount', `${formatMoney(tendered, sale.currency, words)} handed over is less than the ${formatMoney(pays, sale.currency, words)} to pay in cash`, [{ field: 'tendered_cents', message: 'less than amount_cents' }]);
        }
      }
      if (cashFarAboveDue(tendered, pays, sale.currency) && input.confirm_change !== true) {
        throw fail.precondition(
          'confirm_change_required',
          `${formatMoney(tendered, sale.currency, words)} given for ${formatMoney(pays, sale.currency, words)} due is far more than the balance: check the amount, and confirm it if it is right`,
          [{ field: 'tendered_cents', message: 'far above the balance: confirm it' }],
        );
      }
      const { applied, change } = cashSplit(tendered, pays);
      tender = { ...baseTender(sale, shift, id, tx.at, 'cash', 'Cash', applied), tendered_cents: tendered, change_cents: change };
      await deps.registers.openDrawerInTx(tx, { laneid: shift.laneid, reason: 'cash_sale', sale: sale.id, amount_cents: tendered, cashier: person(shift) });
      tender.drawer_opened = true;
      message = tender.change_cents > 0 ? `Change due: ${formatMoney(tender.change_cents, sale.currency, words)}.` : 'Cash taken.';
    } else if (input.type === 'cheque') {
      const reference = input.reference?.trim();
      if (!reference) throw fail.invalid('reference_required', 'Type the cheque number', [{ field: 'reference', message: 'the cheque number' }]);
      const amount = input.amount_cents ?? due;
      amountWithin(amount, due, 'amount_cents', sale.currency, words);
      tender = { ...baseTender(sale, shift, id, tx.at, 'cheque', `Cheque ${reference}`, amount), reference };
      message = 'Cheque taken.';
    } else {
      const name = input.name?.trim() ?? '';
      const known = deps.settings().other_tenders.find((n) => n.toLowerCase() === name.toLowerCase());
      if (!known) throw fail.invalid('unknown_tender', `"${name}" is not one of this register's other tenders (${deps.settings().other_tenders.join(', ')})`, [{ field: 'name', message: 'not an accepted tender' }]);
      const amount = input.amount_cents ?? due;
      amountWithin(amount, due, 'amount_cents', sale.currency, words);
      tender = { ...baseTender(sale, shift, id, tx.at, 'other', known, amount), reference: input.reference?.trim() || null };
      message = `${known} taken.`;
    }
    sale = { ...sale, tenders: [...sale.tenders, tender] };
    await deps.registers.journalInTx(tx, shift.laneid, { type: 'tender', sale: sale.id, tender: id, tender_type: tender.type, label: tender.type === 'cheque' ? 'Cheque' : tender.label, cashier: tender.cashier, amount_cents: tender.amount_cents, at: tx.at });
    sale = await completeIfPaid(deps, tx, sale, shift);
    sale = await saveSale(deps, tx, sale, sale.status === 'paid' ? 'pos_sale.paid' : 'pos_sale.tendered');
    return { sale: saleView(deps, sale), tender: tenderView(tender), message };
  });
}

type GatewayOutcome = { result: TransactionResult; record?: TenderRecord } | { error: { code: string; message: string } };

interface GiftRead {
  token: string;
  balance: number;
  /** The card's name across the shop (offline-floor.ts). */
  card: string;
  /** Read on the hub: the sale goes there too. */
  viaHub: boolean;
  /** A linked lane whose hub did not answer the read: spent as apart. */
  hubDown: boolean;
  /** Apart, a card known from the hub's copy: spent here, debited on the hub once pushed. */
  copy?: GiftCardCopy;
}

/** A gift card's balance, read on the hub while a lane is linked to it, else on this install. */
async function readGift(deps: TenderDeps, input: TenderInput): Promise<GiftRead> {
  if (!input.gift_card) throw fail.invalid('gift_card_required', 'Scan or type the gift card number', [{ field: 'gift_card', message: 'required' }]);
  const ask = { card_number: input.gift_card.card_number, ...(input.gift_card.pin ? { pin: input.gift_card.pin } : {}) };
  let read: Awaited<ReturnType<GiftCards['read']>> | undefined;
  let viaHub = false;
  let hubDown = false;
  try {
    if (deps.hubGift && (await deps.hubGift.route()) === 'hub') {
      read = await deps.hubGift.read(ask).catch((err: unknown) => {
        if (isEngineError(err) && err.code === 'hub_unreachable') return undefined;
        throw err;
      });
      viaHub = read !== undefined;
      hubDown = read === undefined;
    }
    read ??= await deps.giftCards.read(ask);
  } catch (err) {
    if (isEngineError(err)) throw fail.precondition(err.code, tenderFailureMessage(err.code, '', err.message));
    throw err;
  }
  const card = deps.keys ? shopCardRef(deps.keys, input.gift_card.card_number) : '';
  if (!read.token && !viaHub && card) {
    const copy = (await getRecord<GiftCardCopy>(deps.core, GIFT_CARD_COPY, card))?.data;
    if (copy) return fromCopy(copy, card, hubDown);
  }
  if (!read.token) throw fail.precondition('gift_card_unknown', 'This gift card is not known. Check the number, or take another tender.');
  if (!read.activated) throw fail.precondition('gift_card_inactive', tenderFailureMessage('gift_card_inactive', ''));
  if (read.balance <= 0) throw fail.precondition('gift_card_empty', 'This gift card has no balance left. Take another tender.');
  return { token: read.token, balance: read.balance, card: card || read.token, viaHub, hubDown };
}

/** A card this lane knows only from the hub's copy (it cannot reach the hub): the copy's balance, no PIN check possible. */
function fromCopy(copy: GiftCardCopy, card: string, hubDown: boolean): GiftRead {
  if (copy.pin) throw fail.precondition('gift_card_pin_needs_hub', 'This gift card has a PIN, which only the hub can check, and the hub cannot be reached: take another tender.');
  if (!copy.activated) throw fail.precondition('gift_card_inactive', tenderFailureMessage('gift_card_inactive', ''));
  if (copy.balance_cents <= 0) throw fail.precondition('gift_card_empty', 'This gift card has no balance left. Take another tender.');
  return { token: copy.token, balance: copy.balance_cents, card, viaHub: false, hubDown, copy };
}

/**
 * A spend from the hub's copy while apart: approved here within the floor, no transaction until the
 * hub debits it. What is left is the copy's balance less this lane's spends apart (`spent`) and this one.
 */
function copyOutcome(copy: GiftCardCopy, amount: number, spent: number): GatewayOutcome {
  const outcome = { approved: true, response_code: 1, error_code: null, message: 'APPROVED OFFLINE', errors: null, authorization_code: null } as unknown as TenderRecord['outcome'];
  return {
    result: { approved: true, body: { success: true, transaction: '', authorization: null, gateway_token: null, order: null, wallet: null, credit_card: null, bank_account: null, gift_card: copy.token, response_code: 1, transactions: [] } },
    record: { card: null, terminal: null, gift_last4: copy.last4, amount_cents: amount, outcome, gift_balance_cents: copy.balance_cents - spent - amount },
  };
}

/** The sale of a gift card tender on the hub, idempotent on the tender id. */
async function hubSale(deps: TenderDeps, token: string, tender: TenderData): Promise<GatewayOutcome> {
  const o = await deps.hubGift!.transact('sale', { token, amount_cents: tender.amount_cents, reference: tender.id });
  return { result: o.result, record: o.record };
}

/**
 * Card (on the lane's terminal) and gift card tenders. The tender is recorded as pending first, the
 * gateway call runs outside any unit of work (the customer may take a minute at the terminal), then
 * the outcome is recorded. The request carries the tender id as its transaction_reference, so a
 * tender left pending by a crash is settled from the gateway's record (see recoverPending).
 */
async function gatewayTender(deps: TenderDeps, saleId: string, input: TenderInput, actor: string | null, words: MoneyFormat): Promise<TenderOutcome> {
  const gift = input.type === 'gift_card' ? await readGift(deps, input) : undefined;

  // In flight before the pending tender is committed, so the recovery task never takes it for abandoned.
  const id = deps.core.ids.token();
  deps.inflight.add(id);
  const prep = await deps.core.mutate(async (tx) => {
    const shift = await deps.cashiers.requireShiftInTx(tx, input.shift);
    let sale = await requireSale(tx, saleId);
    requireSameLane(sale, shift);
    requireAllowed(deps, sale, input.type);
    const due = totalsOf(sale).balance_cents;
    let amount = input.amount_cents ?? due;
    amountWithin(amount, due, 'amount_cents', sale.currency, words);
    let apart: { since: string | null; spent: number } | undefined;
    if (gift) {
      amount = Math.min(amount, gift.balance);
      const link = await hubLink(tx);
      if (!gift.viaHub && (link.apart || gift.hubDown || gift.copy)) {
        const spent = await spentApartInTx(tx, gift.card, link.since);
        // The copy's balance is as the hub last sent it: what this lane spent since comes off it.
        if (gift.copy) amount = Math.min(amount, gift.balance - spent);
        if (amount <= 0) throw fail.precondition('gift_card_empty', 'This gift card has no balance left. Take another tender.');
        requireWithinFloor(spent, amount, deps.settings().offline_floor?.gift_card_cents ?? DEFAULT_OFFLINE_FLOOR.gift_card_cents, sale.currency);
        apart = { since: link.since, spent };
      }
    }
    const manual = input.type === 'card' && input.manual_entry === true && deps.settings().card_manual_entry;
    const tender: TenderData = {
      ...baseTender(sale, shift, id, tx.at, input.type, input.type === 'card' ? 'Card' : 'Gift card', amount),
      status: 'pending',
      completed_at: null,
      request: { action: 'sale', reference: id, ...(gift?.viaHub ? { via: 'hub' as const } : {}) },
    };
    sale = { ...sale, tenders: [...sale.tenders, tender], pending_tender: id };
    sale = await saveSale(deps, tx, sale, 'pos_sale.tender_started');
    return { sale, tender, shift, manual, apart };
  }).catch((err: unknown) => {
    deps.inflight.delete(id);
    throw err;
  });

  const { sale, tender, shift } = prep;
  let outcome: GatewayOutcome;
  try {
    outcome = gift?.viaHub
      ? await hubSale(deps, gift.token, tender)
      : gift?.copy
      ? copyOutcome(gift.copy, tender.amount_cents, prep.apart?.spent ?? 0)
      : {
          result: await deps.gateway.transact(
            'sale',
            {
              order: sale.id,
              amount_cents: tender.amount_cents,
              transaction_reference: tender.id,
              unique_reference: tender.id,
              ...(input.type === 'card' ? { terminal: { laneid: sale.laneid, enable_manual_entry: prep.manual } } : { gift_card: gift!.token }),
            },
            actor,
          ),
        };
  } catch (err) {
    if (gift?.viaHub && isEngineError(err) && err.code === 'hub_unreachable') {
      // No answer from the hub: the tender stays pending and is settled from the hub's record
      // (recoverPending) once it answers; sent again now it could only be the same request.
      deps.inflight.delete(tender.id);
      throw fail.unavailable('hub_unreachable', 'The hub did not answer, so this gift card payment is not confirmed yet: it is settled as soon as the hub answers (nothing is taken twice). Wait, or take another tender after it is settled.');
    }
    outcome = { error: isEngineError(err) ? { code: err.code, message: err.message } : { code: 'device_error', message: 'unexpected failure' } };
    if (!isEngineError(err)) deps.core.logger.error({ err, sale: sale.id }, 'tender failed unexpectedly');
  }
  if (input.type === 'card') deps.processor?.observe('error' in outcome ? outcome.error.code : null);
  try {
    return await deps.core.mutate(async (tx) => {
      const settled = await settleTenderInTx(deps, tx, sale.id, tender.id, outcome, shift, words);
      if (gift && prep.apart && settled.tender.status === 'approved') {
        await recordOfflineSpendInTx(tx, { laneid: sale.laneid, card: gift.card, last4: settled.tender.gift_card_last4 ?? '', sale: sale.number, tender: tender.id, amount_cents: settled.tender.amount_cents, currency: sale.currency, offline_since: prep.apart.since, at: tx.at, ...(gift.copy ? { token: gift.copy.token } : {}) });
      }
      return settled;
    });
  } finally {
    deps.inflight.delete(tender.id);
  }
}

/** Records a card or gift card tender's outcome on its sale; `words`: how the message writes amounts. */
export async function settleTenderInTx(deps: TenderDeps, tx: Tx, saleId: string, tenderId: string, outcome: GatewayOutcome, shift: ShiftData, words: MoneyFormat = {}): Promise<TenderOutcome> {
  let sale = await requireSale(tx, saleId);
  const current = sale.tenders.find((t) => t.id === tenderId);
  if (!current) throw notFound('tender_not_found', `No tender ${tenderId}`);
  if (current.status !== 'pending') return { sale: saleView(deps, sale), tender: tenderView(current), message: '' };
  const type = current.type as 'card' | 'gift_card';
  let tender: TenderData = { ...current, completed_at: tx.at };
  let message: string;
  let giftLeft: number | null = null;
  if ('error' in outcome) {
    tender = { ...tender, status: 'failed', error: { code: outcome.error.code, message: tenderFailureMessage(outcome.error.code, sale.laneid, outcome.error.message) } };
    message = tender.error!.message;
  } else {
    const body = outcome.result.body;
    const record = outcome.record ?? (await deps.gateway.record(body.transaction));
    tender = { ...tender, transaction: body.transaction || null, response_code: body.response_code };
    if (record?.card) {
      const t = record.terminal;
      tender.card = {
        brand: brandName(record.card.brand),
        masked_number: `•••• ${record.card.last4}`,
        last4: record.card.last4,
        entry_mode: t?.entry_mode ?? null,
        aid: t?.aid ?? null,
        application_label: t?.application_label ?? null,
        tvr: t?.tvr ?? null,
        tsi: t?.tsi ?? null,
        cardholder_verification: t?.cardholder_verification ?? null,
        authorization_code: t?.authorization_code ?? record.outcome.authorization_code,
        signature: Boolean(t?.signature),
      };
      tender.label = `${brandName(record.card.brand)} •••• ${record.card.last4}`;
    }
    if (record?.gift_last4) {
      tender.gift_card_last4 = record.gift_last4;
      tender.label = `Gift card •••• ${record.gift_last4}`;
    }
    if (outcome.result.approved) {
      // A tip added on the terminal is on top of what this tender pays of the sale.
      const charged = record?.amount_cents ?? tender.amount_cents;
      tender = { ...tender, status: 'approved', tip_cents: Math.max(0, charged - tender.amount_cents) };
      const money = (c: number) => formatMoney(c, sale.currency, words);
      message = tender.tip_cents > 0
        ? `${tender.label}: approved, ${money(tender.amount_cents + tender.tip_cents)} with a tip of ${money(tender.tip_cents)}.`
        : `${tender.label}: approved.`;
      // The balance the debit left (read in its unit of work, on this install or the hub): the cashier tells the customer.
      const left = type === 'gift_card' ? (outcome.record?.gift_balance_cents ?? outcome.result.gift_balance_cents) : undefined;
      if (left !== undefined) {
        giftLeft = left;
        message += ` Left on the card: ${money(left)}.`;
      }
      await deps.registers.journalInTx(tx, tender.laneid, {
        type: 'tender',
        sale: sale.id,
        tender: tender.id,
        tender_type: tender.type,
        label: tender.type === 'card' ? (tender.card?.brand ?? 'Card') : 'Gift card',
        cashier: tender.cashier,
        amount_cents: tender.amount_cents,
        tip_cents: tender.tip_cents,
        transaction: tender.transaction,
        at: tx.at,
      });
    } else {
      const reversed = record?.terminal?.reversal;
      const processorMessage = record?.outcome.message ?? '';
      tender = reversed
        ? { ...tender, status: 'failed', error: { code: 'terminal_unconfirmed', message: tenderFailureMessage('terminal_unconfirmed', sale.laneid) } }
        : { ...tender, status: 'declined', error: { code: 'declined', message: declineMessage(type, processorMessage) } };
      message = tender.error!.message;
    }
  }
  if (tender.status !== 'approved') {
    await deps.registers.journalInTx(tx, tender.laneid, { type: 'declined', sale: sale.id, tender: tender.id, tender_type: tender.type, cashier: tender.cashier, at: tx.at });
  }
  sale = { ...sale, tenders: sale.tenders.map((t) => (t.id === tenderId ? tender : t)), pending_tender: null };
  sale = await completeIfPaid(deps, tx, sale, shift);
  const type_ = sale.status === 'paid' ? 'pos_sale.paid' : tender.status === 'approved' ? 'pos_sale.tendered' : 'pos_sale.tender_failed';
  sale = await saveSale(deps, tx, sale, type_);
  return { sale: saleView(deps, sale), tender: tenderView(tender), message, ...(type === 'gift_card' ? { gift_card_balance_cents: giftLeft } : {}) };
}

/** `words`: how amounts read in the answer's message (the screen's locale); default the currency's home format. */
export function takeTender(deps: TenderDeps, saleId: string, input: TenderInput, actor: string | null, words: MoneyFormat = {}): Promise<TenderOutcome> {
  if (input.type === 'card' || input.type === 'gift_card') return gatewayTender(deps, saleId, input, actor, words);
  return externalTender(deps, saleId, input, words);
}

/**
 * Tenders left pending by a stop mid-payment: what the gateway recorded under the tender's
 * reference decides (approved → approved; nothing → failed, nothing was charged). Runs on each
 * engine tick; tenders running in this process are left alone.
 */
export async function recoverPending(deps: TenderDeps): Promise<number> {
  let settled = 0;
  for (const state of await deps.registers.all()) {
    if (!state.open_sale) continue;
    const sale = (await getRecord<SaleData>(deps.core, KIND.sale, state.open_sale))?.data;
    const tender = sale?.pending_tender ? sale.tenders.find((t) => t.id === sale.pending_tender) : undefined;
    if (!sale || !tender || deps.inflight.has(tender.id) || !tender.request) continue;
    let outcome: GatewayOutcome;
    if (tender.request.via === 'hub') {
      // Asked of the hub that made it; while it does not answer, the tender waits (nothing is guessed).
      const made = await deps.hubGift?.find('sale', tender.request.reference).catch(() => undefined);
      if (made === undefined) continue;
      outcome = made ? { result: made.result, record: made.record } : { error: { code: 'interrupted', message: 'interrupted' } };
    } else {
      const found = await deps.gateway.view(`${tender.request.action}/${sale.id}/${tender.request.reference}`);
      outcome = found
        ? { result: { approved: true, body: { success: true, transaction: found.token, authorization: null, gateway_token: null, order: sale.id, wallet: null, credit_card: found.credit_card, bank_account: found.bank_account, gift_card: found.gift_card, response_code: found.response_code, transactions: [found] } } }
        : { error: { code: 'interrupted', message: 'interrupted' } };
    }
    const shift = { id: '', laneid: tender.laneid, cashier: tender.cashier, opened_at: tender.created_at, closed_at: null, closed_reason: null };
    await deps.core.mutate((tx) => settleTenderInTx(deps, tx, sale.id, tender.id, outcome, shift));
    settled += 1;
  }
  return settled;
}
