import type { EngineCore } from '../core';
import type { Account } from '../account';
import { fail, isEngineError } from '../errors';
import type { Wallets } from '../wallets';
import type { GiftCards, PinAttempt } from '../wallets/gift-cards';
import { cardProblemMessage, bankProblemMessage } from '../wallets/instruments';
import type { TokenRequest } from '../../shared/schemas/ecommerce';
import { verifyCard } from '../gateway/sandbox/processor';
import { cvvResponse } from '../gateway/sandbox/checks';
import { countGiftCardMiss, GIFT_CARD_MISSES, paymentTypesOf, putToken, type SessionData } from './sessions';

/**
 * The frame's tokenization (POST /sessions/{id}/tokens): a card or bank account is checked and
 * vaulted (brand, last four, fingerprint; the number and CVV are used once and dropped), a gift
 * card's PIN is tried; the answer is the vault's token, recorded against the session.
 */
export function createTokenizer(deps: { core: EngineCore; account: Account; wallets: Wallets; giftCards: GiftCards; alive: (id: string) => Promise<SessionData> }) {
  const { core, account, wallets, giftCards, alive } = deps;
  const sandbox = () => account.profile().environment === 'sandbox';

  return async function createToken(id: string, request: TokenRequest): Promise<{ token: string }> {
    const s = await alive(id);
    if (!paymentTypesOf(s.options).some((t) => t.name === request.type)) {
      throw fail.forbidden('payment_type_not_allowed', `This session does not take ${request.type}`);
    }
    if (request.type === 'applePay') throw fail.invalid('apple_pay_not_tokenized', 'Apple Pay payments are sent with the sale (applePayPayment), not tokenized here', [{ field: '/type', message: 'applePay is not tokenized' }]);
    if (!sandbox()) throw fail.unavailable('processor_unavailable', 'No payment processor is connected to this production install, so nothing can be tokenized');
    const need = (field: keyof TokenRequest) => {
      if (request[field] === undefined) throw fail.invalid('field_unspecified', `${field} is required for ${request.type}`, [{ field: `/${field}`, message: `${field} is required` }]);
    };
    const intoWallet = request.addToWallet === true && s.wallet && s.options.wallet?.allowAdd !== false ? s.wallet : undefined;
    if (request.type === 'giftCard') return giftToken(s, request, need);
    need('accountNumber');
    if (request.type === 'creditCard') {
      need('expirationMonth');
      need('expirationYear');
      // Optional in the reference's CreditCard, required here: the frame always asks for it, and the
      // card is verified (and its CVV answer recorded on its transactions) before a token is made.
      if (request.cardVerificationValue === undefined) throw refused('cvv_required', '/cardVerificationValue', 'cardVerificationValue (the security code on the card) is required');
      const input = inEcommerceTerms(() =>
        wallets.parseCard(
          { name: request.accountHolder ?? 'Cardholder', card_number: request.accountNumber!, expiry_month: request.expirationMonth!, expiry_year: request.expirationYear!, cvv: request.cardVerificationValue ?? null },
          { requireCvv: true, requireAddress: false },
        ),
      );
      if (input.problem) throw refused(`card_${input.problem}`, input.problem === 'expired' ? '/expirationYear' : '/accountNumber', cardProblemMessage(input.problem, input.card));
      // The reference's 412 "Payment method verification failed": the issuer is asked before a
      // token is handed out, so a card that cannot pay is refused in the frame, not at the sale.
      const verified = verifyCard({ profile: input.card.profile, avs: null, checkAvs: false });
      if (!verified.approved) throw refused('payment_method_verification_failed', '/accountNumber', `Payment method verification failed: ${verified.message || 'DECLINED'}`);
      return core.mutate(async (tx) => {
        const { fund } = await wallets.vaultInTx(tx, { ...(intoWallet ? { walletToken: intoWallet } : {}), card: input });
        const cvv = cvvResponse(input.secret?.cvv, input.card.brand);
        await putToken(tx, { token: fund!.token, session: s.id, type: 'creditCard', last4: input.card.last4, brand: input.card.brand, cvv_response: cvv, created_at: tx.at });
        return { token: fund!.token };
      });
    }
    need('routingNumber');
    const bank = inEcommerceTerms(() => wallets.parseBank({
      account_number: request.accountNumber!,
      routing_number: request.routingNumber!,
      account_type: request.accountType ?? 'checking',
      check_type: request.checkType ?? 'personal',
      account_holder: request.accountHolder ?? null,
      currency: request.currency ?? account.profile().currency.toUpperCase(),
    }));
    if (bank.problem) throw refused('bank_account_unknown', '/accountNumber', bankProblemMessage(bank.bank));
    return core.mutate(async (tx) => {
      const { fund } = await wallets.vaultInTx(tx, { ...(intoWallet ? { walletToken: intoWallet } : {}), bank });
      await putToken(tx, { token: fund!.token, session: s.id, type: 'ach', last4: bank.bank.last4, brand: null, created_at: tx.at });
      return { token: fund!.token };
    });
  };

  /**
   * An unknown number, a wrong PIN and a card not activated get one answer, so a buyer's page cannot
   * tell which numbers are cards (a card without a PIN pays with its number alone), and a session
   * stops taking gift cards after GIFT_CARD_MISSES of them.
   */
  async function giftToken(s: SessionData, request: TokenRequest, need: (f: keyof TokenRequest) => void): Promise<{ token: string }> {
    need('accountNumber');
    if ((s.gift_card_misses ?? 0) >= GIFT_CARD_MISSES) throw refused('gift_card_tries_exceeded', '/accountNumber', 'Too many gift card numbers or PINs on this payment did not match a card: pay another way');
    const miss = async () => {
      await countGiftCardMiss(core, s.id);
      return refused('gift_card_declined', '/accountNumber', 'This gift card number and PIN do not match a card that can pay: check both');
    };
    const attempt = await giftCards.attemptPin(request.accountNumber!, request.pin ?? null);
    if (!attempt) throw await miss();
    if (!attempt.ok) throw attempt.gate === 'open' ? await miss() : pinFailure(attempt.gate);
    const card = await giftCards.view(attempt.token);
    if (!card.activated) throw await miss();
    return core.mutate(async (tx) => {
      await putToken(tx, { token: attempt.token, session: s.id, type: 'giftCard', last4: card.last4, brand: null, created_at: tx.at });
      return { token: attempt.token };
    });
  }
}

