import { Type, type Static } from '@sinclair/typebox';
import { component } from './components';

/** Back-office users and their sessions (Laneway's own operations, not in the reference API). */
export const RoleName = Type.Union([Type.Literal('owner'), Type.Literal('manager'), Type.Literal('clerk'), Type.Literal('cashier')], {
  description: 'owner: everything; manager: money moves, refunds, settings, editing records; clerk: read, record payments, send reminders; cashier: the register only',
});

export const User = component(
  'BackOfficeUser',
  Type.Object({
    id: Type.String(),
    email: Type.String(),
    name: Type.String(),
    role: RoleName,
    enabled: Type.Boolean(),
    has_password: Type.Boolean({ description: 'False until the user opens their sign-in link and chooses a password' }),
    locked_until: Type.Union([Type.String(), Type.Null()], { description: 'Set after too many wrong passwords in a row' }),
    created_at: Type.String(),
    updated_at: Type.String(),
    last_sign_in_at: Type.Union([Type.String(), Type.Null()]),
  }),
);
export type User = Static<typeof User>;

export const UserSession = component(
  'BackOfficeSession',
  Type.Object({
    jwt: Type.String({ description: 'Bearer token for this user, a day long; the role is read again on every request' }),
    exp: Type.Integer({ description: 'Expiry, seconds since the epoch' }),
    user: User,
    scopes: Type.Array(Type.String(), { description: "The role's grants: what this user may do (the screens hide the rest)" }),
    account_name: Type.String(),
  }),
);
export type UserSession = Static<typeof UserSession>;

export const SignInBody = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 200 }),
  password: Type.String({ minLength: 1, maxLength: 200 }),
});

export const LinkBody = Type.Object({
  link: Type.String({ minLength: 10, maxLength: 100, description: 'The secret of a one-time sign-in link (after #link= in the link)' }),
  password: Type.String({ minLength: 1, maxLength: 200 }),
  email: Type.Optional(Type.String({ minLength: 3, maxLength: 200, description: 'A new e-mail for this user (the owner made at first start has a placeholder)' })),
});

export const UserCreate = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 200 }),
  name: Type.Optional(Type.String({ maxLength: 120 })),
  role: RoleName,
});

export const UserPatch = Type.Object({
  role: Type.Optional(RoleName),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
  enabled: Type.Optional(Type.Boolean()),
});

export const UserCreated = Type.Object({
  user: User,
  link: Type.String({ description: 'Secret of the one-time sign-in link (shown once): open /app/welcome#link=<this>' }),
});

export const UserList = Type.Object({ users: Type.Array(User) });
