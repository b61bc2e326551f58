import { useState, type FormEvent } from 'react';
import { boCall } from '../api/backoffice';
import { useUser } from '../state/user';
import { Notice, ReadOnlyNote, useLoad, useUnsavedGuard } from './common';
import type { AccountPatch } from '../../../shared/schemas/account';

type Flag = keyof NonNullable<AccountPatch['capabilities']>;

/** What each flag turns on, in the words a shop uses; the engine refuses what a flag turns off. */
const FLAGS: Array<[Flag, string]> = [
  ['orders', 'Orders'],
  ['order_transactions', 'Order transactions (card and bank payments)'],
  ['wallets', 'Wallets (saved payment methods)'],
  ['gift_cards', 'Gift cards'],
  ['card_present_emv', 'Card-present EMV lanes'],
  ['settlement_reporting', 'Settlement reporting'],
  ['reference_data', 'Reference data (BIN lookup, response codes)'],
  ['onboarding', 'Merchant onboarding'],
  ['autopay', 'Autopay'],
  ['divisions_required', 'Every invoice names a division'],
  ['payment_plans', 'Payment plans'],
  ['balance_sync', 'Balance sync from the ERP'],
  ['discounts', 'Discounts'],
  ['line_item_short_pay', 'Short pay by line item'],
  ['restricted_grouping', 'Restricted grouping'],
  ['dynamic_division_creation', 'Divisions made when first named'],
];

/** The account's capability flags: shown to every role, changed by those with the settings grant. */
export function Capabilities({ editable }: { editable: boolean }) {
  const creds = useUser((s) => s.creds);
  const { data, reload } = useLoad((c) => boCall(c, 'account', {}), []);
  const [changed, setChanged] = useState<Partial<Record<Flag, boolean>>>({});
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  useUnsavedGuard(!!data && Object.entries(changed).some(([k, v]) => v !== data.capabilities[k as Flag]));
  if (!data) return null;
  const on = (k: Flag) => changed[k] ?? data.capabilities[k];
  const dirty = Object.keys(changed).length > 0;
  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!creds || !dirty) return;
    const off = FLAGS.filter(([k]) => changed[k] === false).map(([, label]) => label);
    if (off.length > 0 && !window.confirm(`Turn off ${off.join(', ')}? The API refuses those operations from now on.`)) return;
    try {
      await boCall(creds, 'updateAccount', { body: { capabilities: changed } });
      setChanged({});
      setMessage({ ok: true, text: 'Saved.' });
      reload();
    } catch (err) {
      setMessage({ ok: false, text: (err as Error).message });
    }
  };
  return (
    <form className="card bo-form" onSubmit={(e) => void save(e)} aria-label="Capabilities">
      <h2>Capabilities</h2>
      {message?.ok ? <p role="status" className="notice ok">{message.text}</p> : <Notice error={message?.text} />}
      {!editable && <ReadOnlyNote />}
      <fieldset className="bo-kinds" disabled={!editable}>
        <legend className="muted small">What this account does</legend>
        {FLAGS.map(([k, label]) => (
          <label key={k} className="bo-check">
            <input type="checkbox" name={k} checked={on(k)} onChange={(e) => setChanged((s) => ({ ...s, [k]: e.target.checked }))} /> {label}
          </label>
        ))}
      </fieldset>
      {editable && (
        <div className="bo-actions">
          <button type="button" disabled={!dirty} onClick={() => setChanged({})}>Undo</button>
          <button type="submit" className="primary" disabled={!dirty}>Save capabilities</button>
        </div>
      )}
    </form>
  );
}