/** A 412 naming the request's field, as every other ecommerce error does. */
const refused = (code: string, path: string, message: string) => fail.precondition(code, message, [{ field: path, message }]);

/**
 * The wallets' card and bank checks name the wallets API's fields (`credit_card.card_number`,
 * `bank_account.routing_number`) and answer a CVV with the reference gateway's four sentences; a
 * token request names its own fields, so their refusals are said again in its terms, one message each.
 */
const ECOMMERCE_TERMS: Record<string, [path: string, message: string]> = {
  invalid_card_number: ['/accountNumber', 'accountNumber must be a card number of 12 to 19 digits'],
  card_number_unspecified: ['/accountNumber', 'accountNumber is required'],
  expiry_unspecified: ['/expirationMonth', 'expirationMonth (1 to 12) and expirationYear (YYYY) are required'],
  malformed_account_number: ['/accountNumber', 'accountNumber must be a bank account number of 4 to 17 digits'],
  invalid_routing_number: ['/routingNumber', 'routingNumber is not a valid ABA routing number (9 digits with a correct check digit)'],
  routing_unspecified: ['/routingNumber', 'routingNumber is required'],
  name_unspecified: ['/accountHolder', 'accountHolder is required for a bank account'],
};

function inEcommerceTerms<T>(parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    if (!isEngineError(e) || e.kind !== 'precondition') throw e;
    const terms = ECOMMERCE_TERMS[e.code];
    if (terms) throw refused(e.code, terms[0], terms[1]);
    // The CVV's code is the reference gateway's whole sentence ("Validation failed: CVV can't be blank, ...").
    if (e.message.includes('CVV')) throw refused('invalid_cvv', '/cardVerificationValue', 'cardVerificationValue must be the 3 or 4 digits of the security code');
    throw e;
  }
}

/** A card's PIN checks paused, locked or under way (a wrong PIN is a miss: giftToken). */
const pinFailure = (gate: Exclude<PinAttempt['gate'], 'open'>) =>
  gate === 'busy'
    ? refused('pin_check_in_progress', '/pin', 'Another PIN check on this gift card is under way: try again in a moment')
    : refused('pin_tries_exceeded', '/pin', 'Too many wrong PINs: try later');
