import { defineRoute } from '../route';
import { parseScopes } from '../../engine/account';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { WhoamiQuery, WhoamiResponse } from '../../shared/schemas/account';
import { InstallStatus } from '../../shared/schemas/system';

const unauthorized = { 401: { description: 'Missing or invalid credentials', schema: ref(ErrorBody) } };

export const whoami = defineRoute({
  method: 'get',
  path: '/api/whoami',
  operationId: 'whoami',
  anyAccount: true,
  tags: ['Authentication'],
  summary: 'Echo identity and account profile settings',
  description:
    'The calling credential, the account profile, its divisions and a fresh JWT valid for `options[jwt_expiry]` days (1..365, default 30), holding the `api` scope unless `options[jwt_scope]` says otherwise. ' +
    'Called with a JWT, the new JWT expires no later than the caller and holds no scope the caller lacks (403 when asked for one).',
  query: WhoamiQuery,
  responses: { 200: { description: 'Identity', schema: WhoamiResponse }, 400: { description: 'Bad jwt_expiry or jwt_scope', schema: ref(ErrorBody) }, ...unauthorized },
  async handler({ engine, principal, query }) {
    const days = query.options?.jwt_expiry ?? 30;
    const scope = query.options?.jwt_scope;
    return { body: { whoami: await engine.account.whoami(principal!, days, scope === undefined ? undefined : parseScopes(scope)) } };
  },
});


export const status = defineRoute({
  method: 'get',
  path: '/api/status',
  operationId: 'getStatus',
  tags: ['Laneway'],
  summary: 'Install status: environment, store size, current watermark',
  responses: { 200: { description: 'Status', schema: ref(InstallStatus) }, ...unauthorized },
  handler({ engine }) {
    return { body: engine.status() };
  },
});

export const systemRoutes = [whoami, status];
