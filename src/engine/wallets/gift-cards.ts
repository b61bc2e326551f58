import { Tx, type EngineCore } from '../core';
import { referenceToken } from '../ids';
import type { Account } from '../account';
import { fail, notFound } from '../errors';
import { getRecord, putRecord, recordId } from '../records';
import type { GiftCardLoad, GiftCardRead } from '../../shared/schemas/wallets';
import { typedText } from '../../shared/typed-text';
import { localParts, zonedInstant } from '../gateway/processing-day';
import { isExpired, parseMonth, parseYear } from './instruments';
import type { VaultKeys } from './secrets';
import { hashPin, verifyPin } from './gift-pins';
import { fingerprintOf, refuseOtherRequest, uniqueKey } from '../gateway/idempotency';
import { formatMoney } from '../../shared/money';

/**
 * The merchant's gift cards (a closed-loop program: this install is the gift card processor).
 * Stored by token (records kind `gift_card`), found by number through a keyed fingerprint (kind
 * `gift_card_number`); the PIN is kept only as a salted scrypt hash (gift-pins.ts). The balance
 * moves with activations, loads, sales, voids and refunds, each in the same unit of work as its
 * transaction.
 *
 * Wrong PINs are counted per card: after PIN_FREE_FAILURES in a row each further one pauses PIN
 * checks on the card (30 s, doubling, at most an hour), and at PIN_LOCK_FAILURES the card's PIN is
 * locked until the back office unlocks it. While paused or locked no PIN is checked, not even the
 * right one. The right PIN resets the count. An attempt is counted before its PIN is checked, so
 * parallel guesses cannot slip past the limit; the right PIN then takes its count back. A card closed
 * only by attempts still being checked is busy (pin_check_in_progress), not guessed at.
 */
export interface GiftCardData {
  id: number;
  token: string;
  last4: string;
  expiry_month: number | null;
  expiry_year: number | null;
  pin_hash: string | null;
  /** Wrong PINs in a row (absent on cards of an earlier version: 0). */
  pin_failures?: number;
  /** No PIN is checked before this instant (ISO): the pause after repeated wrong PINs. */
  pin_paused_until?: string | null;
  /** Too many wrong PINs: no PIN is checked until the back office unlocks the card. */
  pin_locked?: boolean;
  /**
   * When each attempt counted in pin_failures but not checked yet was made (ISO): a card paused
   * only by these is busy with a check, not guessed at, and says so.
   */
  pin_checks?: string[];
  balance_cents: number;
  activated: boolean;
  currency: string;
  created_at: string;
  updated_at: string;
  /** The card's name across the shop (sync/offline-floor.ts shopCardRef): its copy for the lanes is kept under it. */
  shop_ref?: string;
}

export const GIFT_CARD = 'gift_card';
/**
 * The hub's copy of a card for its lanes (hub-owned, replicated down): what a lane that cannot
 * reach the hub needs to spend up to the floor limit. No number, no PIN hash: only whether a PIN
 * is set (a card with one is not spent apart, since no lane can check it).
 */
export const GIFT_CARD_COPY = 'gift_card_copy';
export interface GiftCardCopy {
  token: string;
  last4: string;
  balance_cents: number;
  activated: boolean;
  currency: string;
  expiry_month: number | null;
  expiry_year: number | null;
  pin: boolean;
  updated_at: string;
}
const GIFT_CARD_NUMBER = 'gift_card_number';
const MAX_BALANCE = 1_000_000_00;

export const PIN_FREE_FAILURES = 3;
export const PIN_LOCK_FAILURES = 10;
export const PIN_PAUSE_MS = 30_000;
const PIN_PAUSE_MAX_MS = 60 * 60_000;

/** busy: paused only by attempts still being checked (the right PIN sent twice at once, say). */
export type PinGate = 'open' | 'paused' | 'locked' | 'busy';
/** An attempt still unchecked after this long was cut short (a stop mid-check): it stays a wrong PIN. */
const PIN_CHECK_MS = 60_000;

