import { createHmac } from 'node:crypto';
import type { EngineCore, Tx } from '../core';
import { fail } from '../errors';
import { getRecord, putRecord, recordsByRef } from '../records';
import { LEGACY_KEY_ID, type InstallKeys } from '../security/install-keys';
import { formatMoney } from '../../shared/money';
import { creditOfflineRefundInTx, giftCardByToken } from '../wallets/gift-cards';
import { MAX_AMOUNT } from '../gateway/amounts';
import { laneOfNumber } from './streams';

/**
 * Balances two lanes could spend while apart (docs/sync.md, "Balances two lanes could spend while
 * apart"). While a paired lane cannot reach its hub (a stream's last call failed, or sync is
 * paused), what it spends of a gift card is unseen by the other lanes. So, while apart:
 *
 * - a lane spends at most the floor limit of one card (`offline_floor.gift_card_cents` of the
 *   register settings, the hub's, replicated down; customer credit's floor is 0: refused) over
 *   the offline period; a tender beyond it is refused before the gateway is called;
 * - each spend made while apart is an `pos_offline_spend` record, owned by the lane, pushed up
 *   with its sales;
 * - the hub adds the offline spends of one card from all its lanes over a day: beyond the floor,
 *   the excess is a `sync_exception` (`offline_floor_excess`), listed by GET /api/sync/resolutions.
 *
 * The card is named across the shop by an HMAC of its number under the shop's cashier-code key
 * (the hub's, which every paired lane holds): the number itself never leaves the lane.
 */
export const OFFLINE_SPEND = 'pos_offline_spend';
export const DEFAULT_OFFLINE_FLOOR = { gift_card_cents: 2500, customer_credit_cents: 0 };
export type OfflineFloor = typeof DEFAULT_OFFLINE_FLOOR;

export interface OfflineSpend {
  laneid: string;
  /** The shop-wide name of the card (HMAC of its number). */
  card: string;
  last4: string;
  /** The sale's receipt number (`<laneid>-<seq>`). */
  sale: string;
  tender: string;
  amount_cents: number;
  currency: string;
  /** The hub's card (its copy's token) when spent from the hub's copy: the hub debits it when the spend arrives. */
  token?: string;
  /** When the lane last heard from its hub (the start of its offline period). */
  offline_since: string | null;
  at: string;
}

interface PeerLink {
  paused?: boolean;
  streams?: Array<{ last_error: string | null; last_success_at: string | null }>;
}

/** The lane's link to its hub: `apart` when it is paired and the link is failing or paused. */
export async function hubLink(reader: Tx | EngineCore): Promise<{ paired: boolean; apart: boolean; since: string | null }> {
  if (!(await getRecord(reader, 'sync_hub', 'hub'))) return { paired: false, apart: false, since: null };
  const peer = (await getRecord<PeerLink>(reader, 'sync_peer', 'hub'))?.data;
  const streams = peer?.streams ?? [];
  const successes = streams.map((s) => s.last_success_at).filter((t): t is string => !!t).sort();
  const apart = peer?.paused === true || streams.some((s) => s.last_error !== null);
  return { paired: true, apart, since: successes[successes.length - 1] ?? null };
}

/** The card's name across the shop: the hub's cashier-code key is the one every paired lane holds. */
export function shopCardRef(keys: InstallKeys, cardNumber: string): string {
  const key = keys.find('cashier_code', LEGACY_KEY_ID) ?? keys.current('cashier_code');
  return createHmac('sha256', key.secret).update(`laneway offline card:${cardNumber.replace(/\D/g, '')}`).digest('hex').slice(0, 32);
}

/** What this lane spent of the card since it last heard from its hub. */
export async function spentApartInTx(tx: Tx, card: string, since: string | null): Promise<number> {
  const rows = await recordsByRef<OfflineSpend>(tx, OFFLINE_SPEND, card);
  return rows.filter((r) => since === null || r.data.at > since).reduce((n, r) => n + r.data.amount_cents, 0);
}

