import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { EngineCore, Tx } from '../core';
import type { Account } from '../account';
import { fail } from '../errors';
import { getRecord, putRecord, recordsOfKind } from '../records';
import { randomString } from '../ids';
import type { InstallKeys } from '../security/install-keys';

/**
 * Pairing a lane with its hub. The hub shows a one-time code (valid PAIRING_MINUTES, stored only
 * as a hash); the lane sends it once and gets back a credential of the `lane` kind (`sync` scope
 * only, so a lane's key cannot read the back office) and the hub's cashier-code key (the hub's
 * cashiers sign in on the lane with the codes the hub hashed). The hub lists its lanes and revokes
 * one by disabling its credential: its next pull or push is refused.
 *
 * Records: `sync_pairing` (key the code's hash), `sync_lane` (hub side, key laneid) and
 * `sync_hub` (lane side, key `hub`: the hub's address and the lane credential, its key sealed
 * under a key derived from the install's vault key, which lives in the key file, not the store).
 */
export const PAIRING_MINUTES = 15;
const CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';
const LANEID_RULE = /^[A-Za-z0-9_-]{1,20}$/;

interface PairingData {
  laneid: string;
  name: string;
  expires_at: string;
  used_at: string | null;
}

export interface PairedLane {
  laneid: string;
  name: string;
  credential: string;
  paired_at: string;
  revoked_at: string | null;
}

export interface HubLink {
  url: string;
  laneid: string;
  token: string;
  key_sealed: string;
  key_id: string;
  paired_at: string;
}

export interface PairingGrant {
  laneid: string;
  token: string;
  key: string;
  cashier_code_key: string;
  hub_account: string;
}

const codeHash = (code: string) => createHash('sha256').update(`laneway-pairing:${normalizeCode(code)}`).digest('hex');
export const normalizeCode = (code: string) => code.toUpperCase().replace(/[^0-9A-Z]/g, '');

async function refuseIfPaired(tx: Tx, laneid: string): Promise<void> {
  const lane = await getRecord<PairedLane>(tx, 'sync_lane', laneid);
  if (lane && !lane.data.revoked_at) throw fail.conflict('lane_paired', `Lane ${laneid} is paired already: revoke it first to pair another machine as that lane`);
}