/** The outcome of a PIN attempt on a card found by number, made before the unit that uses it. */
export interface PinAttempt {
  token: string;
  ok: boolean;
  gate: PinGate;
}

/** The back office's view of a gift card (no number, no PIN hash). */
export interface GiftCardView {
  id: number;
  token: string;
  last4: string;
  balance: number;
  activated: boolean;
  currency: string;
  expiry_month: number | null;
  expiry_year: number | null;
  created_at: string;
  updated_at: string;
  pin: { set: boolean; failures: number; paused_until: string | null; locked: boolean };
}

export type GiftCardLoadAnswer = { success: true; token: string; balance: number; activated: boolean };

/**
 * A load made under a retry key (a lane's load on its hub: `lane-<laneid>-<reference>`), kept in
 * the load's own unit: the request's fingerprint and the first answer. The same load sent again
 * under the key answers that and loads nothing; another load under it is refused
 * (`duplicate_unique_reference`): the rule of the gateway's `unique_reference`
 * (gateway/idempotency.ts), which a lane's gift card sales, voids and refunds keep. A refused load
 * writes nothing, so it does not hold the key. A load without a key is applied each time.
 */
export const GIFT_CARD_LOAD = 'gift_card_load';
export interface GiftCardLoadDone {
  reference: string;
  request_fingerprint: string;
  answer: GiftCardLoadAnswer;
  at: string;
}

/** The retry key of a load under `reference` (null: none), as `find` looks it up. */
export const loadKey = (reference: string | null | undefined): string | null => uniqueKey('load', null, reference?.trim() || null);

export interface GiftCards {
  /** `retry.reference` makes the load once per reference (a lane's retry after a lost answer loads nothing more). */
  load(input: GiftCardLoad, retry?: { reference: string }): Promise<GiftCardLoadAnswer>;
  read(input: GiftCardRead): Promise<{ id?: number; token?: string; balance: number; activated: boolean; created_at?: string; expires_at?: string }>;
  /** The back office's view by token, with the card's PIN attempt state. */
  view(token: string): Promise<GiftCardView>;
  /** Clears a card's wrong-PIN count, pause and lock (the back office, once the holder is known). */
  unlockPin(token: string): Promise<GiftCardView>;
  /**
   * A PIN attempt on a card found by number, counted in its own unit (before the PIN is checked),
   * for a unit of work that follows (the gateway's sale). Undefined when no card has that number.
   */
  attemptPin(cardNumber: string, pin: string | null | undefined): Promise<PinAttempt | undefined>;
  /** Inside a unit: a gift card by token or by number, and whether its PIN attempt passed. */
  findInTx(tx: Tx, tender: { token?: string | undefined; card_number?: string | undefined; attempt?: PinAttempt | undefined }): Promise<{ card?: GiftCardData; pinOk: boolean; gate: PinGate }>;
  expired(card: GiftCardData): boolean;
  /** Inside a unit: writes a changed balance. */
  putInTx(tx: Tx, card: GiftCardData, reason: string): Promise<void>;
}

export function pinGate(card: GiftCardData, now: number): PinGate {
  const closed = card.pin_locked ? 'locked' : card.pin_paused_until && Date.parse(card.pin_paused_until) > now ? 'paused' : 'open';
  if (closed === 'open') return 'open';
  // The wrong PINs known to be wrong would not have closed it.
  return (card.pin_failures ?? 0) - checksUnderWay(card, now).length < PIN_FREE_FAILURES ? 'busy' : closed;
}

const checksUnderWay = (card: GiftCardData, now: number) => (card.pin_checks ?? []).filter((at) => Date.parse(at) > now - PIN_CHECK_MS);

/** The card once the check counted at `at` has ended; the others under way stay counted. */
const checkEnded = (card: GiftCardData, at: string, now: number): GiftCardData => {
  const left = checksUnderWay(card, now);
  const i = left.indexOf(at);
  if (i >= 0) left.splice(i, 1);
  return { ...card, pin_checks: left };
};

