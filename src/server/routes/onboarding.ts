import { defineRoute, type AnyRoute } from '../route';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { SANDBOX_REVIEW_RULES } from '../../engine/onboarding/sandbox';
import {
  Application,
  ApplicationCreated,
  ApplicationErrorResponse,
  ApplicationParameters,
  ApplicationStatusResponse,
  ApplicationStep,
  ApplicationTokenParams,
  TermsQuery,
} from '../../shared/schemas/onboarding';

const PARTNER = 'Needs partner credentials (a credential of kind `partner`, arranged through support: `npm run admin -- new-credentials --kind partner`); any other credential is refused with 403. A partner credential sees only the applications it created (another\'s is 404).';
const bad = { 400: { description: 'Invalid input: the reference\'s ApplicationErrorResponse names every invalid field (with our `error`, `code` and `details`)', schema: ref(ApplicationErrorResponse) } };
const missing = { 400: { description: 'The id is longer than 36 characters (field_errors names `id`)', schema: ref(ApplicationErrorResponse) }, 404: { description: 'No such application', schema: ref(ErrorBody) } };
const disabled = { 412: { description: 'Onboarding is not enabled for this account', schema: ref(ErrorBody) } };

export const getTerms = defineRoute({
  method: 'get',
  path: '/api/onboarding/v1/terms',
  operationId: 'getTerms',
  tags: ['Onboarding'],
  scope: 'onboarding',
  errorShape: 'onboarding',
  summary: 'Rates, prohibited products, terms and conditions and ranges for merchant services',
  description: `The figures an application picks from (resources/onboarding-terms.json). \`locale\` is language-country (\`en-us\`, \`en-ca\`, \`fr-ca\`); another well-formed locale gets the en-us terms. ${PARTNER}`,
  query: TermsQuery,
  responses: { 200: { description: 'Terms', schema: ref(ApplicationParameters) }, ...bad },
  handler({ engine, query }) {
    return { body: engine.onboarding.terms(query.locale) };
  },
});

export const createApplication = defineRoute({
  method: 'post',
  path: '/api/onboarding/v1/applications',
  operationId: 'addApplication',
  tags: ['Onboarding'],
  scope: 'onboarding',
  errorShape: 'onboarding',
  summary: 'Create a merchant application (status Received)',
  description: `Step 99 (POST /api/onboarding/v1/application_steps) submits it for review.\n\n${SANDBOX_REVIEW_RULES}\n\nOnly the last digits of tax ids and of the deposit account are kept. ${PARTNER}`,
  body: Application,
  bodyLimit: '25mb',
  responses: { 201: { description: 'Created', schema: ref(ApplicationCreated) }, ...bad, 409: { description: 'An application with this reference_token exists', schema: ref(ErrorBody) }, ...disabled },
  async handler({ engine, body, principal }) {
    return { status: 201, body: await engine.onboarding.create(body, principal!.credential) };
  },
});

export const getApplicationStatus = defineRoute({
  method: 'get',
  path: '/api/onboarding/v1/applications/:id',
  operationId: 'getApplicationStatus',
  tags: ['Onboarding'],
  scope: 'onboarding',
  errorShape: 'onboarding',
  summary: 'The status of an application, and an approved one\'s API credentials',
  description: `The reference's ApplicationStatus: Received, Processing (submitted), then Approved, Closed (declined) or On Hold (manual review); Provisionally Approved is never answered by the sandbox. A Closed or On Hold application carries \`status_reason\` (ours) saying why. An approved application's \`api_credentials\` work at once; the key is shown on the first read after approval only. ${PARTNER}`,
  params: ApplicationTokenParams,
  responses: { 200: { description: 'Status', schema: ref(ApplicationStatusResponse) }, ...missing },
  async handler({ engine, params, principal }) {
    return { body: await engine.onboarding.status(params.id, principal!.credential) };
  },
});

export const searchApplication = defineRoute({
  method: 'get',
  path: '/api/onboarding/v1/applications/search/:id',
  operationId: 'getApplicationToken',
  tags: ['Onboarding'],
  scope: 'onboarding',
  errorShape: 'onboarding',
  summary: 'The application token of the application with this reference token',
  description: PARTNER,
  params: ApplicationTokenParams,
  responses: { 200: { description: 'The application token', schema: ref(ApplicationCreated) }, ...missing },
  async handler({ engine, params, principal }) {
    return { body: await engine.onboarding.search(params.id, principal!.credential) };
  },
});

export const addApplicationStep = defineRoute({
  method: 'post',
  path: '/api/onboarding/v1/application_steps',
  operationId: 'addApplicationSteps',
  tags: ['Onboarding'],
  scope: 'onboarding',
  errorShape: 'onboarding',
  summary: 'Record a completed step of a merchant application; 99 submits it',
  description: `Steps 1..98 may come before the application exists. Step 99 needs the application (400 otherwise) and moves it from Received to Processing; sent again it changes nothing. ${PARTNER}`,
  body: ApplicationStep,
  responses: { 201: { description: 'Recorded' }, ...bad, ...disabled },
  async handler({ engine, body, principal }) {
    await engine.onboarding.step(body, principal!.credential);
    return { status: 201 };
  },
});

export const onboardingRoutes: AnyRoute[] = [getTerms, createApplication, searchApplication, getApplicationStatus, addApplicationStep];
