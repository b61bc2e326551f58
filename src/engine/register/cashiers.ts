import type { EngineCore, Tx } from '../core';
import { fail, notFound } from '../errors';
import { getRecord, putRecord, recordsByRef, recordsOfKind } from '../records';
import type { Cashier, CashierCreate, CashierPatch, CashierWithCode, Shift } from '../../shared/schemas/register';
import { KIND, type CashierData, type RegisterState, type ShiftData } from './model';
import type { Registers } from './registers';
import { keyedHash, type InstallKeys } from '../security/install-keys';

/**
 * Every MAX_CODE_ATTEMPTS wrong codes on one lane within CODE_WINDOW_MS pause sign-in there, each
 * pause twice the one before, up to MAX_CODE_LOCK_MS. A right code does not clear the count: a
 * cashier who types their own code between guesses would otherwise guess on for ever (1,200 codes a
 * minute were tried that way). Someone trying codes at a lane gets about 40 tries an hour.
 */
export const MAX_CODE_ATTEMPTS = 5;
export const CODE_LOCK_MS = 30_000;
export const MAX_CODE_LOCK_MS = 15 * 60_000;
export const CODE_WINDOW_MS = 60 * 60_000;

/** How long the lane's `pauses`-th pause in a row lasts. */
export const codeLockMs = (pauses: number) => Math.min(CODE_LOCK_MS * 2 ** Math.max(pauses - 1, 0), MAX_CODE_LOCK_MS);

/**
 * A chosen code must be free (the code alone says who signs in), so a taken answer tells the one
 * choosing that some cashier has that code. After MAX_TAKEN_CODES such answers within
 * CODE_WINDOW_MS choosing codes pauses for CODE_WINDOW_MS (Laneway still makes them): a manager
 * cannot find a supervisor's code by trying codes on the cashier form.
 */
export const MAX_TAKEN_CODES = 3;

const CODE_RULE = /^[0-9]{4,8}$/;

const isSupervisor = (c: CashierData) => c.supervisor !== false;

export function cashierView(c: CashierData): Cashier {
  return { id: c.id, name: c.name, active: c.active, supervisor: isSupervisor(c), created_at: c.created_at, updated_at: c.updated_at, last_sign_in_at: c.last_sign_in_at };
}

export function shiftView(s: ShiftData): Shift {
  return { ...s };
}

export interface Cashiers {
  list(): Promise<Cashier[]>;
  /** A new cashier; without a code Laneway makes one, answered once (`code`). */
  create(input: CashierCreate): Promise<CashierWithCode>;
  update(id: string, patch: CashierPatch): Promise<Cashier>;
  /** A cashier signs in on a lane with their code: a new shift (replacing the lane's previous one). */
  signIn(laneid: string, code: string): Promise<Shift>;
  signOut(shiftId: string): Promise<Shift>;
  /** Inside a unit: the open shift or a clear error (closed, unknown). */
  requireShiftInTx(tx: Tx, shiftId: string): Promise<ShiftData>;
  /** Creates a cashier inside a unit (the sample cashier of a new install, a supervisor). */
  createInTx(tx: Tx, name: string, code: string, supervisor: boolean): Promise<CashierData>;
  /**
   * Who approves money given back on this shift: nobody more when its cashier is a supervisor
   * (null), else the active supervisor whose code was typed. A code that is not one counts as a
   * wrong code on the lane, as at sign-in: approvals are no way around the pause.
   */
  approverInTx(tx: Tx, shift: ShiftData, code: string | undefined): Promise<{ id: string; name: string } | null>;
  /** A fresh code for the cashier with this id or name (one match only), returned to show once. */
  resetCode(who: string): Promise<{ cashier: Cashier; code: string }>;
}

/**
 * Cashiers are people at the register, not API users: the screens hold the API credential, and a
 * cashier proves who is at the lane with a short code. The code is kept only as a keyed hash (the
 * key is in the install's key file, not the database: a 4-8 digit code would otherwise be found
 * offline at once), and is unique per install, so the code alone says who it is.
 */