/** The card after one more wrong PIN. */
function afterWrongPin(card: GiftCardData, now: number): GiftCardData {
  const failures = (card.pin_failures ?? 0) + 1;
  const over = failures - PIN_FREE_FAILURES;
  const pause = over >= 0 ? Math.min(PIN_PAUSE_MS * 2 ** over, PIN_PAUSE_MAX_MS) : 0;
  return {
    ...card,
    pin_failures: failures,
    pin_paused_until: pause > 0 ? new Date(now + pause).toISOString() : null,
    pin_locked: failures >= PIN_LOCK_FAILURES,
    pin_checks: [...checksUnderWay(card, now), new Date(now).toISOString()],
  };
}

/** The right PIN (or the back office) clears the count; attempts still being checked stay counted. */
const pinCleared = (card: GiftCardData, now: number): GiftCardData => {
  const underWay = checksUnderWay(card, now);
  return { ...card, pin_failures: underWay.length, pin_paused_until: null, pin_locked: false, pin_checks: underWay };
};

export function giftCardView(card: GiftCardData): GiftCardView {
  return {
    id: card.id,
    token: card.token,
    last4: card.last4,
    balance: card.balance_cents,
    activated: card.activated,
    currency: card.currency,
    expiry_month: card.expiry_month,
    expiry_year: card.expiry_year,
    created_at: card.created_at,
    updated_at: card.updated_at,
    pin: { set: card.pin_hash !== null, failures: card.pin_failures ?? 0, paused_until: card.pin_paused_until ?? null, locked: card.pin_locked === true },
  };
}

export interface GiftCardsDeps {
  core: EngineCore;
  account: Account;
  vault: VaultKeys;
  /** The card's name across the shop (a hub keeps a copy of each card under it for its lanes). */
  shopRef?: (number: string) => string;
}

export function createGiftCards(deps: GiftCardsDeps): GiftCards {
  const ctx = deps;
  const { core, account } = ctx;
  return {
    async load(input, retry) {
      guard(ctx);
      const number = giftCardDigits(input.card_number);
      const sent = {
        month: parseMonth(input.expiry_month),
        year: parseYear(input.expiry_year),
        amount: input.load_amount_cents === undefined ? 0 : Number(input.load_amount_cents),
        activate: input.activated === undefined ? undefined : String(input.activated) === 'true',
      };
      // PINs are checked and hashed outside the unit of work (scrypt takes tens of milliseconds).
      const attempt = input.pin ? await attemptPin(ctx, number, input.pin) : undefined;
      if (attempt && !attempt.ok) throw pinRefusal(attempt);
      const newToken = referenceToken(core.ids);
      const newPinHash = !attempt && input.pin ? await hashPin(ctx.vault, newToken, input.pin) : null;
      const reference = retry?.reference.trim() || null;
      const key = loadKey(reference);
      const keyed = key && reference ? { key, reference } : null;
      return core.mutate(async (tx) => (keyed ? await replayedLoad(ctx, tx, keyed, number, sent) : undefined) ?? loadInTx(ctx, tx, input, { ...sent, number, attempt, newToken, newPinHash, keyed }));
    },

    read: (input) => readGiftCard(ctx, input),
    attemptPin: (cardNumber, pin) => attemptPin(ctx, cardNumber, pin),
    findInTx: (tx, tender) => findInTx(ctx, tx, tender),

    async view(token) {
      const card = await giftCardByToken(core, token);
      if (!card) throw notFound('gift_card_not_found', `No gift card ${token}`);
      return giftCardView(card);
    },

    async unlockPin(token) {
      return core.mutate(async (tx) => {
        const card = await giftCardByToken(tx, token);
        if (!card) throw notFound('gift_card_not_found', `No gift card ${token}`);
        const cleared = { ...pinCleared(card, tx.now), updated_at: tx.at };
        await putGiftCard(tx, cleared, 'gift_card.pin_unlocked');
        return giftCardView(cleared);
      });
    },

    expired(card) {
      return card.expiry_month !== null && card.expiry_year !== null && isExpired(card.expiry_month, card.expiry_year, core.clock.now(), account.profile().timezone);
    },

    async putInTx(tx, card, reason) {
      await putGiftCard(tx, { ...card, updated_at: tx.at }, reason);
    },
  };
}