/** Refuses a gift-card spend that takes the card beyond the floor while the lane is apart. */
export function requireWithinFloor(spent: number, amount: number, floor: number, currency: string): void {
  if (spent + amount <= floor) return;
  const left = Math.max(0, floor - spent);
  throw fail.precondition(
    'offline_floor_exceeded',
    `The hub cannot be reached, so a gift card can pay at most ${formatMoney(floor, currency)} on this lane until it is back` +
      (left > 0 ? ` (${formatMoney(left, currency)} left on this card): take that much, and another tender for the rest.` : ': take another tender.'),
  );
}

export async function recordOfflineSpendInTx(tx: Tx, spend: OfflineSpend): Promise<void> {
  await putRecord(tx, OFFLINE_SPEND, `${spend.laneid}/${spend.tender}`, spend, { type: `${OFFLINE_SPEND}.created`, entity: OFFLINE_SPEND, key: `${spend.laneid}/${spend.tender}` }, spend.card);
}

/**
 * Hub: why a lane's pushed offline spend is refused, or null when it is one the lane's register
 * could have made (recordOfflineSpendInTx). It moves money on arrival (the card named by `token`
 * is debited by `amount_cents`, and its refunds are bounded by it), so before anything is written
 * or debited it must be: keyed `<laneid>/<tender>` of the pushing lane, for one of that lane's
 * receipt numbers; an amount one transaction may take (whole cents above 0, at most MAX_AMOUNT: a
 * negative one would credit the card); and, when it names a card, one of the hub's, named across
 * the shop as the spend says (the lane's copy of it is kept under that name) and in its currency.
 * Written once: a spend the hub holds is never rewritten (its amount bounds the refunds).
 */
export async function offlineSpendProblem(tx: Tx, laneid: string, doc: Readonly<Record<string, unknown>>, held: boolean): Promise<string | null> {
  if (held) return 'an offline spend the hub holds is not rewritten';
  const s = (doc.data ?? {}) as Partial<Record<keyof OfflineSpend, unknown>>;
  if (typeof s.tender !== 'string' || s.tender === '' || doc.key !== `${laneid}/${s.tender}`) return `key is not <laneid>/<tender> of lane ${laneid}`;
  if (typeof s.card !== 'string' || s.card === '' || doc.ref !== s.card) return 'card is not the record\'s ref';
  if (typeof s.last4 !== 'string' || !/^[0-9]{0,4}$/.test(s.last4)) return 'last4 is not up to 4 digits';
  // A receipt number of the pushing lane; a lane before this version names the sale by its id.
  if (typeof s.sale !== 'string' || s.sale === '' || (laneOfNumber(s.sale) !== '' && laneOfNumber(s.sale) !== laneid)) return `sale is not a sale of lane ${laneid}`;
  if (!Number.isSafeInteger(s.amount_cents) || (s.amount_cents as number) <= 0 || (s.amount_cents as number) > MAX_AMOUNT) return `amount_cents is not a whole number of cents from 1 to ${MAX_AMOUNT}`;
  if (typeof s.currency !== 'string') return 'currency is not a string';
  if (typeof s.at !== 'string' || Number.isNaN(Date.parse(s.at))) return 'at is not a time';
  if (s.offline_since !== null && (typeof s.offline_since !== 'string' || Number.isNaN(Date.parse(s.offline_since)))) return 'offline_since is not a time or null';
  if (s.token === undefined) return null;
  const card = typeof s.token === 'string' && s.token !== '' ? await giftCardByToken(tx, s.token) : undefined;
  if (!card || card.shop_ref !== s.card) return 'token names no gift card of the hub by the card the spend names';
  if (card.currency !== s.currency) return `currency is not the card's (${card.currency})`;
  return null;
}

