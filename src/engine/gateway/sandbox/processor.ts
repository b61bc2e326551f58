import type { Ids } from '../../ids';
import { responseCodeFor } from '../reference-data';
import type { Outcome } from '../transaction-record';
import type { SandboxProfile } from './test-data';
import { amountDeclines, voidDeclines } from './checks';

/**
 * The sandbox processor's decisions. Pure functions of what the request carries (test numbers,
 * amounts, CVV, billing address) so the same request always gets the same answer; the gateway
 * records the outcome. Production has no processor here: the gateway refuses before asking.
 */
export type Decision =
  | { approved: true }
  | {
      approved: false;
      errorCode: string;
      /** The transaction's `gateway_error_message` (empty where the reference's sandbox leaves it empty). */
      message: string;
      subject: string;
      /** `gateway_response.errors` when it is not `{ [subject]: [message] }`. */
      errors?: Record<string, string[]>;
    };

export const APPROVED: Decision = { approved: true };

const decline = (errorCode: string, message: string, subject = 'gateway'): Decision => ({ approved: false, errorCode, message, subject });

/**
 * The processor's own decline, as the reference's sandbox answers the always-declining card and the
 * declining amounts: `gateway_error_code` 567.005, `gateway_error_message` DECLINED.
 */
export const PROCESSOR_DECLINE_CODE = '567.005';
const processorDecline = (): Decision => decline(PROCESSOR_DECLINE_CODE, 'DECLINED');

/**
 * A failed AVS check: the reference's sandbox says so in `gateway_response.errors` only and leaves
 * `gateway_error_message` empty (ActiveMerchant's message is then `[gateway - Failed AVS Check]`).
 */
const avsDecline = (): Decision => ({ approved: false, errorCode: 'avs_mismatch', message: '', subject: 'gateway', errors: { gateway: ['Failed AVS Check'] } });

/** The verification of a new card or a card read at a lane: number, expiry, issuer, AVS. */
export function verifyCard(input: {
  problem?: 'luhn' | 'unknown' | 'expired' | undefined;
  problemMessage?: string;
  profile: SandboxProfile;
  avs: string | null;
  checkAvs: boolean;
}): Decision {
  if (input.problem === 'luhn' || input.problem === 'unknown') return decline('invalid_account_number', input.problemMessage ?? 'INVALID ACCOUNT NUMBER', 'credit_card');
  if (input.problem === 'expired') return decline('expired_card', input.problemMessage ?? 'EXPIRED CARD', 'credit_card');
  if (input.profile === 'decline') return processorDecline();
  if (input.checkAvs && input.avs === 'N') return avsDecline();
  return APPROVED;
}

/** A financial card action (authorize, sale, capture, refund, credit) on a verified card. */
export function chargeCard(profile: SandboxProfile, amountCents: number): Decision {
  if (profile === 'decline' || amountDeclines(amountCents)) return processorDecline();
  return APPROVED;
}

/** An ACH/EFT debit or credit: unknown accounts decline as invalid; .01 amounts decline. */
export function chargeBank(input: { unknown: boolean; message: string; amountCents: number }): Decision {
  if (input.unknown) return decline('invalid_account_number', input.message, 'bank_account');
  if (amountDeclines(input.amountCents)) return processorDecline();
  return APPROVED;
}

export function voidDecision(amountCents: number): Decision {
  return voidDeclines(amountCents) ? processorDecline() : APPROVED;
}

export function giftDecision(input: {
  known: boolean;
  pinOk: boolean;
  /** Whether the card's PIN checks are paused or locked after repeated wrong PINs. */
  pinGate?: 'open' | 'paused' | 'locked' | 'busy';
  activated: boolean;
  expired: boolean;
  balanceCents: number;
  amountCents: number;
}): Decision {
  if (!input.known) return decline('gift_card_unknown', 'UNKNOWN GIFT CARD', 'gift_card');
  if (!input.pinOk && input.pinGate === 'busy') return decline('pin_check_in_progress', 'PIN CHECK IN PROGRESS: TRY AGAIN', 'gift_card');
  if (!input.pinOk && input.pinGate && input.pinGate !== 'open') return decline('pin_tries_exceeded', input.pinGate === 'locked' ? 'PIN TRIES EXCEEDED: CARD LOCKED' : 'PIN TRIES EXCEEDED: TRY LATER', 'gift_card');
  if (!input.pinOk) return decline('incorrect_pin', 'INCORRECT PIN', 'gift_card');
  if (!input.activated) return decline('gift_card_inactive', 'GIFT CARD NOT ACTIVATED', 'gift_card');
  if (input.expired) return decline('expired_card', 'EXPIRED CARD', 'gift_card');
  if (input.balanceCents < input.amountCents) return decline('insufficient_funds', 'INSUFFICIENT FUNDS', 'gift_card');
  if (amountDeclines(input.amountCents)) return processorDecline();
  return APPROVED;
}

/** Turns a decision into the outcome stored on the transaction, with processor references. */
export function outcomeOf(decision: Decision, ids: Ids, checks: { avs: string | null; cvv: string | null }): Outcome {
  const processorId = ids.token();
  const reference = processorId.toLowerCase().slice(-12);
  if (decision.approved) {
    return {
      approved: true,
      response_code: responseCodeFor(null).code,
      error_code: null,
      message: 'APPROVED',
      errors: null,
      authorization_code: processorId.slice(-6),
      processor_reference: reference,
      processor_id: processorId,
      avs: checks.avs,
      cvv: checks.cvv,
    };
  }
  return {
    approved: false,
    response_code: responseCodeFor(decision.errorCode).code,
    error_code: decision.errorCode,
    message: decision.message,
    errors: decision.errors ?? { [decision.subject]: [decision.message] },
    authorization_code: null,
    processor_reference: reference,
    processor_id: processorId,
    avs: checks.avs,
    cvv: checks.cvv,
  };
}