/** A card number as typed or scanned: spaces and dashes between groups dropped, full-width digits read as 0-9. */
const cardNumberOf = (n: string) => typedText(n).replace(/[\s-]/g, '');

function giftCardDigits(n: string): string {
  const d = cardNumberOf(n);
  if (!/^[0-9]{6,19}$/.test(d)) throw fail.gateway('invalid_card_number', 'A gift card number is 6 to 19 digits (spaces and dashes aside)');
  return d;
}

function guard(ctx: GiftCardsDeps): void {
  if (!ctx.account.can('gift_cards')) throw fail.gateway('capability_disabled', 'This account is not enabled for gift cards');
  if (ctx.account.profile().environment !== 'sandbox') throw fail.gateway('processor_unavailable', 'No gift card processor is connected to this production install');
}

/** "11/3/2021 12:00:00 AM" in the account's zone, the reference's format. */
function usDateTime(ctx: GiftCardsDeps, ms: number): string {
  const tz = ctx.account.profile().timezone;
  const { date, minutes } = localParts(ms, tz);
  const [y, m, d] = date.split('-').map(Number);
  const seconds = Math.floor(((ms - zonedInstant(date, '00:00', tz)) / 1000) % 60);
  const h24 = Math.floor(minutes / 60);
  const h12 = h24 % 12 === 0 ? 12 : h24 % 12;
  return `${m}/${d}/${y} ${h12}:${String(minutes % 60).padStart(2, '0')}:${String(Math.max(0, seconds)).padStart(2, '0')} ${h24 < 12 ? 'AM' : 'PM'}`;
}

async function putGiftCard(tx: Tx, card: GiftCardData, type: string): Promise<void> {
  await putRecord(tx, GIFT_CARD, card.token, card, { type, entity: 'gift_card', key: card.token, data: { balance_cents: card.balance_cents, activated: card.activated } });
  if (!card.shop_ref) return;
  // The lanes' copy moves with the card, in the same unit.
  const copy: GiftCardCopy = { token: card.token, last4: card.last4, balance_cents: card.balance_cents, activated: card.activated, currency: card.currency, expiry_month: card.expiry_month, expiry_year: card.expiry_year, pin: card.pin_hash !== null, updated_at: card.updated_at };
  await putRecord(tx, GIFT_CARD_COPY, card.shop_ref, copy, { type: `${GIFT_CARD_COPY}.updated`, entity: GIFT_CARD_COPY, key: card.shop_ref });
}

/**
 * A lane's spend made while it could not reach its hub, pushed up afterwards: debited from the
 * hub's card as it is. The one path by which a balance goes below zero (docs/sync.md).
 */
export async function debitOfflineSpendInTx(tx: Tx, token: string, amount: number): Promise<GiftCardData | undefined> {
  const card = await giftCardByToken(tx, token);
  if (!card) return undefined;
  const debited = { ...card, balance_cents: card.balance_cents - amount, updated_at: tx.at };
  await putGiftCard(tx, debited, 'gift_card.redeemed_offline');
  return debited;
}

/** A lane's refund of such a spend, on the hub once the spend is there: the amount goes back on the card. */
export async function creditOfflineRefundInTx(tx: Tx, token: string, amount: number): Promise<GiftCardData | undefined> {
  const card = await giftCardByToken(tx, token);
  if (!card) return undefined;
  const credited = { ...card, balance_cents: card.balance_cents + amount, updated_at: tx.at };
  await putGiftCard(tx, credited, 'gift_card.refunded_offline');
  return credited;
}

const fingerprint = (ctx: GiftCardsDeps, number: string) => ctx.vault.keyer(`gift:${number}`);