export function createPairing(core: EngineCore, account: Account, keys: InstallKeys) {
  const sealKey = (id: string) => {
    const k = keys.find('vault', id);
    if (!k) throw fail.unavailable('sync_key_missing', 'The key that sealed the hub credential is gone: pair this lane again');
    return Buffer.from(hkdfSync('sha256', Buffer.from(k.secret, 'hex'), Buffer.alloc(0), 'laneway sync hub credential', 32));
  };
  const seal = (plain: string) => {
    const id = keys.current('vault').id;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', sealKey(id), iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return { key_id: id, key_sealed: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64') };
  };
  const unseal = (link: HubLink) => {
    const raw = Buffer.from(link.key_sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', sealKey(link.key_id), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  };

  return {
    /** Hub: a new one-time code for the lane `laneid`. */
    async createCode(input: { laneid: string; name?: string }): Promise<{ code: string; laneid: string; expires_at: string }> {
      if (!LANEID_RULE.test(input.laneid)) throw fail.invalid('invalid_laneid', 'laneid is 1 to 20 letters, digits, - or _');
      const chars = randomString(CODE_ALPHABET, 10);
      const code = `${chars.slice(0, 5)}-${chars.slice(5)}`;
      return core.mutate(async (tx) => {
        await refuseIfPaired(tx, input.laneid);
        const expires_at = new Date(tx.now + PAIRING_MINUTES * 60_000).toISOString();
        const data: PairingData = { laneid: input.laneid, name: input.name ?? `Lane ${input.laneid}`, expires_at, used_at: null };
        await putRecord(tx, 'sync_pairing', codeHash(code), data, { type: 'sync_pairing.created', entity: 'sync_pairing', key: input.laneid });
        return { code, laneid: input.laneid, expires_at };
      });
    },

    /** Hub: exchanges a code for the lane's credential (once). */
    async redeem(code: string, cashierCodeKey: string): Promise<PairingGrant> {
      const key = codeHash(code);
      const claimed = await core.mutate(async (tx) => {
        const pairing = await getRecord<PairingData>(tx, 'sync_pairing', key);
        if (!pairing || pairing.data.used_at || Date.parse(pairing.data.expires_at) <= tx.now) {
          throw fail.forbidden('pairing_code_invalid', 'That pairing code is unknown, used or expired: show a new one on the hub');
        }
        // Two codes shown for one lane: the second machine would take the lane's records over, and
        // the first would keep a credential the hub no longer lists (nobody could revoke it).
        await refuseIfPaired(tx, pairing.data.laneid);
        await putRecord(tx, 'sync_pairing', key, { ...pairing.data, used_at: tx.at }, { type: 'sync_pairing.used', entity: 'sync_pairing', key: pairing.data.laneid });
        return pairing.data;
      });
      const made = await account.credentials.create({ name: `Lane ${claimed.laneid} (sync)`, kind: 'lane' });
      await core.mutate(async (tx) => {
        // Another code of the same lane redeemed meanwhile (the credential is made between units).
        await refuseIfPaired(tx, claimed.laneid);
        const lane: PairedLane = { laneid: claimed.laneid, name: claimed.name, credential: made.token, paired_at: tx.at, revoked_at: null };
        await putRecord(tx, 'sync_lane', claimed.laneid, lane, { type: 'sync_lane.paired', entity: 'sync_lane', key: claimed.laneid }, made.token);
      }).catch(async (err: unknown) => {
        await account.credentials.disable(made.token);
        throw err;
      });
      return { laneid: claimed.laneid, token: made.token, key: made.key, cashier_code_key: cashierCodeKey, hub_account: account.profile().token };
    },

    async lanes(): Promise<PairedLane[]> {
      return (await recordsOfKind<PairedLane>(core, 'sync_lane')).map((r) => r.data);
    },

    /** Hub: the paired lane a credential stands for (refused when revoked). */
    async laneOfCredential(token: string): Promise<PairedLane> {
      const lane = (await recordsOfKind<PairedLane>(core, 'sync_lane')).map((r) => r.data).find((l) => l.credential === token && !l.revoked_at);
      if (!lane) throw fail.forbidden('lane_not_paired', 'This credential is not a paired lane of this hub');
      return lane;
    },

    async revoke(laneid: string): Promise<PairedLane> {
      const lane = (await getRecord<PairedLane>(core, 'sync_lane', laneid))?.data;
      if (!lane) throw fail.notFound('paired_lane_not_found', `No paired lane ${laneid}`);
      if (lane.revoked_at) return lane;
      await account.credentials.disable(lane.credential);
      return core.mutate(async (tx) => {
        const next = { ...lane, revoked_at: tx.at };
        await putRecord(tx, 'sync_lane', laneid, next, { type: 'sync_lane.revoked', entity: 'sync_lane', key: laneid }, lane.credential);
        return next;
      });
    },

    /** Lane: remembers its hub (the key sealed). */
    async saveHub(url: string, grant: PairingGrant): Promise<HubLink> {
      return core.mutate(async (tx) => {
        const link: HubLink = { url, laneid: grant.laneid, token: grant.token, ...seal(grant.key), paired_at: tx.at };
        await putRecord(tx, 'sync_hub', 'hub', link, { type: 'sync_hub.paired', entity: 'sync_hub', key: grant.laneid });
        return link;
      });
    },

    async hub(): Promise<(HubLink & { key: string }) | undefined> {
      const link = (await getRecord<HubLink>(core, 'sync_hub', 'hub'))?.data;
      return link ? { ...link, key: unseal(link) } : undefined;
    },
  };
}

export type Pairing = ReturnType<typeof createPairing>;
