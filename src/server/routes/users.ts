import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route';
import type { Engine } from '../../engine';
import type { Session } from '../../engine/account/users';
import { ROLE_SCOPES } from '../../engine/account/roles';
import { fail } from '../../engine/errors';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { LinkBody, SignInBody, User, UserCreate, UserCreated, UserList, UserPatch, UserSession } from '../../shared/schemas/users';

const TAGS = ['Back office users'];
const OURS = "Laneway's own operation (not in the reference API). ";
const err = (description: string) => ({ description, schema: ref(ErrorBody) });
const USERS_SCOPE = 'Needs the `users` scope: the owner, or the API key.';
const LASTING =
  ' A sign-in link, a wider role or a user enabled again also needs every scope of that role, and a JWT minted by GET /api/whoami gets 403 `minted_jwt_cannot_create_credentials`: the sign-in it hands out would outlive the JWT.';

const sessionBody = (engine: Engine, s: Session) => ({ ...s, scopes: [...ROLE_SCOPES[s.user.role]], account_name: engine.account.profile().name });

export const signIn = defineRoute({
  method: 'post',
  path: '/api/session',
  operationId: 'signInUser',
  tags: TAGS,
  summary: 'Sign a back-office user in with e-mail and password',
  description: `${OURS}Answers a session JWT holding the user's role. Five wrong passwords in a row from one client address lock that address out of the user for 15 minutes (403 user_locked), and fifty in a row from any addresses lock the user for everyone, so nobody can keep a user out from their own address; an e-mail that names no enabled user is answered alike, lock included, so answers do not tell which e-mails are users.`,
  auth: false,
  guessable: true,
  body: SignInBody,
  responses: { 200: { description: 'Signed in', schema: ref(UserSession) }, 401: err('Wrong e-mail or password'), 403: err('Locked after too many wrong passwords') },
  async handler({ engine, body, req }) {
    return { body: sessionBody(engine, await engine.users.signIn(body.email, body.password, req.ip ?? req.socket.remoteAddress ?? '')) };
  },
});

export const redeemLink = defineRoute({
  method: 'post',
  path: '/api/session/link',
  operationId: 'redeemSignInLink',
  tags: TAGS,
  summary: 'Open a one-time sign-in link: choose a password and sign in',
  description: `${OURS}The link is made when a user is created, at first start for the owner, and by \`npm run admin -- reset-owner\`; it works once, for 24 hours.`,
  auth: false,
  guessable: true,
  body: LinkBody,
  responses: { 200: { description: 'Signed in', schema: ref(UserSession) }, 401: err('Link expired or used'), 409: err('E-mail taken') },
  async handler({ engine, body }) {
    return { body: sessionBody(engine, await engine.users.redeemLink(body.link, body.password, body.email)) };
  },
});

export const currentSession = defineRoute({
  method: 'get',
  path: '/api/session',
  operationId: 'getUserSession',
  tags: TAGS,
  summary: "The signed-in user, their role's grants and a fresh session JWT",
  description: `${OURS}Only for a user's session (403 for API credentials).`,
  responses: { 200: { description: 'Session', schema: ref(UserSession) }, 403: err('Not a user session') },
  async handler({ engine, principal }) {
    if (!principal?.user) throw fail.forbidden('not_a_user', 'This is an API credential, not a back-office user');
    if (principal.minted) throw fail.forbidden('not_a_session', 'This JWT was minted by GET /api/whoami for an integration, not a sign-in: it does not renew into a session');
    const s = await engine.users.refresh(principal.user.id, principal.exp, principal.session);
    return { body: sessionBody(engine, s) };
  },
});

export const signOutUser = defineRoute({
  method: 'delete',
  path: '/api/session',
  operationId: 'signOutUser',
  tags: TAGS,
  summary: 'Sign out: end this session',
  description: `${OURS}Every JWT of this session stops working (401): this one, its copies and those \`GET /api/session\` refreshed from it; the user's sessions on other browsers go on. Only for a user's session (403 for API credentials: disable a credential instead).`,
  responses: { 200: { description: 'Signed out', schema: Type.Object({}) }, 403: err('Not a user session') },
  async handler({ engine, principal, req }) {
    if (!principal?.user) throw fail.forbidden('not_a_user', 'This is an API credential, not a back-office user: disable the credential instead');
    if (principal.minted) throw fail.forbidden('not_a_session', 'This JWT was minted by GET /api/whoami, not a sign-in: sign out with the session it came from, which ends it too');
    const jwt = (req.headers.authorization ?? '').replace(/^bearer\s+/i, '').trim();
    await engine.users.signOut(principal.user.id, jwt, principal.exp ?? 0);
    return { body: {} };
  },
});

export const listUsers = defineRoute({
  method: 'get',
  path: '/api/users',
  operationId: 'listUsers',
  scope: 'users',
  tags: TAGS,
  summary: 'Back-office users',
  description: OURS + USERS_SCOPE,
  responses: { 200: { description: 'Users', schema: UserList } },
  handler: ({ engine }) => ({ body: { users: engine.users.list() } }),
});

export const createUser = defineRoute({
  method: 'post',
  path: '/api/users',
  operationId: 'createUser',
  scope: 'users',
  tags: TAGS,
  summary: 'Add a back-office user; answers their one-time sign-in link (shown once)',
  description: OURS + USERS_SCOPE + LASTING,
  body: UserCreate,
  responses: { 201: { description: 'Created', schema: UserCreated }, 409: err('E-mail taken') },
  async handler({ engine, body, principal }) {
    return { status: 201, body: await engine.users.create(body, principal!) };
  },
});

export const updateUser = defineRoute({
  method: 'patch',
  path: '/api/users/:id',
  operationId: 'updateUser',
  scope: 'users',
  tags: TAGS,
  summary: "Change a user's role or name, or disable them (their sessions stop at once)",
  description: `${OURS}${USERS_SCOPE}${LASTING} The last enabled owner cannot be demoted or disabled (409 last_owner).`,
  params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
  body: UserPatch,
  responses: { 200: { description: 'Updated', schema: ref(User) }, 404: err('No such user'), 409: err('Last owner') },
  async handler({ engine, params, body, principal }) {
    return { body: await engine.users.update(params.id, body, principal!) };
  },
});

export const newUserLink = defineRoute({
  method: 'post',
  path: '/api/users/:id/link',
  operationId: 'newUserSignInLink',
  scope: 'users',
  tags: TAGS,
  summary: 'A new one-time sign-in link for a user (a forgotten password); clears a lockout',
  description: OURS + USERS_SCOPE + LASTING,
  params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
  responses: { 200: { description: 'Link', schema: UserCreated }, 404: err('No such user') },
  async handler({ engine, params, principal }) {
    return { body: await engine.users.newLink(params.id, principal!) };
  },
});

export const userRoutes = [signIn, redeemLink, currentSession, signOutUser, listUsers, createUser, updateUser, newUserLink];
