import type { EngineCore, Tx } from '../core';
import { fail } from '../errors';
import { getRecord, putRecord } from '../records';
import type { RegisterSettings, SettingsPatch } from '../../shared/schemas/register';
import { taxRateFromPercent, taxRateToPercent } from './money';
import { KIND, type SettingsData } from './model';
import { withMarks, type TaxMark } from './taxes';
import { DEFAULT_OFFLINE_FLOOR } from '../sync/offline-floor';

export const DEFAULT_SETTINGS: SettingsData = {
  tenders: { card: true, cash: true, cheque: true, gift_card: true, other: true },
  other_tenders: ['Voucher', 'Bank transfer'],
  card_manual_entry: true,
  default_tax_rate: 13_000,
  receipt_footer: ['Thank you for shopping with us!', 'Returns within 30 days with this receipt.'],
  tax_marks: [],
  offline_floor: { ...DEFAULT_OFFLINE_FLOOR },
  updated_at: null,
};

export function settingsView(s: SettingsData): RegisterSettings {
  return {
    ...s,
    tenders: { ...s.tenders },
    other_tenders: [...s.other_tenders],
    receipt_footer: [...s.receipt_footer],
    default_tax_rate: taxRateToPercent(s.default_tax_rate),
    tax_marks: (s.tax_marks ?? []).map((m) => ({ tax_rate: taxRateToPercent(m.tax_rate), mark: m.mark })),
    offline_floor: { ...DEFAULT_OFFLINE_FLOOR, ...s.offline_floor },
  };
}

export interface Settings {
  current(): SettingsData;
  update(patch: SettingsPatch): Promise<RegisterSettings>;
  /** The shop's fixed tax letters (see taxes.ts). */
  marks(): TaxMark[];
  /** Gives a letter to each of these rates that has none yet, in this unit of work. */
  ensureMarksInTx(tx: Tx, rates: Iterable<number>): Promise<void>;
  /** The same in a unit of work of its own (nothing is written when every rate has its letter). */
  ensureMarks(rates: Iterable<number>): Promise<void>;
}

/** The register's settings (one record), kept in memory: every sale view reads them. */
export async function openSettings(core: EngineCore): Promise<Settings> {
  let current: SettingsData = (await getRecord<SettingsData>(core, KIND.settings, 'register'))?.data ?? DEFAULT_SETTINGS;
  // A lane's settings also arrive by replication from its hub (engine/sync).
  core.bus.subscribe((e) => {
    if (e.type !== 'pos_settings.synced') return;
    void getRecord<SettingsData>(core, KIND.settings, 'register').then((r) => {
      if (r) current = r.data;
    });
  });
  const ensureMarksInTx = async (tx: Tx, rates: Iterable<number>) => {
    const wanted = [...rates];
    if (!withMarks(current.tax_marks ?? [], wanted)) return;
    const stored = (await getRecord<SettingsData>(tx, KIND.settings, 'register'))?.data ?? current;
    const marks = withMarks(stored.tax_marks ?? [], wanted);
    if (!marks) return;
    const next: SettingsData = { ...stored, tax_marks: marks, updated_at: tx.at };
    await putRecord(tx, KIND.settings, 'register', next, { type: 'pos_settings.updated', entity: 'pos_settings', key: 'register' });
    tx.afterCommit(() => {
      current = { ...current, tax_marks: marks };
    });
  };
  return {
    current: () => current,
    marks: () => current.tax_marks ?? [],
    ensureMarksInTx,
    async ensureMarks(rates) {
      const wanted = [...rates];
      if (withMarks(current.tax_marks ?? [], wanted)) await core.mutate((tx) => ensureMarksInTx(tx, wanted));
    },
    async update(patch) {
      const rate = patch.default_tax_rate === undefined ? undefined : taxRateFromPercent(patch.default_tax_rate, 'default_tax_rate');
      const names = patch.other_tenders?.map((n) => n.trim());
      if (names && new Set(names.map((n) => n.toLowerCase())).size !== names.length) {
        throw fail.invalid('duplicate_tender', 'other_tenders has the same name twice', [{ field: 'other_tenders', message: 'names must differ' }]);
      }
      current = await core.mutate(async (tx) => {
        const stored = (await getRecord<SettingsData>(tx, KIND.settings, 'register'))?.data ?? current;
        const next: SettingsData = {
          ...stored,
          tenders: { ...stored.tenders, ...(patch.tenders ?? {}) },
          ...(names ? { other_tenders: names } : {}),
          ...(patch.card_manual_entry !== undefined ? { card_manual_entry: patch.card_manual_entry } : {}),
          ...(rate !== undefined ? { default_tax_rate: rate } : {}),
          ...(patch.receipt_footer ? { receipt_footer: patch.receipt_footer } : {}),
          ...(patch.offline_floor ? { offline_floor: { ...DEFAULT_OFFLINE_FLOOR, ...stored.offline_floor, ...patch.offline_floor } } : {}),
          updated_at: tx.at,
        };
        await putRecord(tx, KIND.settings, 'register', next, { type: 'pos_settings.updated', entity: 'pos_settings', key: 'register' });
        return next;
      });
      return settingsView(current);
    },
  };
}
