import type { EngineCore } from '../core';
import type { Account } from '../account';
import { EngineError, fail, isEngineError, type ErrorKind } from '../errors';
import type { InstallKeys } from '../security/install-keys';
import { voidRefusal, type Gateway } from '../gateway';
import type { TransactionResult } from '../gateway/results';
import type { TxData } from '../gateway/transaction-record';
import { uniqueKey } from '../gateway/idempotency';
import { GIFT_CARD_LOAD, loadKey, type GiftCardLoadDone, type GiftCards } from '../wallets/gift-cards';
import type { GiftCardLoad, GiftCardRead } from '../../shared/schemas/wallets';
import type { LaneGiftRequest } from '../../shared/schemas/sync-gift-cards';
import { createPairing } from './pairing';
import { hubLink, OFFLINE_REFUND, refundOfflineSpendInTx, type OfflineRefund } from './offline-floor';
import { getRecord } from '../records';
import { realNow } from '../clock';

/**
 * Shop-wide gift cards (docs/sync.md, "Gift cards across the shop"): the hub is the one place a
 * balance lives. While a lane is linked to its hub, its gift card tenders' balance reads, sales,
 * voids and refunds, and its loads, are made on the hub (POST /api/sync/gift-cards, the lane's
 * `sync` credential) by the hub's own gateway and gift card rules, in one unit of work each: two
 * lanes spending one card at once cannot take more than its balance. Each is idempotent on the
 * lane's reference (its tender or reversal id, or one drawn per load, prefixed by the lane), so a
 * retry after a lost answer debits or loads once. A load sent with no reference (a lane of an
 * earlier version) is applied each time it arrives, as it was. While apart, a lane loads nothing
 * (no value is created unseen).
 */

/**
 * What a tender reads of the hub's transaction (the fields settleTenderInTx uses), and for a sale
 * the balance the hub left on the card when it debited it (so the lane's cashier can say it).
 */
export type TenderRecord = Pick<TxData, 'card' | 'terminal' | 'gift_last4' | 'amount_cents' | 'outcome'> & { gift_balance_cents?: number };
export interface HubOutcome {
  result: TransactionResult;
  record: TenderRecord;
}
export type ReadAnswer = Awaited<ReturnType<GiftCards['read']>>;

// ---------------------------------------------------------------- hub side

/** The hub's reference for a lane's request: the lane in it, so lanes never share one and a lane reaches only its own. */
const hubReference = (laneid: string, reference: string) => `lane-${laneid}-${reference}`;

const slim = (t: TxData): TenderRecord => ({ card: t.card, terminal: t.terminal, gift_last4: t.gift_last4, amount_cents: t.amount_cents, outcome: t.outcome });

async function withRecord(gateway: Gateway, result: TransactionResult): Promise<HubOutcome> {
  const t = await gateway.record(result.body.transaction);
  if (!t) throw fail.internal('gift_card_record_missing', 'The gift card transaction was not recorded');
  // The balance left travels in the record: the result is the gateway's answer as the reference has it.
  const { gift_balance_cents: left, ...answer } = result;
  return { result: answer, record: left === undefined ? slim(t) : { ...slim(t), gift_balance_cents: left } };
}

/** The lane's own gift card transaction on this hub (a lane voids or refunds nothing else). */
async function laneTransaction(gateway: Gateway, laneid: string, token: string): Promise<TxData> {
  const t = await gateway.record(token);
  if (!t || t.payment_method !== 'gift_card' || !t.transaction_reference?.startsWith(hubReference(laneid, ''))) {
    throw fail.notFound('gift_card_transaction_not_found', `No gift card payment ${token} of lane ${laneid}`);
  }
  return t;
}