// Gift cards are stored under their token (so a sale by token is one read); a second record
// maps the number's fingerprint to the token. After a vault key rotation a card is still found
// under an earlier key's fingerprint, and moved to the current key's by the next unit that finds it.
async function findLink(ctx: GiftCardsDeps, reader: Tx | EngineCore, number: string) {
  for (const { keyId, fingerprint: fp } of ctx.vault.fingerprints(`gift:${number}`)) {
    const link = await getRecord<{ token: string }>(reader, GIFT_CARD_NUMBER, fp);
    if (link) return { token: link.data.token, fp, current: keyId === ctx.vault.currentId() };
  }
  return undefined;
}

async function byNumber(ctx: GiftCardsDeps, reader: Tx | EngineCore, number: string): Promise<GiftCardData | undefined> {
  const link = await findLink(ctx, reader, number);
  if (!link) return undefined;
  if (!link.current && reader instanceof Tx) {
    await putRecord(reader, GIFT_CARD_NUMBER, fingerprint(ctx, number), { token: link.token }, { type: 'gift_card.linked', entity: 'gift_card', key: link.token });
    await reader.remove('records', recordId(GIFT_CARD_NUMBER, link.fp), { type: 'gift_card.unlinked', entity: 'gift_card', key: link.token });
  }
  return (await getRecord<GiftCardData>(reader, GIFT_CARD, link.token))?.data;
}

/** The card a token names (a lane's pushed offline spend names the hub's card so: sync/offline-floor.ts). */
export const giftCardByToken = async (reader: Tx | EngineCore, token: string): Promise<GiftCardData | undefined> => (await getRecord<GiftCardData>(reader, GIFT_CARD, token))?.data;

async function attemptPin(ctx: GiftCardsDeps, cardNumber: string, pin: Parameters<GiftCards['attemptPin']>[1]): Promise<PinAttempt | undefined> {
  const { core } = ctx;
  const card = await byNumber(ctx, core, cardNumber);
  if (!card) return undefined;
  if (!card.pin_hash) return { token: card.token, ok: true, gate: 'open' };
  // No PIN sent is not a guess: declined, not counted.
  if (!pin) return { token: card.token, ok: false, gate: pinGate(card, core.clock.now()) };
  // Counted first, in the write queue: each attempt sees the ones before it.
  const reserved = await core.mutate(async (tx) => {
    const fresh = await giftCardByToken(tx, card.token);
    if (!fresh?.pin_hash) return { gate: 'open' as const, hash: null, at: tx.at };
    const gate = pinGate(fresh, tx.now);
    if (gate !== 'open') return { gate, hash: fresh.pin_hash, at: tx.at };
    await putGiftCard(tx, { ...afterWrongPin(fresh, tx.now), updated_at: tx.at }, 'gift_card.pin_attempted');
    return { gate, hash: fresh.pin_hash, at: tx.at };
  });
  if (reserved.gate !== 'open') return { token: card.token, ok: false, gate: reserved.gate };
  if (!reserved.hash) return { token: card.token, ok: true, gate: 'open' };
  const { ok, stale } = await verifyPin(ctx.vault, card.token, pin, reserved.hash);
  const rehashed = ok && stale ? await hashPin(ctx.vault, card.token, pin) : undefined;
  await core.mutate(async (tx) => {
    const fresh = await giftCardByToken(tx, card.token);
    if (!fresh) return;
    const ended = checkEnded(fresh, reserved.at, tx.now);
    if (!ok) {
      await putGiftCard(tx, { ...ended, updated_at: tx.at }, 'gift_card.pin_refused');
      return;
    }
    const cleared = pinCleared(ended, tx.now);
    if (rehashed && fresh.pin_hash === reserved.hash) cleared.pin_hash = rehashed;
    await putGiftCard(tx, { ...cleared, updated_at: tx.at }, 'gift_card.pin_accepted');
  });
  return { token: card.token, ok, gate: 'open' };
}

