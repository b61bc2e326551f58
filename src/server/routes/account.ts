import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route';
import type { AccountProfile } from '../../engine/account';
import type { ProcessingDay } from '../../engine/gateway/processing-day';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { AccountPatch, AccountSettings, Credential, CredentialCreate, CredentialCreated } from '../../shared/schemas/account';

const errors = {
  400: { description: 'Invalid input', schema: ref(ErrorBody) },
  401: { description: 'Missing or invalid credentials', schema: ref(ErrorBody) },
};
const CREDENTIALS_SCOPE =
  ' Needs the `credentials` scope: the API key (HTTP Basic), or a JWT minted with `options[jwt_scope]=api credentials`; the screens\' JWTs do not hold it (403).';

const settings = (p: AccountProfile, day: ProcessingDay) => ({
  token: p.token,
  name: p.name,
  sender_identifier: p.sender_identifier,
  environment: p.environment,
  currency: p.currency,
  preferred_language: p.preferred_language,
  timezone: p.timezone,
  processing_cutoff: p.processing_cutoff,
  authorization_hold_days: p.authorization_hold_days,
  open_processing_day: { date: day.date, closes_at: new Date(day.cutoffAt).toISOString() },
  capabilities: p.capabilities,
  created_at: p.created_at,
  updated_at: p.updated_at,
});

const CREATE_RULE =
  ' The new key holds `api credentials users settings`: the caller must hold every scope of the API key (a partner\'s holds `onboarding`, which no caller holds: refused with 403 `insufficient_scope`; partner credentials are arranged through support, `npm run admin -- new-credentials --kind partner`), and a JWT minted by GET /api/whoami (from the key or from a session, narrowed or not) is refused with 403 `minted_jwt_cannot_create_credentials`: a key made with it would outlive it. Use the API key itself or an owner\'s session.';

export const getAccount = defineRoute({
  method: 'get',
  path: '/api/account',
  operationId: 'getAccountSettings',
  tags: ['Account settings'],
  summary: 'Account settings and capability flags',
  responses: { 200: { description: 'Settings', schema: ref(AccountSettings) }, ...errors },
  handler: ({ engine }) => ({ body: settings(engine.account.profile(), engine.gateway.openProcessingDay()) }),
});

export const patchAccount = defineRoute({
  method: 'patch',
  path: '/api/account',
  operationId: 'updateAccountSettings',
  scope: 'settings',
  tags: ['Account settings'],
  summary: 'Change account settings or turn capabilities on and off',
  description:
    'Needs the `settings` scope: the API key (HTTP Basic), an owner\'s or a manager\'s session, or a JWT minted with `options[jwt_scope]=api settings`. The default JWT (the screens\' `api` scope) gets 403 `insufficient_scope`: capability flags and the processing cut-off change what the API does with money. ' +
    'A new `processing_cutoff` or `timezone` takes effect from the next processing day, as card processors apply a new cut-off from the next batch: the day open when it changes ' +
    '(the one a transaction made now belongs to; after the old cut-off, the next) keeps its cut-off, and the new setting counts the days after it. So a batch once closed never takes another ' +
    'transaction, a transaction is voidable exactly until its own batch is transmitted, and a day is never cut twice.',
  body: AccountPatch,
  responses: { 200: { description: 'Settings', schema: ref(AccountSettings) }, ...errors },
  async handler({ engine, body }) {
    const updated = await engine.account.update(body);
    return { body: settings(updated, engine.gateway.openProcessingDay()) };
  },
});

export const listCredentials = defineRoute({
  method: 'get',
  path: '/api/account/credentials',
  operationId: 'listCredentials',
  scope: 'credentials',
  tags: ['Account settings'],
  summary: 'API credentials of the account (keys are never shown again)',
  description: CREDENTIALS_SCOPE.trim(),
  responses: { 200: { description: 'Credentials', schema: Type.Object({ credentials: Type.Array(ref(Credential)) }) }, ...errors },
  async handler({ engine }) {
    return { body: { credentials: await engine.account.credentials.list() } };
  },
});

export const createCredential = defineRoute({
  method: 'post',
  path: '/api/account/credentials',
  operationId: 'createCredential',
  scope: 'credentials',
  tags: ['Account settings'],
  summary: 'Create an API token and key; the key is in this response only',
  description: CREDENTIALS_SCOPE.trim() + CREATE_RULE,
  body: CredentialCreate,
  responses: { 201: { description: 'Created', schema: CredentialCreated }, ...errors },
  async handler({ engine, body, principal }) {
    return { status: 201, body: await engine.account.createCredential(principal!, { ...(body.name ? { name: body.name } : {}), ...(body.kind ? { kind: body.kind } : {}) }) };
  },
});

export const disableCredential = defineRoute({
  method: 'post',
  path: '/api/account/credentials/:token/disable',
  operationId: 'disableCredential',
  scope: 'credentials',
  tags: ['Account settings'],
  summary: 'Disable a credential: it and its JWTs fail at once',
  description: CREDENTIALS_SCOPE.trim(),
  params: Type.Object({ token: Type.String({ minLength: 1, maxLength: 64 }) }),
  responses: { 200: { description: 'Disabled', schema: ref(Credential) }, 404: { description: 'No such credential', schema: ref(ErrorBody) }, ...errors },
  async handler({ engine, params }) {
    return { body: await engine.account.credentials.disable(params.token) };
  },
});

export const accountRoutes = [getAccount, patchAccount, listCredentials, createCredential, disableCredential];