/** Hub: one request of a lane, through the hub's own gateway and gift card rules. */
export async function serveLaneGiftCard(deps: { core: EngineCore; gateway: Gateway; giftCards: GiftCards; now: () => number }, laneid: string, req: LaneGiftRequest): Promise<unknown> {
  const { gateway, giftCards } = deps;
  const actor = `lane:${laneid}`;
  const ref = (r: string | undefined) => hubReference(laneid, r ?? '');
  switch (req.op) {
    case 'read':
      return { read: await giftCards.read({ card_number: req.card_number ?? '', ...(req.pin ? { pin: req.pin } : {}) }) };
    case 'load': {
      const input: GiftCardLoad = { card_number: req.card_number ?? '', ...(req.pin ? { pin: req.pin } : {}), ...(req.amount_cents !== undefined ? { load_amount_cents: req.amount_cents } : {}), ...(req.activated !== undefined ? { activated: req.activated } : {}) };
      // Once per lane and reference, as a sale; a lane of an earlier version sends none: applied as it comes.
      return { load: await giftCards.load(input, req.reference !== undefined ? { reference: ref(req.reference) } : undefined) };
    }
    case 'sale':
      return withRecord(gateway, await gateway.transact('sale', { amount_cents: req.amount_cents ?? 0, transaction_reference: ref(req.reference), unique_reference: ref(req.reference), gift_card: req.token ?? '' }, actor));
    case 'void':
    case 'refund':
      await laneTransaction(gateway, laneid, req.transaction ?? '');
      return withRecord(gateway, await gateway.transact(req.op, { transaction: req.transaction ?? '', transaction_reference: ref(req.reference), unique_reference: ref(req.reference), ...(req.op === 'refund' ? { amount_cents: req.amount_cents ?? 0 } : {}) }, actor));
    case 'offline_refund': {
      const request = { tender: req.tender ?? '', amount_cents: req.amount_cents ?? 0, reference: ref(req.reference) };
      return offlineRefundOutcome(await deps.core.mutate((tx) => refundOfflineSpendInTx(tx, laneid, request)), request.reference);
    }
    case 'voidable': {
      const t = await laneTransaction(gateway, laneid, req.transaction ?? '');
      return { voidable: voidRefusal(t, deps.now()) === null };
    }
    case 'find': {
      // What a request of the lane did, looked up after its answer was lost (a lane restarted mid-tender).
      const loaded = async () => {
        const done = await getRecord<GiftCardLoadDone>(deps.core, GIFT_CARD_LOAD, loadKey(ref(req.reference)) ?? '');
        return done ? { load: done.data.answer } : undefined;
      };
      if (req.action === 'load') return (await loaded()) ?? { found: null };
      const view = await gateway.view(uniqueKey(req.action ?? 'sale', null, ref(req.reference)) ?? '');
      const t = view ? await gateway.record(view.token) : undefined;
      if (!view || !t) {
        // A refund of a tender taken apart has no transaction: its record says whether it was made.
        const offline = req.action === 'refund' ? await getRecord<OfflineRefund>(deps.core, OFFLINE_REFUND, ref(req.reference)) : undefined;
        if (offline) return offlineRefundOutcome(offline.data, ref(req.reference));
        // No action named and no sale under the reference: a load under it (a lane's loads and tenders draw references apart).
        return (req.action === undefined ? await loaded() : undefined) ?? { found: null };
      }
      return { result: { approved: t.outcome.approved, body: { success: true, transaction: t.token, authorization: null, gateway_token: null, order: null, wallet: null, credit_card: null, bank_account: null, gift_card: view.gift_card, response_code: view.response_code, transactions: [view] } }, record: slim(t) };
    }
  }
}

/** A refund of a spend taken apart, answered as the lane's reversal step reads a gateway refund. */
function offlineRefundOutcome(refund: OfflineRefund, reference: string): HubOutcome {
  const outcome = { approved: true, response_code: 1, error_code: null, message: 'REFUNDED TO CARD', errors: null, authorization_code: null } as unknown as TenderRecord['outcome'];
  return {
    result: { approved: true, body: { success: true, transaction: reference, authorization: null, gateway_token: null, order: null, wallet: null, credit_card: null, bank_account: null, gift_card: null, response_code: 1, transactions: [] } },
    record: { card: null, terminal: null, gift_last4: null, amount_cents: refund.amount_cents, outcome },
  };
}

// ---------------------------------------------------------------- lane side