const pinRefusal = (attempt: PinAttempt) =>
  attempt.gate === 'open'
    ? fail.gateway('incorrect_pin', 'The PIN does not match this gift card')
    : attempt.gate === 'busy'
      ? fail.gateway('pin_check_in_progress', 'Another PIN check on this gift card is under way: try again in a moment')
      : fail.gateway('pin_tries_exceeded', attempt.gate === 'locked' ? 'Too many wrong PINs: this gift card is locked until the back office unlocks it' : 'Too many wrong PINs: try this gift card again later');

const expiryMatches = (card: GiftCardData, month: number | undefined, year: number | undefined) =>
  (month === undefined || card.expiry_month === null || card.expiry_month === month) && (year === undefined || card.expiry_year === null || card.expiry_year === year);

type LoadSent = { amount: number; activate: boolean | undefined; month: number | undefined; year: number | undefined };

/** What makes two loads the same load: the card (by token, so a vault key rotation between tries changes nothing), the amount, the activation and the expiry sent. No PIN. */
const loadFingerprint = (token: string | null, sent: LoadSent) => fingerprintOf(['load', token, sent.amount, sent.activate ?? null, sent.month ?? null, sent.year ?? null]);

/** Inside the load's unit: the first answer of a load made under `key`, or undefined when none was. */
async function replayedLoad(ctx: GiftCardsDeps, tx: Tx, keyed: { key: string; reference: string }, number: string, sent: LoadSent): Promise<GiftCardLoadAnswer | undefined> {
  const done = await getRecord<GiftCardLoadDone>(tx, GIFT_CARD_LOAD, keyed.key);
  if (!done) return undefined;
  const card = await byNumber(ctx, tx, number);
  refuseOtherRequest(done.data.request_fingerprint, loadFingerprint(card?.token ?? null, sent), 'load', keyed.reference);
  return done.data.answer;
}

/** Inside a unit of work: loads (and activates) a card, created on its first load. */
async function loadInTx(
  ctx: GiftCardsDeps,
  tx: Tx,
  input: Parameters<GiftCards['load']>[0],
  checked: LoadSent & { number: string; attempt: PinAttempt | undefined; newToken: string; newPinHash: string | null; keyed: { key: string; reference: string } | null },
): Promise<GiftCardLoadAnswer> {
  const { number, month, year, amount, activate, attempt, newPinHash } = checked;
  let card = await byNumber(ctx, tx, number);
  const created = !card;
  if (card) {
    // Its PIN is what stands between the number and the money: a load answers the token, which pays with no PIN.
    if (card.pin_hash && attempt?.token !== card.token) throw fail.gateway('incorrect_pin', input.pin ? 'The PIN does not match this gift card' : 'This gift card has a PIN: it is needed to load the card');
    if (!expiryMatches(card, month, year)) throw fail.gateway('gift_card_mismatch', 'The expiry does not match this gift card');
    card = { ...card };
  } else {
    // Created meanwhile by another request after this one found no card: its PIN was hashed here.
    if (input.pin && !newPinHash) throw fail.gateway('incorrect_pin', 'The PIN does not match this gift card');
    card = await newGiftCardInTx(ctx, tx, number, { month, year, token: checked.newToken, pinHash: newPinHash });
  }
  if (card.balance_cents + amount > MAX_BALANCE) {
    throw fail.gateway('balance_limit', `A gift card holds at most ${formatMoney(MAX_BALANCE, card.currency)}; with this load it would hold ${formatMoney(card.balance_cents + amount, card.currency)}`);
  }
  if (activate !== undefined) card.activated = activate;
  const shopRef = card.shop_ref ?? ctx.shopRef?.(number);
  if (shopRef) card.shop_ref = shopRef;
  card.balance_cents += amount;
  card.updated_at = tx.at;
  await putGiftCard(tx, card, created ? 'gift_card.created' : 'gift_card.updated');
  const answer: GiftCardLoadAnswer = { success: true, token: card.token, balance: card.balance_cents, activated: card.activated };
  if (checked.keyed) {
    const done: GiftCardLoadDone = { reference: checked.keyed.reference, request_fingerprint: loadFingerprint(card.token, checked), answer, at: tx.at };
    await putRecord(tx, GIFT_CARD_LOAD, checked.keyed.key, done, { type: `${GIFT_CARD_LOAD}.created`, entity: 'gift_card', key: card.token }, card.token);
  }
  return answer;
}