export function createCashiers(core: EngineCore, registers: Registers, keys: InstallKeys): Cashiers {
  const hash = (code: string) => keyedHash(keys.current('cashier_code'), `cashier-code:${code}`, 40);
  /** Cashiers whose code hash is under any key kept (codes set before a rotation). */
  const byCode = async (reader: Tx | EngineCore, code: string) => {
    const out: CashierData[] = [];
    for (const k of keys.all('cashier_code')) out.push(...(await recordsByRef<CashierData>(reader, KIND.cashier, keyedHash(k, `cashier-code:${code}`, 40))).map((r) => r.data));
    return out;
  };
  /** Per lane: when its wrong codes of the last CODE_WINDOW_MS were typed, and until when it is paused. */
  const failures = new Map<string, { at: number[]; until: number }>();
  const refuseWhilePaused = (laneid: string) => {
    const now = core.clock.now();
    const f = failures.get(laneid);
    if (f && f.until > now) throw fail.forbidden('cashier_sign_in_locked', `Too many wrong codes on this lane. Wait ${Math.ceil((f.until - now) / 1000)} seconds, then try again.`);
  };
  /** A wrong code typed on a lane (at sign-in or to approve): every MAX_CODE_ATTEMPTS of them pause the lane's codes. */
  const wrongCode = (laneid: string) => {
    const now = core.clock.now();
    const at = [...(failures.get(laneid)?.at ?? []).filter((t) => t > now - CODE_WINDOW_MS), now];
    const pauses = at.length % MAX_CODE_ATTEMPTS === 0 ? at.length / MAX_CODE_ATTEMPTS : 0;
    failures.set(laneid, { at, until: pauses ? now + codeLockMs(pauses) : 0 });
    if (pauses) core.logger.warn({ laneid, wrong_codes: at.length, seconds: codeLockMs(pauses) / 1000 }, 'cashier codes paused on a lane after wrong codes');
  };

  const put = (tx: Tx, c: CashierData, type: string) =>
    putRecord(tx, KIND.cashier, c.id, c, { type, entity: 'pos_cashier', key: c.id, data: { name: c.name, active: c.active } }, c.code_hash);

  const putShift = (tx: Tx, s: ShiftData, type: string) =>
    putRecord(tx, KIND.shift, s.id, s, { type, entity: 'pos_shift', key: s.laneid, data: { laneid: s.laneid, cashier: s.cashier.name, open: s.closed_at === null } }, s.laneid);

  /** When a chosen code was answered taken, within the last CODE_WINDOW_MS. */
  let takenAt: number[] = [];
  /** Before a code someone chose is looked up (a code Laneway makes is never taken, never paused). */
  const refuseWhileChoosingPaused = () => {
    const now = core.clock.now();
    takenAt = takenAt.filter((t) => t > now - CODE_WINDOW_MS);
    if (takenAt.length < MAX_TAKEN_CODES) return;
    const minutes = Math.ceil((takenAt[0]! + CODE_WINDOW_MS - now) / 60_000);
    throw fail.conflict('cashier_code_choice_paused', `${MAX_TAKEN_CODES} chosen codes were already taken within the hour, so choosing a code is paused for ${minutes} more minutes: leave the code empty and Laneway makes one`);
  };
  const codeFree = async (tx: Tx, code: string, self?: string) => {
    const taken = (await byCode(tx, code)).some((c) => c.id !== self);
    if (!taken) return;
    takenAt.push(core.clock.now());
    if (takenAt.length >= MAX_TAKEN_CODES) core.logger.warn({ taken_codes: takenAt.length }, 'choosing cashier codes paused after codes already taken');
    throw fail.conflict('cashier_code_taken', 'That code is already used by another cashier: choose a different one');
  };

  const closeShift = async (tx: Tx, shift: ShiftData, reason: NonNullable<ShiftData['closed_reason']>, state?: RegisterState) => {
    const closed: ShiftData = { ...shift, closed_at: tx.at, closed_reason: reason };
    await putShift(tx, closed, 'pos_shift.closed');
    const reg = state ?? (await registers.getInTx(tx, shift.laneid));
    if (reg.shift === shift.id) await registers.putInTx(tx, { ...reg, shift: null });
    return closed;
  };

  /**
   * A code Laneway makes (a new cashier without one, a reset): six digits, harder to guess than
   * the shortest a person may choose, and free on this install.
   */
  const madeCodeInTx = async (tx: Tx) => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const code = String(Number.parseInt(core.ids.secret(8), 16) % 1_000_000).padStart(6, '0');
      if ((await byCode(tx, code)).length === 0) return code;
    }
    throw fail.conflict('cashier_code_taken', 'No free six-digit code was found: try again');
  };

  const createInTx = async (tx: Tx, name: string, code: string, supervisor: boolean) => {
    if (!CODE_RULE.test(code)) throw fail.invalid('invalid_cashier_code', 'A cashier code is 4 to 8 digits', [{ field: 'code', message: '4 to 8 digits' }]);
    await codeFree(tx, code);
    const c: CashierData = { id: core.ids.token(), name: name.trim(), code_hash: hash(code), active: true, supervisor, created_at: tx.at, updated_at: tx.at, last_sign_in_at: null };
    await put(tx, c, 'pos_cashier.created');
    return c;
  };

  const updateInTx = async (tx: Tx, id: string, patch: CashierPatch) => {
    const existing = (await getRecord<CashierData>(tx, KIND.cashier, id))?.data;
    if (!existing) throw notFound('cashier_not_found', `No cashier ${id}`);
    if (patch.code !== undefined) {
      refuseWhileChoosingPaused();
      await codeFree(tx, patch.code, id);
    }
    const next: CashierData = {
      ...existing,
      ...(patch.name !== undefined ? { name: patch.name.trim() } : {}),
      ...(patch.active !== undefined ? { active: patch.active } : {}),
      ...(patch.supervisor !== undefined ? { supervisor: patch.supervisor } : {}),
      ...(patch.code !== undefined ? { code_hash: hash(patch.code) } : {}),
      updated_at: tx.at,
    };
    await put(tx, next, 'pos_cashier.updated');
    if (existing.active && !next.active) {
      // A deactivated cashier's open shifts (at most one per lane) end now.
      for (const r of await recordsOfKind<RegisterState>(tx, KIND.register)) {
        const open = r.data.shift ? (await getRecord<ShiftData>(tx, KIND.shift, r.data.shift))?.data : undefined;
        if (open && open.cashier.id === id && open.closed_at === null) await closeShift(tx, open, 'deactivated', r.data);
      }
    }
    return cashierView(next);
  };

  return {
    async list() {
      const all = (await recordsOfKind<CashierData>(core, KIND.cashier)).map((r) => cashierView(r.data));
      return all.sort((a, b) => a.name.localeCompare(b.name));
    },

    create(input) {
      return core.mutate(async (tx) => {
        const supervisor = input.supervisor ?? false;
        if (input.code !== undefined) {
          refuseWhileChoosingPaused();
          return cashierView(await createInTx(tx, input.name, input.code, supervisor));
        }
        const code = await madeCodeInTx(tx);
        return { ...cashierView(await createInTx(tx, input.name, code, supervisor)), code };
      });
    },

    update(id, patch) {
      if (patch.code !== undefined && !CODE_RULE.test(patch.code)) throw fail.invalid('invalid_cashier_code', 'A cashier code is 4 to 8 digits', [{ field: 'code', message: '4 to 8 digits' }]);
      return core.mutate((tx) => updateInTx(tx, id, patch));
    },

    async signIn(laneid, code) {
      refuseWhilePaused(laneid);
      const lane = await registers.lane(laneid);
      if (!lane) throw notFound('lane_not_found', `No lane ${laneid}: add it under /api/lanes first`);
      const found = CODE_RULE.test(code) ? (await byCode(core, code))[0] : undefined;
      if (!found || !found.active) {
        wrongCode(laneid);
        throw fail.forbidden('cashier_code_invalid', found ? 'This cashier is not active. Ask a manager.' : 'That code does not match a cashier. Check it and try again.');
      }
      return core.mutate(async (tx) => {
        const state = await registers.getInTx(tx, laneid);
        if (state.shift) {
          const previous = (await getRecord<ShiftData>(tx, KIND.shift, state.shift))?.data;
          if (previous && previous.closed_at === null) await closeShift(tx, previous, 'replaced', state);
        }
        const shift: ShiftData = { id: core.ids.token(), laneid, cashier: { id: found.id, name: found.name, supervisor: isSupervisor(found) }, opened_at: tx.at, closed_at: null, closed_reason: null };
        await putShift(tx, shift, 'pos_shift.opened');
        await registers.putInTx(tx, { ...(await registers.getInTx(tx, laneid)), shift: shift.id });
        await put(tx, { ...found, last_sign_in_at: tx.at }, 'pos_cashier.signed_in');
        return shiftView(shift);
      });
    },

    signOut(shiftId) {
      return core.mutate(async (tx) => {
        const shift = (await getRecord<ShiftData>(tx, KIND.shift, shiftId))?.data;
        if (!shift) throw notFound('shift_not_found', 'No such shift');
        if (shift.closed_at) return shiftView(shift);
        return shiftView(await closeShift(tx, shift, 'signed_out'));
      });
    },

    async requireShiftInTx(tx, shiftId) {
      const shift = (await getRecord<ShiftData>(tx, KIND.shift, shiftId))?.data;
      if (!shift) throw notFound('shift_not_found', 'This cashier session is not known. Sign in with your cashier code.', 'forbidden');
      if (shift.closed_at) {
        const why = shift.closed_reason === 'replaced' ? 'another cashier signed in on this lane' : shift.closed_reason === 'deactivated' ? 'the cashier was deactivated' : 'the cashier signed out';
        throw fail.forbidden('shift_closed', `This cashier session has ended (${why}). Sign in with your cashier code.`);
      }
      return shift;
    },

    createInTx,

    async approverInTx(tx, shift, code) {
      const own = (await getRecord<CashierData>(tx, KIND.cashier, shift.cashier.id))?.data;
      if (own?.active && isSupervisor(own)) return null;
      if (!code) throw fail.forbidden('supervisor_required', 'Money given back needs a supervisor: ask one to enter their code.');
      refuseWhilePaused(shift.laneid);
      const found = CODE_RULE.test(code) ? (await byCode(tx, code))[0] : undefined;
      if (!found || !found.active || !isSupervisor(found)) {
        wrongCode(shift.laneid);
        throw fail.forbidden('supervisor_code_invalid', 'That code is not an active supervisor\'s. Ask a supervisor to enter theirs.');
      }
      return { id: found.id, name: found.name };
    },

    async resetCode(who) {
      const all = (await recordsOfKind<CashierData>(core, KIND.cashier)).map((r) => r.data);
      const wanted = who.trim().toLowerCase();
      const byId = all.filter((c) => c.id === who.trim());
      const matches = byId.length > 0 ? byId : all.filter((c) => c.name.toLowerCase() === wanted);
      if (matches.length === 0) throw notFound('cashier_not_found', `No cashier ${who}`);
      if (matches.length > 1) throw fail.conflict('cashier_ambiguous', `${matches.length} cashiers are named ${who}: give the id instead`);
      const target = matches[0]!;
      return core.mutate(async (tx) => {
        const code = await madeCodeInTx(tx);
        return { cashier: await updateInTx(tx, target.id, { code }), code };
      });
    },
  };
}
