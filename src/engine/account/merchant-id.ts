import { createHash } from 'node:crypto';
import type { AccountProfile } from './profile';

/**
 * The sandbox's merchant id (MID) of an account: twelve digits fixed by its token. GET /api/whoami
 * shows it on the account's processors; the settlement reports carry it on every batch.
 */
export function merchantId(profile: Pick<AccountProfile, 'token'>): string {
  const digits = BigInt(`0x${createHash('sha256').update(`mid:${profile.token}`).digest('hex').slice(0, 15)}`).toString().padStart(12, '0');
  return digits.slice(-12);
}
