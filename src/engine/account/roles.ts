import type { Scope } from './scopes';

/**
 * Back-office roles, as scopes (./scopes.ts): one permission system for API credentials and
 * people. The owner holds what the API key holds; the other roles hold grants instead of `api`,
 * and each operation names the grants that admit it (src/server/role-grants.ts).
 *
 * - owner: everything, including users and API credentials.
 * - manager: money moves and refunds (`money`), settings (`settings`), editing records (`manage`),
 *   plus everything a clerk and a cashier may do.
 * - clerk: read (`read`), record payments and send reminders and invitations (`collect`).
 * - cashier: the register only (`register`).
 */
export const ROLES = ['owner', 'manager', 'clerk', 'cashier'] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  owner: ['api', 'credentials', 'users', 'read', 'collect', 'manage', 'money', 'settings', 'register'],
  manager: ['read', 'collect', 'manage', 'money', 'settings', 'register'],
  clerk: ['read', 'collect'],
  cashier: ['register'],
};

export const isRole = (r: string): r is Role => (ROLES as readonly string[]).includes(r);

/** Whether `role` may do an operation admitted by any of `grants` (the engine's one answer, which the screens mirror). */
export function roleAllows(role: Role, grants: readonly Scope[]): boolean {
  const held = ROLE_SCOPES[role];
  return held.includes('api') || grants.some((g) => held.includes(g));
}
