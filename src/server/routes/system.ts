import { defineRoute } from '../route';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/registry';
import { WhoamiQuery, WhoamiResponse } from '../../shared/schemas/account';
import { InstallStatus } from '../../shared/schemas/system';

const unauthorized = { 401: { description: 'Missing or invalid credentials', schema: ref(ErrorBody) } };

export const whoami = defineRoute({
  method: 'get',
  path: '/api/whoami',
  operationId: 'whoami',
  tags: ['Authentication'],
  summary: 'Echo identity and account profile settings',
  description: 'The calling credential, the account profile, its divisions and a fresh JWT valid for `options[jwt_expiry]` days (1..365, default 30).',
  query: WhoamiQuery,
  responses: { 200: { description: 'Identity', schema: WhoamiResponse }, 400: { description: 'Bad jwt_expiry', schema: ref(ErrorBody) }, ...unauthorized },
  async handler({ engine, principal, query }) {
    const days = query.options?.jwt_expiry ?? 30;
    return { body: { whoami: await engine.account.whoami(principal!.credential, days) } };
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
