import termsTable from '../../../resources/onboarding-terms.json';
import type { EngineCore, Tx } from '../core';
import type { Account } from '../account';
import { putMerchantAccountInTx } from '../account';
import { fail } from '../errors';
import { getRecord, putRecord, recordsByRef, recordsOfKind } from '../records';
import type { VaultKeys } from '../wallets/secrets';
import type { ApplicationInput, ApplicationParametersData, ApplicationStatusName, ApplicationStepInput } from '../../shared/schemas/onboarding';
import { REVIEW_MS, review, tinLast4, tinVerdict, type TinVerdict } from './sandbox';
import { openKey, sealKey, type SealedKey } from './sealed-key';

/**
 * Merchant onboarding: a partner's applications for merchant services (records kind `application`,
 * keyed by application token, `ref` the partner's reference token) and the steps it records
 * (kind `application_steps`, keyed by reference token: steps may come before the application).
 *
 * States (the reference's ApplicationStatus): Received (created) → Processing (step 99) → Approved,
 * Closed (declined) or On Hold (manual review), by the sandbox's review (sandbox.ts). Nothing else moves an application; an approved one made its merchant account and
 * credentials in the same unit of work that approved it.
 */
export interface ApplicationStatusView {
  application_status: ApplicationStatusName;
  api_credentials?: { api_token: string; api_key: string | null };
  /** Ours: why an application is Closed or On Hold. */
  status_reason?: string;
}

export interface Onboarding {
  terms(locale: string | undefined): ApplicationParametersData;
  create(input: ApplicationInput, actor: string): Promise<{ application_token: string }>;
  /** The status; an approved application's key is shown on the first read after approval only. */
  status(applicationToken: string, actor: string): Promise<ApplicationStatusView>;
  search(referenceToken: string, actor: string): Promise<{ application_token: string }>;
  step(input: ApplicationStepInput, actor: string): Promise<void>;
  /** Decides the applications whose review is due (the `onboarding.review` tick). */
  reviewDue(now: number): Promise<number>;
}

/**
 * What is kept of an application: the facts a review and a merchant account need. Tax ids keep
 * their last digits, the deposit account its routing number and last four, documents their names;
 * the numbers themselves are used once (the review) and dropped, like card numbers.
 */
interface ApplicationData {
  token: string;
  reference_token: string;
  status: ApplicationStatusName;
  legal_name: string;
  dba_name: string;
  business_email: string;
  ownership_type: string;
  business_type: string;
  naics_code: string;
  locale: string | null;
  external_link: string | null;
  link_to_existing: string | null;
  tin_last4: string;
  deposit_account: { routing_number: string; last4: string };
  documents: string[];
  /** What the review decides on (the TIN's test value is kept as a verdict, not as the number). */
  review_input: { tin: TinVerdict; sells_prohibited_products: boolean; agrees_terms_and_conditions: boolean };
  created_by: string;
  received_at: string;
  submitted_at: string | null;
  review_due_at: number;
  decided_at: string | null;
  status_reason: string | null;
  merchant_account: string | null;
  credential: { token: string; sealed: SealedKey | null } | null;
}

interface StepsData {
  reference_token: string;
  steps: Array<{ step_number: number; message: string; at: string; by: string }>;
}

const APPLICATION = 'application';
const STEPS = 'application_steps';
const SUBMIT_STEP = 99;
/** Steps kept per reference (a partner's form retried in a loop must not grow a record forever). */
const MAX_STEPS = 200;

type TermsTable = { default_locale: string; locales: Record<string, ApplicationParametersData> };
const table = termsTable as unknown as TermsTable;