export interface HubGift {
  /** `local`: not a lane; `hub`: a lane linked to its hub; `apart`: a lane that cannot reach it now. */
  route(): Promise<'local' | 'hub' | 'apart'>;
  read(input: GiftCardRead): Promise<ReadAnswer>;
  /** Sent with a reference drawn for this load, the same on each retry of it: the hub loads once. */
  load(input: GiftCardLoad): Promise<Awaited<ReturnType<GiftCards['load']>>>;
  transact(action: 'sale', request: { token: string; amount_cents: number; reference: string }): Promise<HubOutcome>;
  transact(action: 'void' | 'refund', request: { transaction: string; reference: string; amount_cents?: number }): Promise<HubOutcome>;
  voidable(transaction: string): Promise<boolean>;
  /** Gives back on the hub's card part of a gift card tender this lane took apart from the hub's copy (no hub transaction). */
  refundOffline(request: { tender: string; amount_cents: number; reference: string }): Promise<HubOutcome>;
  /** The outcome of a sale, void or refund sent earlier under `reference`; null when the hub has none. */
  find(action: 'sale' | 'void' | 'refund', reference: string): Promise<HubOutcome | null>;
}

const TIMEOUT_MS = 10_000;
const ATTEMPTS = 3;

/** How long a load that got no answer is retried by the same load asked again (a cashier's retry, not the next customer's). */
export const UNCONFIRMED_LOAD_MS = 15 * 60_000;
const UNCONFIRMED_LOADS = 100;

/**
 * Loads the hub never answered, by request (card number, PIN, amount, activation), with the
 * reference each went under. Kept in memory only: a card number never rests on a lane, and after
 * a restart a retry draws a new reference (docs/sync.md: read the balance first).
 */
function unconfirmedLoads(now: () => number) {
  const kept = new Map<string, { reference: string; at: number }>();
  const keyOf = (request: object) => JSON.stringify(request);
  return {
    take(request: object): string | undefined {
      const key = keyOf(request);
      const found = kept.get(key);
      kept.delete(key);
      return found && now() - found.at <= UNCONFIRMED_LOAD_MS ? found.reference : undefined;
    },
    keep(request: object, reference: string): void {
      kept.set(keyOf(request), { reference, at: now() });
      // Bounded: the oldest go first (Map keeps insertion order).
      for (const key of kept.keys()) {
        if (kept.size <= UNCONFIRMED_LOADS) break;
        kept.delete(key);
      }
    },
  };
}

/**
 * A lane's request to its hub with its lane credential: the same request again after no answer (3
 * tries, 10 s each), so each must be idempotent on the hub. A refusal of the hub's rules comes back
 * as the engine error it was (`error`); no answer at all is `hub_unreachable` (`why` says what the
 * hub was needed for).
 */
export function hubCaller<B extends { op: string }>(core: EngineCore, pairing: ReturnType<typeof createPairing>, path: string, why: string): (body: B) => Promise<Record<string, unknown>> {
  return async (body) => {
    // A pairing this install cannot use (its credential unreadable) is a hub it cannot reach.
    const hub = await pairing.hub().catch(() => undefined);
    if (!hub) throw fail.unavailable('hub_unreachable', `The hub cannot be reached: ${why}`);
    const auth = `Basic ${Buffer.from(`${hub.token}:${hub.key}`).toString('base64')}`;
    let lastError = '';
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      let res: Response;
      try {
        res = await fetch(`${hub.url.replace(/\/$/, '')}${path}`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(TIMEOUT_MS) });
      } catch (err) {
        lastError = err instanceof Error ? err.message : String(err);
        continue;
      }
      const text = await res.text().catch(() => '');
      if (!res.ok) {
        lastError = `hub answered ${res.status}`;
        if (res.status >= 500) continue;
        throw fail.unavailable('hub_refused', `The hub refused this lane's request (${res.status}): ${why}`);
      }
      const answer = JSON.parse(text) as Record<string, unknown> & { error?: { kind: ErrorKind; code: string; message: string } };
      if (answer.error) throw new EngineError(answer.error.kind, answer.error.code, answer.error.message);
      return answer;
    }
    core.logger.warn({ path, op: body.op, error: lastError }, 'hub request got no answer');
    throw fail.unavailable('hub_unreachable', `The hub cannot be reached: ${why}`);
  };
}

