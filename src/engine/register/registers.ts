import type { EngineCore, Tx } from '../core';
import { isEngineError } from '../errors';
import type { Lanes, LaneView } from '../lanes';
import { getRecord, putRecord, recordsOfKind } from '../records';
import { KIND, periodRef, type DrawerOpening, type JournalEntry, type RegisterState } from './model';

/**
 * A register is a lane's till: its period (everything since its last Z report), its receipt
 * sequence, its open sale and the shift signed in on it. Money movements are written to the
 * lane's journal for the current period as immutable entries, in the same unit of work as the
 * change they record; X and Z reports add them up.
 */
export interface Registers {
  lane(laneid: string): Promise<LaneView | undefined>;
  getInTx(tx: Tx | EngineCore, laneid: string): Promise<RegisterState>;
  putInTx(tx: Tx, state: RegisterState): Promise<void>;
  all(): Promise<RegisterState[]>;
  /** `key`: the entry's own key when it has one across installs (a refund outside the register: journalOutsideInTx); absent, a new one. */
  journalInTx(tx: Tx, laneid: string, entry: JournalEntry, key?: string): Promise<void>;
  /** The cash drawer opens (cash tenders and cash refunds only): a record and a `drawer.opened` event. */
  openDrawerInTx(tx: Tx, opening: Omit<DrawerOpening, 'id' | 'at'>): Promise<DrawerOpening>;
}

export function createRegisters(core: EngineCore, lanes: Lanes): Registers {
  const fresh = (laneid: string, at: string): RegisterState => ({ laneid, period: 1, period_started_at: at, sale_seq: 0, open_sale: null, shift: null, last_z: null });

  const registers: Registers = {
    async lane(laneid) {
      try {
        return await lanes.get(laneid);
      } catch (err) {
        if (isEngineError(err) && err.code === 'lane_not_found') return undefined;
        throw err;
      }
    },

    async getInTx(tx, laneid) {
      const at = 'at' in tx ? tx.at : new Date(core.clock.now()).toISOString();
      return (await getRecord<RegisterState>(tx, KIND.register, laneid))?.data ?? fresh(laneid, at);
    },

    async putInTx(tx, state) {
      await putRecord(tx, KIND.register, state.laneid, state, {
        type: 'pos_register.updated',
        entity: 'pos_register',
        key: state.laneid,
        data: { period: state.period, open_sale: state.open_sale, signed_in: state.shift !== null },
      });
    },

    async all() {
      return (await recordsOfKind<RegisterState>(core, KIND.register)).map((r) => r.data);
    },

    async journalInTx(tx, laneid, entry, key) {
      const state = await registers.getInTx(tx, laneid);
      if (!(await getRecord(tx, KIND.register, laneid))) await registers.putInTx(tx, state);
      const id = key ?? core.ids.token();
      await putRecord(tx, KIND.journal, id, entry, { type: `pos_journal.${entry.type}`, entity: 'pos_journal', key: laneid, data: { period: state.period } }, periodRef(laneid, state.period));
    },

    async openDrawerInTx(tx, opening) {
      const full: DrawerOpening = { ...opening, id: core.ids.token(), at: tx.at };
      await putRecord(tx, KIND.drawer, full.id, full, {
        type: 'drawer.opened',
        entity: 'drawer',
        key: full.laneid,
        data: { laneid: full.laneid, reason: full.reason, sale: full.sale, amount_cents: full.amount_cents, cashier: full.cashier.name },
      }, full.laneid);
      await registers.journalInTx(tx, full.laneid, { type: 'drawer', reason: full.reason, cashier: full.cashier, at: tx.at });
      return full;
    },
  };
  return registers;
}
