import type { Request } from 'express';
import type { Engine } from '../engine';
import type { Principal } from '../engine/account';
import { fail } from '../engine/errors';
import { UNAUTHORIZED_TEXT } from './errors';

/**
 * HTTP Basic (API token as user name, API key as password) or Bearer JWT. Anything else, or a
 * disabled credential, is 401.
 */
export async function authenticate(engine: Engine, req: Request): Promise<Principal> {
  const header = req.headers.authorization;
  if (!header) throw fail.unauthorized('unauthorized', UNAUTHORIZED_TEXT);
  const space = header.indexOf(' ');
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1).trim();
  let principal: Principal | null = null;
  if (scheme === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) principal = engine.account.credentials.verifyBasic(decoded.slice(0, colon), decoded.slice(colon + 1));
  } else if (scheme === 'bearer' && value) {
    principal = (await engine.account.credentials.verifyJwt(value)) ?? (await engine.users.verifyJwt(value));
  }
  if (!principal) throw fail.unauthorized('unauthorized', UNAUTHORIZED_TEXT);
  return principal;
}