export function createHubGift(deps: { core: EngineCore; account: Account; keys: InstallKeys }): HubGift {
  const pairing = createPairing(deps.core, deps.account, deps.keys);
  const unconfirmed = unconfirmedLoads(() => realNow(deps.core.clock));
  // The same request again after no answer (a cut link, a lost answer): the hub applies it once.
  const call = hubCaller<LaneGiftRequest>(deps.core, pairing, '/api/sync/gift-cards', 'gift cards are checked on the hub');
  const outcome = (a: Record<string, unknown>) => a as unknown as HubOutcome;
  return {
    async route() {
      const link = await hubLink(deps.core);
      return !link.paired ? 'local' : link.apart ? 'apart' : 'hub';
    },
    read: async (input) => (await call({ op: 'read', card_number: input.card_number, ...(input.pin ? { pin: input.pin } : {}) })).read as ReadAnswer,
    load: async (input) => {
      const amount = input.load_amount_cents === undefined ? undefined : Number(input.load_amount_cents);
      const activated = input.activated === undefined ? undefined : String(input.activated) === 'true';
      const request = { op: 'load' as const, card_number: input.card_number, ...(input.pin ? { pin: input.pin } : {}), ...(amount !== undefined ? { amount_cents: amount } : {}), ...(activated !== undefined ? { activated } : {}) };
      // One reference per load, sent on each of call()'s tries: a retry after a lost answer loads
      // nothing more. A load that got no answer at all may have been applied: the same load asked
      // again soon after is a retry of it and goes under its reference; any other load draws its own.
      const reference = unconfirmed.take(request) ?? `load-${deps.core.ids.token()}`;
      try {
        const answer = await call({ ...request, reference });
        return answer.load as Awaited<ReturnType<GiftCards['load']>>;
      } catch (err) {
        if (isEngineError(err) && err.code === 'hub_unreachable') unconfirmed.keep(request, reference);
        throw err;
      }
    },
    transact: async (action: 'sale' | 'void' | 'refund', request: { token?: string; transaction?: string; amount_cents?: number; reference: string }) => outcome(await call({ op: action, ...request })),
    voidable: async (transaction) => (await call({ op: 'voidable', transaction })).voidable === true,
    refundOffline: async (request) => outcome(await call({ op: 'offline_refund', ...request })),
    async find(action, reference) {
      const answer = await call({ op: 'find', action, reference });
      return 'found' in answer ? null : outcome(answer);
    },
  };
}

/**
 * The install's gift cards as the API sees them: on a lane, a read or load goes to the hub while
 * linked; a load while apart is refused, and a read answers what this install holds.
 */
export function shopGiftCards(local: GiftCards, hub: HubGift): GiftCards {
  return {
    ...local,
    async read(input) {
      return (await hub.route()) === 'hub' ? hub.read(input) : local.read(input);
    },
    async load(input, retry) {
      const route = await hub.route();
      const refusal = () => fail.precondition('hub_unreachable', 'The hub cannot be reached: gift cards are loaded and activated only while it is (no value is created on a lane alone)');
      if (route === 'apart') throw refusal();
      if (route === 'local') return local.load(input, retry);
      return hub.load(input).catch((err: unknown) => {
        if (!isEngineError(err) || err.code !== 'hub_unreachable') throw err;
        // The hub may have loaded the card and its answer been lost: say so, and how to retry safely.
        throw fail.precondition('hub_unreachable', 'The hub did not answer, so this load is not confirmed: it may have been applied. Send the same load again once the hub answers: it is applied once (within 15 minutes). Read the balance before loading anything else.');
      });
    },
  };
}

/** Engine errors travel to the lane as data (kind, code, message): the gateway's error replies carry no message. */
export function asLaneAnswer(err: unknown): { error: { kind: ErrorKind; code: string; message: string } } {
  if (!isEngineError(err)) throw err;
  return { error: { kind: err.kind, code: err.code, message: err.message } };
}
