import type { EngineCore, Tx } from '../core';
import { fail } from '../errors';
import { getRecord, putRecord, type RecordDoc } from '../records';
import { brandName } from '../gateway/reference-data';
import { FUNDS, type FundDoc } from '../wallets/records';
import type { PaymentTypeOption, SessionOptions, SessionView } from '../../shared/schemas/ecommerce';

/**
 * Payment sessions and the tokens their frame made: small records in the shared `records`
 * collection. A session lives SESSION_TTL_MS from its creation: long enough for a buyer to fill a
 * checkout page and pay, short enough that a leaked session id is soon worth nothing. Past it every
 * operation on the session answers 404 `session_expired`, and its frame shows the same.
 */
export const SESSION_TTL_MS = 60 * 60_000;
export const SESSION = 'ecommerce_session';
export const TOKEN = 'ecommerce_token';
export const SALE = 'ecommerce_sale';

export interface SessionData {
  id: string;
  options: SessionOptions;
  /** The wallet the session's options name (by id or by customer), resolved at creation. */
  wallet: string | null;
  created_by: string;
  created_at: string;
  expires_ms: number;
  /** Gift card numbers or PINs tried on this session that matched no card that can pay (GIFT_CARD_MISSES). */
  gift_card_misses?: number;
}

/**
 * How many gift card numbers or PINs that match no card one payment session may try. The frame's
 * token call needs no credentials: without a bound a buyer's page could try number after number.
 */
export const GIFT_CARD_MISSES = 10;

/** One more gift card that matched nothing, counted on the session in the write queue (each sees the ones before). */
export async function countGiftCardMiss(core: EngineCore, id: string): Promise<void> {
  await core.mutate(async (tx) => {
    const doc = await getRecord<SessionData>(tx, SESSION, id);
    if (!doc) return;
    const data = { ...doc.data, gift_card_misses: (doc.data.gift_card_misses ?? 0) + 1 };
    await putRecord(tx, SESSION, data.id, data, { type: 'ecommerce_session.updated', entity: 'ecommerce_session', key: data.id, data: { gift_card_misses: data.gift_card_misses } });
  });
}

/** A payment method the frame tokenized on a session; the token is the vault's own token. */
export interface TokenData {
  token: string;
  session: string;
  type: 'creditCard' | 'ach' | 'giftCard';
  last4: string;
  brand: string | null;
  /** A card's CVV answer when the frame tokenized it (the code, never the CVV): recorded on each of its transactions. */
  cvv_response?: string | null;
  created_at: string;
}

export const DEFAULT_PAYMENT_TYPES: PaymentTypeOption[] = [
  {
    name: 'creditCard',
    label: 'Payment Card',
    promoted: false,
    fields: [
      { name: 'cardholderName', label: 'Cardholder Name', errorLabel: 'Cardholder name' },
      { name: 'accountNo', label: 'Account Number', errorLabel: 'Credit card number' },
      { name: 'expDate', label: 'Expiration Date', errorLabel: 'Expiration date' },
      { name: 'cvv', label: 'Security Code', errorLabel: 'Security code' },
    ],
  },
];

const DEFAULT_LABELS: Record<string, string> = { creditCard: 'Payment Card', ach: 'Bank Account', giftCard: 'Gift Card', applePay: 'ApplePay' };

export async function loadSession(reader: Tx | EngineCore, id: string, now: number): Promise<SessionData> {
  const doc = await getRecord<SessionData>(reader, SESSION, id.toLowerCase());
  if (!doc) throw fail.notFound('session_not_found', `No session ${id}`);
  if (now >= doc.data.expires_ms) {
    throw fail.notFound('session_expired', `Session ${id} expired at ${new Date(doc.data.expires_ms).toISOString()}: create a new one (sessions last ${SESSION_TTL_MS / 60_000} minutes)`);
  }
  return doc.data;
}

export const putSession = (tx: Tx, data: SessionData) =>
  putRecord(tx, SESSION, data.id, data, { type: 'ecommerce_session.created', entity: 'ecommerce_session', key: data.id, data: { expires_at: new Date(data.expires_ms).toISOString() } });

export const putToken = (tx: Tx, data: TokenData) =>
  putRecord(tx, TOKEN, data.token, data, { type: 'ecommerce_token.created', entity: 'ecommerce_token', key: data.token, data: { session: data.session, type: data.type } }, data.session);

export async function tokenOf(reader: Tx | EngineCore, token: string): Promise<RecordDoc<TokenData> | undefined> {
  return getRecord<TokenData>(reader, TOKEN, token);
}

/** The payment types the frame shows: the session's, each with the reference's default label. */
export function paymentTypesOf(options: SessionOptions): PaymentTypeOption[] {
  const types = options.paymentTypes && options.paymentTypes.length > 0 ? options.paymentTypes : DEFAULT_PAYMENT_TYPES;
  return types.map((t) => ({ ...t, label: t.label ?? DEFAULT_LABELS[t.name] ?? t.name }));
}

/** GET /sessions/{id}: the options, with the wallet's cards and bank accounts the frame may offer. */
export async function sessionView(reader: Tx | EngineCore, s: SessionData, environment: string): Promise<SessionView> {
  const { wallet: walletOptions, ...rest } = s.options;
  const view: SessionView = { ...rest, paymentTypes: paymentTypesOf(s.options), expiresAt: new Date(s.expires_ms).toISOString(), environment };
  if (walletOptions || s.wallet) {
    const funds = s.wallet ? (await reader.find<FundDoc>(FUNDS, { selector: { wallet: s.wallet } })).map((d) => d.data).filter((f) => !f.inactive) : [];
    const shown = walletOptions?.tokens?.length ? funds.filter((f) => walletOptions.tokens!.includes(f.token)) : funds;
    const editable = walletOptions?.allowEdit === true;
    view.wallet = {
      ...walletOptions,
      ...(s.wallet ? { id: s.wallet } : {}),
      creditCardTokens: shown
        .filter((f) => f.card)
        .map((f) => ({
          token: f.token,
          ...(f.card!.cardholder ? { accountHolder: f.card!.cardholder } : {}),
          accountNumberLastFour: f.card!.last4,
          expirationMonth: f.card!.expiry_month,
          expirationYear: f.card!.expiry_year,
          brand: f.card!.brand,
          editable,
        })),
      bankAccountTokens: shown
        .filter((f) => f.bank)
        .map((f) => ({
          token: f.token,
          ...(f.bank!.account_holder ? { accountHolder: f.bank!.account_holder } : {}),
          ...(f.bank!.routing_number ? { routingNumber: f.bank!.routing_number } : {}),
          accountNumberLastFour: f.bank!.last4,
          currency: f.bank!.currency.toUpperCase(),
          editable,
        })),
    };
  }
  return view;
}

/** "Visa", "Mastercard", "Checking", "Gift Card": the reference's accountType. */
export function accountTypeOf(method: string, brand: string | null, bankType: string | null): string {
  if (method === 'credit_card') return brandName(brand ?? 'unknown');
  if (method === 'bank_account') return bankType === 'savings' ? 'Savings' : 'Checking';
  return 'Gift Card';
}