function guid(hex: string): string {
  const h = hex.padEnd(32, '0').slice(0, 32).split('');
  h[12] = '4';
  h[16] = '89ab'[parseInt(h[16]!, 16) % 4]!;
  const s = h.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

/** The record kept of an application: what the review and a merchant account need, no full number. */
function newApplication(input: ApplicationInput, token: string, actor: string, at: string): ApplicationData {
  const tin = input.business_tax_id_number.tin;
  return {
    token,
    reference_token: input.reference_token,
    status: 'Received',
    legal_name: input.business_legal_name,
    dba_name: input.business_dba_name,
    business_email: input.business_email,
    ownership_type: input.ownership_type,
    business_type: input.business_type,
    naics_code: input.naics_code,
    locale: input.locale ?? null,
    external_link: input.external_link ?? null,
    link_to_existing: input.link_to_existing ?? null,
    tin_last4: tinLast4(tin),
    deposit_account: { routing_number: input.deposit_account.routing_number, last4: input.deposit_account.account_number.slice(-4) },
    documents: (input.supporting_documents ?? []).map((d) => d.filename),
    review_input: {
      tin: tinVerdict(tin),
      sells_prohibited_products: input.sells_prohibited_products,
      agrees_terms_and_conditions: input.agrees_terms_and_conditions,
    },
    created_by: actor,
    received_at: at,
    submitted_at: null,
    review_due_at: 0,
    decided_at: null,
    status_reason: null,
    merchant_account: null,
    credential: null,
  };
}

const EVENT_OF = { Approved: 'application.approved', Closed: 'application.declined', 'On Hold': 'application.manual_review' } as const;

const statusEvent = (a: ApplicationData, type: string) => ({ type, entity: 'application', key: a.token, data: { status: a.status } });

/** An approved application's status with its credentials; the sealed key is opened once, then dropped. */
async function deliverInTx(tx: Tx, vault: VaultKeys, applicationToken: string): Promise<ApplicationStatusView> {
  const a = (await getRecord<ApplicationData>(tx, APPLICATION, applicationToken))!.data;
  const credential = a.credential!;
  if (!credential.sealed) return { application_status: 'Approved', api_credentials: { api_token: credential.token, api_key: null } };
  const key = openKey(vault, credential.sealed, a.token);
  await putRecord(tx, APPLICATION, a.token, { ...a, credential: { token: credential.token, sealed: null } }, statusEvent(a, 'application.credentials_delivered'), a.reference_token);
  return { application_status: 'Approved', api_credentials: { api_token: credential.token, api_key: key } };
}

/** Records a step; step 99 submits the application (Received → Processing), once. */
async function stepInTx(tx: Tx, input: ApplicationStepInput, actor: string): Promise<void> {
  const application = (await recordsByRef<ApplicationData>(tx, APPLICATION, input.reference_token))[0]?.data;
  if (application && application.created_by !== actor) {
    throw fail.invalid('validation_failed', `reference_token ${input.reference_token} names an application of another partner`, [
      { field: 'reference_token', code: 'reference_token_taken', message: 'reference_token names an application this credential did not create' },
    ]);
  }
  if (input.step_number === SUBMIT_STEP) {
    if (!application) {
      throw fail.invalid('validation_failed', `Step 99 submits the application, and none has reference_token ${input.reference_token}: create it first`, [
        { field: 'reference_token', code: 'application_not_found', message: 'reference_token names no application' },
      ]);
    }
    // A repeated step 99 (a retry) changes nothing once the application is submitted.
    if (application.status === 'Received') {
      const submitted: ApplicationData = { ...application, status: 'Processing', submitted_at: tx.at, review_due_at: tx.now + REVIEW_MS };
      await putRecord(tx, APPLICATION, application.token, submitted, statusEvent(submitted, 'application.submitted'), application.reference_token);
    }
  }
  const existing = (await getRecord<StepsData>(tx, STEPS, input.reference_token))?.data;
  const steps = [...(existing?.steps ?? []), { step_number: input.step_number, message: input.message, at: tx.at, by: actor }].slice(-MAX_STEPS);
  await putRecord(tx, STEPS, input.reference_token, { reference_token: input.reference_token, steps }, {
    type: 'application.step_recorded',
    entity: 'application_steps',
    key: input.reference_token,
    data: { step_number: input.step_number },
  });
}

export function createOnboarding(deps: { core: EngineCore; account: Account; vault: VaultKeys }): Onboarding {
  const { core, account, vault } = deps;

  const byReference = async (reader: Tx | EngineCore, reference: string) => (await recordsByRef<ApplicationData>(reader, APPLICATION, reference))[0]?.data;
  /**
   * A partner sees only the applications its credential created: another partner's status read
   * would take the approved merchant's API key (shown once), and its search would find them by a
   * guessable reference token. Not found, as if it did not exist.
   */
  const mine = (a: ApplicationData | undefined, actor: string) => (a && a.created_by === actor ? a : undefined);

  const approveInTx = async (tx: Tx, a: ApplicationData): Promise<ApplicationData> => {
    const merchant = core.ids.token();
    await putMerchantAccountInTx(tx, {
      token: merchant,
      name: a.dba_name,
      legal_name: a.legal_name,
      application_token: a.token,
      external_link: a.external_link,
      currency: account.profile().currency,
      created_at: tx.at,
    });
    const made = await account.credentials.createInTx(tx, { name: `Merchant ${a.dba_name}`.slice(0, 100), kind: 'merchant', account: merchant });
    return { ...a, status: 'Approved', decided_at: tx.at, merchant_account: merchant, credential: { token: made.token, sealed: sealKey(vault, made.key, a.token) } };
  };

  const decideInTx = async (tx: Tx, token: string, now: number): Promise<boolean> => {
    const a = (await getRecord<ApplicationData>(tx, APPLICATION, token))?.data;
    if (!a || a.status !== 'Processing' || a.review_due_at > now) return false;
    const outcome = review(a.review_input);
    // On Hold (manual review) is never decided here: only Processing applications are looked at.
    const next: ApplicationData = outcome.decision === 'Approved' ? await approveInTx(tx, a) : { ...a, status: outcome.decision, decided_at: tx.at, status_reason: outcome.reason };
    await putRecord(tx, APPLICATION, a.token, next, statusEvent(next, EVENT_OF[outcome.decision]), a.reference_token);
    return outcome.decision !== 'On Hold';
  };

  core.onTick('onboarding.review', async (now) => {
    await onboarding.reviewDue(now);
  });

  const onboarding: Onboarding = {
    terms(locale) {
      return table.locales[locale ?? table.default_locale] ?? table.locales[table.default_locale]!;
    },

    async create(input, actor) {
      account.require('onboarding');
      return core.mutate(async (tx) => {
        if (await byReference(tx, input.reference_token)) {
          throw fail.conflict('application_exists', `An application with reference_token ${input.reference_token} already exists: find it with GET /api/onboarding/v1/applications/search/{reference_token}`);
        }
        if (input.link_to_existing !== undefined && !mine(await byReference(tx, input.link_to_existing), actor)) {
          throw fail.invalid('validation_failed', `link_to_existing ${input.link_to_existing} matches no application submitted earlier`, [
            { field: 'link_to_existing', code: 'not_found', message: 'link_to_existing must be the reference_token of an application submitted earlier' },
          ]);
        }
        const data = newApplication(input, guid(core.ids.secret(16)), actor, tx.at);
        const token = data.token;
        await putRecord(tx, APPLICATION, token, data, statusEvent(data, 'application.received'), input.reference_token);
        return { application_token: token };
      });
    },

    async status(applicationToken, actor) {
      const found = mine((await getRecord<ApplicationData>(core, APPLICATION, applicationToken))?.data, actor);
      if (!found) throw fail.notFound('application_not_found', `No application ${applicationToken}`);
      if (found.status !== 'Approved' || !found.credential) {
        return { application_status: found.status, ...(found.status_reason ? { status_reason: found.status_reason } : {}) };
      }
      if (!found.credential.sealed) return { application_status: 'Approved', api_credentials: { api_token: found.credential.token, api_key: null } };
      // The first read after approval delivers the key and forgets it: only its hash stays.
      return core.mutate((tx) => deliverInTx(tx, vault, applicationToken));
    },

    async search(referenceToken, actor) {
      const found = mine(await byReference(core, referenceToken), actor);
      if (!found) throw fail.notFound('application_not_found', `No application with reference_token ${referenceToken}`);
      return { application_token: found.token };
    },

    async step(input, actor) {
      account.require('onboarding');
      await core.mutate((tx) => stepInTx(tx, input, actor));
    },

    async reviewDue(now) {
      const due = (await recordsOfKind<ApplicationData>(core, APPLICATION)).filter((r) => r.data.status === 'Processing' && r.data.review_due_at <= now);
      let decided = 0;
      for (const r of due) if (await core.mutate((tx) => decideInTx(tx, r.data.token, now))) decided += 1;
      return decided;
    },
  };
  return onboarding;
}
