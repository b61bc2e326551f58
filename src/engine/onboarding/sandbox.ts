import type { ApplicationInput } from '../../shared/schemas/onboarding';

/**
 * How the sandbox decides a submitted application, like the test cards decide a payment: by test
 * values in the application, so a partner can drive every outcome. Documented in the API (the
 * Onboarding operations' description).
 */
export const DECLINED_TIN = '99-9999999';
export const MANUAL_REVIEW_TIN = '88-8888888';
/** A submitted application is decided this long after its submission (the next tick after it). */
export const REVIEW_MS = 60_000;
export const MANUAL_REVIEW_REASON = 'The application needs a manual review (sandbox test value: it is never decided)';

/** Declined is the reference's Closed; manual review its On Hold. */
export type ReviewOutcome = { decision: 'Approved' } | { decision: 'Closed'; reason: string } | { decision: 'On Hold'; reason: string };

const digits = (tin: string) => tin.replace(/\D/g, '');

/** The TIN's sandbox meaning: kept instead of the number, which is not stored. */
export type TinVerdict = 'declined' | 'manual' | 'other';

export function tinVerdict(tin: string): TinVerdict {
  const d = digits(tin);
  if (d === digits(DECLINED_TIN)) return 'declined';
  if (d === digits(MANUAL_REVIEW_TIN)) return 'manual';
  return 'other';
}

export function review(application: Pick<ApplicationInput, 'sells_prohibited_products' | 'agrees_terms_and_conditions'> & { tin: TinVerdict }): ReviewOutcome {
  if (application.tin === 'manual') return { decision: 'On Hold', reason: MANUAL_REVIEW_REASON };
  if (application.tin === 'declined') return { decision: 'Closed', reason: 'The business tax ID number could not be verified' };
  if (application.sells_prohibited_products) return { decision: 'Closed', reason: 'The business sells prohibited products' };
  if (!application.agrees_terms_and_conditions) return { decision: 'Closed', reason: 'The terms and conditions were not agreed to' };
  return { decision: 'Approved' };
}

export const SANDBOX_REVIEW_RULES = `In the sandbox an application is Received when created, Processing once step 99 submits it, and decided about a minute later by its test values:
business_tax_id_number.tin ${DECLINED_TIN} is declined (Closed), ${MANUAL_REVIEW_TIN} goes On Hold (manual review, never decided in the sandbox);
an application that sells prohibited products or does not agree to the terms and conditions is declined (Closed); any other is Approved.
A Closed or On Hold application's status carries \`status_reason\` (ours, not the reference's) saying why. The sandbox never answers Provisionally Approved.
An approved application makes a sandbox merchant account whose API token and key appear in api_credentials (the key on the first status read only) and work at once (GET /api/whoami).`;

export function tinLast4(tin: string): string {
  return digits(tin).slice(-4);
}