/** A new card, numbered in sequence, linked from its number's fingerprint. */
async function newGiftCardInTx(ctx: GiftCardsDeps, tx: Tx, number: string, c: { month: number | undefined; year: number | undefined; token: string; pinHash: string | null }): Promise<GiftCardData> {
  const seq = (await getRecord<{ value: number }>(tx, 'sequence', GIFT_CARD))?.data.value ?? 0;
  const card: GiftCardData = {
    id: seq + 1,
    token: c.token,
    last4: number.slice(-4),
    expiry_month: c.month ?? null,
    expiry_year: c.year ?? null,
    pin_hash: c.pinHash,
    balance_cents: 0,
    activated: false,
    currency: ctx.account.profile().currency,
    created_at: tx.at,
    updated_at: tx.at,
  };
  await putRecord(tx, 'sequence', GIFT_CARD, { value: seq + 1 }, { type: 'sequence.updated', entity: 'sequence', key: GIFT_CARD });
  await putRecord(tx, GIFT_CARD_NUMBER, fingerprint(ctx, number), { token: card.token }, { type: 'gift_card.linked', entity: 'gift_card', key: card.token });
  return card;
}

async function readGiftCard(ctx: GiftCardsDeps, input: Parameters<GiftCards['read']>[0]) {
  guard(ctx);
  const { core } = ctx;
  const number = giftCardDigits(input.card_number);
  let card = await byNumber(ctx, core, number);
  if (!card || !expiryMatches(card, parseMonth(input.expiry_month), parseYear(input.expiry_year))) return { balance: 0, activated: false };
  if (card.pin_hash) {
    const attempt = await attemptPin(ctx, number, input.pin);
    if (!attempt?.ok) throw pinRefusal(attempt ?? { token: card.token, ok: false, gate: 'open' });
    card = (await giftCardByToken(core, card.token)) ?? card;
  }
  const expires = card.expiry_month && card.expiry_year ? zonedInstant(`${card.expiry_year}-${String(card.expiry_month).padStart(2, '0')}-01`, '00:00', ctx.account.profile().timezone) : undefined;
  return {
    id: card.id,
    token: card.token,
    balance: card.balance_cents,
    activated: card.activated,
    created_at: usDateTime(ctx, Date.parse(card.created_at)),
    ...(expires !== undefined ? { expires_at: usDateTime(ctx, expires) } : {}),
  };
}

async function findInTx(ctx: GiftCardsDeps, tx: Tx, tender: Parameters<GiftCards['findInTx']>[1]): ReturnType<GiftCards['findInTx']> {
  let card: GiftCardData | undefined;
  if (tender.token) card = await giftCardByToken(tx, tender.token);
  else if (tender.card_number) {
    const d = cardNumberOf(tender.card_number);
    card = /^[0-9]{6,19}$/.test(d) ? await byNumber(ctx, tx, d) : undefined;
    // A card stored before cards were shop-wide has no shop name; its number is here now, so the
    // write this tender makes gives it one, and with it the lanes' copy.
    if (card && !card.shop_ref && ctx.shopRef) card = { ...card, shop_ref: ctx.shopRef(d) };
  }
  if (!card) return { pinOk: false, gate: 'open' };
  // Paying by token (from a balance read) needs no PIN; paying by number does when one is set,
  // and its attempt was made (and counted) before this unit.
  if (tender.token || !card.pin_hash) return { card, pinOk: true, gate: 'open' };
  const attempt = tender.attempt?.token === card.token ? tender.attempt : undefined;
  return { card, pinOk: attempt?.ok === true, gate: attempt?.gate ?? pinGate(card, tx.now) };
}
