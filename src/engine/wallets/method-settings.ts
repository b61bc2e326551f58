import type { Tx } from '../core';
import type { MethodSettings } from '../../shared/schemas/gateway';
import { FUNDS, putFund, type FundData, type FundDoc } from './records';

/**
 * Inside a unit of work: sets the settings `settings` gives a method (those it leaves out are kept),
 * the one rule for PATCH and for a card or account being added (wallet create, add methods).
 * A wallet has at most one default, so a method made default takes it from the wallet's others,
 * which are stored here; `f` itself is left for the caller to store. Answers whether `f` changed.
 */
export async function applyMethodSettings(tx: Tx, f: FundData, settings: MethodSettings): Promise<boolean> {
  let changed = false;
  const set = <K extends 'nickname' | 'locked' | 'is_default' | 'is_single_use'>(key: K, value: FundData[K] | undefined) => {
    if (value === undefined || f[key] === value) return;
    f[key] = value;
    changed = true;
  };
  set('nickname', settings.nickname === undefined ? undefined : (settings.nickname ?? null));
  set('locked', settings.locked);
  set('is_default', settings.is_default);
  set('is_single_use', settings.is_single_use);
  if (f.is_default && settings.is_default === true) {
    for (const other of await tx.find<FundDoc>(FUNDS, { selector: { wallet: f.wallet } })) {
      if (other.data.token !== f.token && other.data.is_default) await putFund(tx, { ...other.data, is_default: false, updated_at: tx.at }, false);
    }
  }
  return changed;
}