/**
 * Hub: after a lane's offline spend arrived, the card's offline spends from every lane on that
 * day; beyond the floor, the excess is one exception per card and day (rewritten as spends arrive).
 */
export async function offlineExcessInTx(tx: Tx, spend: OfflineSpend, floor: number, balanceAfter?: number): Promise<void> {
  const day = spend.at.slice(0, 10);
  const spends = (await recordsByRef<OfflineSpend>(tx, OFFLINE_SPEND, spend.card)).map((r) => r.data).filter((s) => s.at.slice(0, 10) === day);
  const total = spends.reduce((n, s) => n + s.amount_cents, 0);
  // Beyond the floor, or the card's balance on the hub taken below zero by spends made apart.
  const overdrawn = balanceAfter !== undefined && balanceAfter < 0;
  if (total <= floor && !overdrawn) return;
  const lanes = [...new Set(spends.map((s) => s.laneid))].sort();
  const key = `offline_floor:${spend.card}:${day}`;
  await putRecord(
    tx,
    'sync_exception',
    key,
    { reason: 'offline_floor_excess', card_last4: spend.last4, day, lanes, floor_cents: floor, spent_cents: total, excess_cents: Math.max(0, total - floor), ...(overdrawn ? { card_balance_cents: balanceAfter } : {}), currency: spend.currency, tenders: spends.map((s) => ({ laneid: s.laneid, sale: s.sale, tender: s.tender, amount_cents: s.amount_cents, at: s.at })), at: tx.at },
    { type: 'sync_exception.created', entity: 'sync_exception', key, data: { reason: 'offline_floor_excess', excess_cents: Math.max(0, total - floor) } },
    spend.laneid,
  );
}

export const OFFLINE_REFUND = 'pos_offline_refund';

export interface OfflineRefund {
  laneid: string;
  tender: string;
  token: string;
  amount_cents: number;
  at: string;
}

/**
 * Hub: a lane's refund of a gift card tender it took apart from the hub's copy (a tender with no
 * hub transaction). The spend must have reached the hub (it is what the card was debited by), and
 * what goes back to the card over all refunds of that tender is at most what the spend took. Once
 * per lane and reference: the same refund sent again (a lost answer) credits nothing more.
 */
export async function refundOfflineSpendInTx(tx: Tx, laneid: string, request: { tender: string; amount_cents: number; reference: string }): Promise<OfflineRefund> {
  const done = await getRecord<OfflineRefund>(tx, OFFLINE_REFUND, request.reference);
  if (done) return done.data;
  const spend = (await getRecord<OfflineSpend>(tx, OFFLINE_SPEND, `${laneid}/${request.tender}`))?.data;
  if (!spend?.token) {
    throw fail.unavailable('offline_spend_not_synced', 'The hub has not received this gift card payment from the lane yet: try the refund again in a moment, or refund it in cash');
  }
  const of = `${laneid}/${request.tender}`;
  const before = (await recordsByRef<OfflineRefund>(tx, OFFLINE_REFUND, of)).reduce((sum, r) => sum + r.data.amount_cents, 0);
  if (request.amount_cents <= 0 || before + request.amount_cents > spend.amount_cents) {
    throw fail.precondition('refund_exceeds_payment', `Refund of ${formatMoney(request.amount_cents, spend.currency)} on a gift card payment of ${formatMoney(spend.amount_cents, spend.currency)} (${formatMoney(before, spend.currency)} refunded already)`);
  }
  const card = await creditOfflineRefundInTx(tx, spend.token, request.amount_cents);
  if (!card) throw fail.notFound('gift_card_not_found', 'The gift card of this payment is no longer on the hub');
  const refund: OfflineRefund = { laneid, tender: request.tender, token: spend.token, amount_cents: request.amount_cents, at: tx.at };
  await putRecord(tx, OFFLINE_REFUND, request.reference, refund, { type: `${OFFLINE_REFUND}.created`, entity: OFFLINE_REFUND, key: request.reference }, of);
  return refund;
}
