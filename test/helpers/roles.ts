import { authorize, type Principal } from '../../src/engine/account';
import { ROLE_SCOPES, type Role } from '../../src/engine/account/roles';
import { grantsOf, scopeOf } from '../../src/server/role-grants';
import type { AnyRoute } from '../../src/server/route';

/** Whether a user of `role` passes the one check the server runs before an operation (scope and grants). */
export function admits(role: Role, route: Pick<AnyRoute, 'method' | 'path' | 'scope'>): boolean {
  const principal: Principal = { credential: 'user:X', via: 'jwt', scopes: ROLE_SCOPES[role], user: { id: 'X', email: 'x@example.com', name: 'X', role } };
  try {
    authorize(principal, scopeOf(route), grantsOf(route));
    return true;
  } catch {
    return false;
  }
}
