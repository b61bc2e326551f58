import type { EngineCore, Tx } from '../core';
import type { Account } from '../account';
import { fail } from '../errors';
import { getRecord, putRecord } from '../records';
import type { GiftCardLoad, GiftCardRead } from '../../shared/schemas/wallets';
import { localParts, zonedInstant } from '../gateway/processing-day';
import { isExpired, parseMonth, parseYear, type Keyer } from './instruments';

/**
 * The merchant's gift cards (a closed-loop program: this install is the gift card processor).
 * Stored by token (records kind `gift_card`), found by number through a keyed fingerprint (kind
 * `gift_card_number`); the PIN is kept only as a keyed hash. The balance moves with activations, loads,
 * sales, voids and refunds, each in the same unit of work as its transaction.
 */
export interface GiftCardData {
  id: number;
  token: string;
  last4: string;
  expiry_month: number | null;
  expiry_year: number | null;
  pin_hash: string | null;
  balance_cents: number;
  activated: boolean;
  currency: string;
  created_at: string;
  updated_at: string;
}

export const GIFT_CARD = 'gift_card';
const MAX_BALANCE = 1_000_000_00;

export interface GiftCards {
  load(input: GiftCardLoad): Promise<{ success: true; token: string; balance: number; activated: boolean }>;
  read(input: GiftCardRead): Promise<{ id?: number; token?: string; balance: number; activated: boolean; created_at?: string; expires_at?: string }>;
  /** Inside a unit: a gift card by token or by number (+ PIN check result). */
  findInTx(tx: Tx, tender: { token?: string | undefined; card_number?: string | undefined; pin?: string | null | undefined }): Promise<{ card?: GiftCardData; pinOk: boolean }>;
  expired(card: GiftCardData): boolean;
  /** Inside a unit: writes a changed balance. */
  putInTx(tx: Tx, card: GiftCardData, reason: string): Promise<void>;
}

export function createGiftCards(core: EngineCore, account: Account, keyer: Keyer): GiftCards {
  const fingerprint = (number: string) => keyer(`gift:${number}`);
  const pinHash = (pin: string) => keyer(`gift-pin:${pin}`);

  const digits = (n: string) => {
    const d = n.replace(/[\s-]/g, '');
    if (!/^[0-9]{6,19}$/.test(d)) throw fail.gateway('invalid_card_number', 'card_number must be 6 to 19 digits');
    return d;
  };

  const guard = () => {
    if (!account.can('gift_cards')) throw fail.gateway('capability_disabled', 'This account is not enabled for gift cards');
    if (account.profile().environment !== 'sandbox') throw fail.gateway('processor_unavailable', 'No gift card processor is connected to this production install');
  };

  /** "11/3/2021 12:00:00 AM" in the account's zone, the reference's format. */
  const usDateTime = (ms: number) => {
    const tz = account.profile().timezone;
    const { date, minutes } = localParts(ms, tz);
    const [y, m, d] = date.split('-').map(Number);
    const seconds = Math.floor(((ms - zonedInstant(date, '00:00', tz)) / 1000) % 60);
    const h24 = Math.floor(minutes / 60);
    const h12 = h24 % 12 === 0 ? 12 : h24 % 12;
    return `${m}/${d}/${y} ${h12}:${String(minutes % 60).padStart(2, '0')}:${String(Math.max(0, seconds)).padStart(2, '0')} ${h24 < 12 ? 'AM' : 'PM'}`;
  };

  const put = (tx: Tx, card: GiftCardData, type: string) =>
    putRecord(tx, GIFT_CARD, card.token, card, { type, entity: 'gift_card', key: card.token, data: { balance_cents: card.balance_cents, activated: card.activated } });

  // Gift cards are stored under their token (so a sale by token is one read); a second record
  // maps the number's fingerprint to the token.
  const byNumber = async (reader: Tx | EngineCore, number: string) => {
    const link = await getRecord<{ token: string }>(reader, 'gift_card_number', fingerprint(number));
    if (!link) return undefined;
    return (await getRecord<GiftCardData>(reader, GIFT_CARD, link.data.token))?.data;
  };

  const expiryMatches = (card: GiftCardData, month: number | undefined, year: number | undefined) =>
    (month === undefined || card.expiry_month === null || card.expiry_month === month) && (year === undefined || card.expiry_year === null || card.expiry_year === year);

  return {
    async load(input) {
      guard();
      const number = digits(input.card_number);
      const month = parseMonth(input.expiry_month);
      const year = parseYear(input.expiry_year);
      const amount = input.load_amount_cents === undefined ? 0 : Number(input.load_amount_cents);
      const activate = input.activated === undefined ? undefined : String(input.activated) === 'true';
      return core.mutate(async (tx) => {
        let card = await byNumber(tx, number);
        const created = !card;
        if (card) {
          if (card.pin_hash && input.pin && pinHash(input.pin) !== card.pin_hash) throw fail.gateway('incorrect_pin', 'The PIN does not match this gift card');
          if (!expiryMatches(card, month, year)) throw fail.gateway('gift_card_mismatch', 'The expiry does not match this gift card');
          card = { ...card };
        } else {
          const seq = (await getRecord<{ value: number }>(tx, 'sequence', GIFT_CARD))?.data.value ?? 0;
          card = {
            id: seq + 1,
            token: core.ids.token(),
            last4: number.slice(-4),
            expiry_month: month ?? null,
            expiry_year: year ?? null,
            pin_hash: input.pin ? pinHash(input.pin) : null,
            balance_cents: 0,
            activated: false,
            currency: account.profile().currency,
            created_at: tx.at,
            updated_at: tx.at,
          };
          await putRecord(tx, 'sequence', GIFT_CARD, { value: seq + 1 }, { type: 'sequence.updated', entity: 'sequence', key: GIFT_CARD });
          await putRecord(tx, 'gift_card_number', fingerprint(number), { token: card.token }, { type: 'gift_card.linked', entity: 'gift_card', key: card.token });
        }
        if (card.balance_cents + amount > MAX_BALANCE) throw fail.gateway('balance_limit', `A gift card balance cannot exceed ${MAX_BALANCE} cents`);
        if (activate !== undefined) card.activated = activate;
        card.balance_cents += amount;
        card.updated_at = tx.at;
        await put(tx, card, created ? 'gift_card.created' : 'gift_card.updated');
        return { success: true as const, token: card.token, balance: card.balance_cents, activated: card.activated };
      });
    },

    async read(input) {
      guard();
      const number = digits(input.card_number);
      const card = await byNumber(core, number);
      if (!card || !expiryMatches(card, parseMonth(input.expiry_month), parseYear(input.expiry_year))) return { balance: 0, activated: false };
      if (card.pin_hash && (!input.pin || pinHash(input.pin) !== card.pin_hash)) throw fail.gateway('incorrect_pin', 'The PIN does not match this gift card');
      const expires = card.expiry_month && card.expiry_year ? zonedInstant(`${card.expiry_year}-${String(card.expiry_month).padStart(2, '0')}-01`, '00:00', account.profile().timezone) : undefined;
      return {
        id: card.id,
        token: card.token,
        balance: card.balance_cents,
        activated: card.activated,
        created_at: usDateTime(Date.parse(card.created_at)),
        ...(expires !== undefined ? { expires_at: usDateTime(expires) } : {}),
      };
    },

    async findInTx(tx, tender) {
      let card: GiftCardData | undefined;
      if (tender.token) card = (await getRecord<GiftCardData>(tx, GIFT_CARD, tender.token))?.data;
      else if (tender.card_number) {
        const d = tender.card_number.replace(/[\s-]/g, '');
        card = /^[0-9]{6,19}$/.test(d) ? await byNumber(tx, d) : undefined;
      }
      if (!card) return { pinOk: false };
      // Paying by token (from a balance read) needs no PIN; paying by number does when one is set.
      const pinOk = tender.token ? true : !card.pin_hash || (!!tender.pin && pinHash(tender.pin) === card.pin_hash);
      return { card, pinOk };
    },

    expired(card) {
      return card.expiry_month !== null && card.expiry_year !== null && isExpired(card.expiry_month, card.expiry_year, core.clock.now(), account.profile().timezone);
    },

    async putInTx(tx, card, reason) {
      await put(tx, { ...card, updated_at: tx.at }, reason);
    },
  };
}

