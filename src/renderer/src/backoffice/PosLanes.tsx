import { useState, type FormEvent } from 'react';
import { boCall, type BoAnswer } from '../api/backoffice';
import { link, useRoute } from '../state/route';
import { can, useUser } from '../state/user';
import { activityText, statusText, time } from '../format';
import { Confirm, Field, Money, Notice, Title, fieldErrors, useLoad, useUnsavedGuard } from './common';

type Lane = BoAnswer<'lanes'>['lanes'][number];
type Command = 'DeviceSetup' | 'DeviceStatus';

/** Lanes: add, edit, remove, their live status (re-read on every event), DeviceSetup and DeviceStatus. */
export function LanesPanel() {
  const { creds, session } = useUser();
  const edit = can(session, 'settings');
  const command = can(session, 'register');
  const { data, error, reload } = useLoad((c) => boCall(c, 'lanes', {}), []);
  const [form, setForm] = useState({ laneid: '', name: '', port_path: '' });
  const [editing, setEditing] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [removing, setRemoving] = useState<Lane | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const set = (k: keyof typeof form) => (v: string) => setForm((f) => ({ ...f, [k]: v }));
  const editedLane = editing ? data?.lanes.find((l) => l.laneid === editing) : undefined;
  const startedWith = editedLane ? { laneid: editedLane.laneid, name: editedLane.name, port_path: editedLane.port_path } : { laneid: '', name: '', port_path: '' };
  useUnsavedGuard(form.laneid !== startedWith.laneid || form.name !== startedWith.name || form.port_path !== startedWith.port_path);
  const reset = () => (setForm({ laneid: '', name: '', port_path: '' }), setEditing(null), setErrors({}));
  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!creds) return;
    try {
      const name = form.name.trim();
      if (editing) await boCall(creds, 'updateLane', { params: { laneid: editing }, body: { port_path: form.port_path.trim(), ...(name ? { name } : {}) } });
      else await boCall(creds, 'createLane', { body: { laneid: form.laneid.trim(), port_path: form.port_path.trim(), ...(name ? { name } : {}) } });
      setMessage({ ok: true, text: `Lane ${editing ?? form.laneid.trim()} saved.` });
      reset();
      reload();
    } catch (err) {
      const f = fieldErrors(err);
      setErrors(f.fields);
      setMessage({ ok: false, text: f.message });
    }
  };
  const run = async (lane: Lane, cmd: Command) => {
    if (!creds) return;
    setBusy(`${lane.laneid}:${cmd}`);
    try {
      const r = await boCall(creds, 'terminal', { body: { laneid: lane.laneid, command: cmd } });
      const about = r.device ? ` ${Object.entries(r.device).filter(([, v]) => v !== null && typeof v !== 'object').map(([k, v]) => `${k}: ${String(v)}`).join(' · ')}` : '';
      setMessage(r.success ? { ok: true, text: `${cmd} on lane ${lane.laneid}: done.${about}` } : { ok: false, text: `${cmd} on lane ${lane.laneid}: ${r.error ?? r.errors?.join(', ') ?? 'failed'}` });
    } catch (err) {
      setMessage({ ok: false, text: (err as Error).message });
    } finally {
      setBusy(null);
      reload();
    }
  };
  const remove = async (lane: Lane) => {
    if (!creds) return;
    const done = await boCall(creds, 'deleteLane', { params: { laneid: lane.laneid } }).then(() => null, (err: unknown) => (err as Error).message);
    setMessage(done === null ? { ok: true, text: `Lane ${lane.laneid} removed.` } : { ok: false, text: done });
    setRemoving(null);
    reload();
  };
  return (
    <>
      <Notice error={error} />
      {message && <p role="status" className={`notice ${message.ok ? 'ok' : 'error'}`}>{message.text}</p>}
      {edit && (
        <form className="card" aria-label={editing ? `Edit lane ${editing}` : 'Add a lane'} onSubmit={(e) => void save(e)}>
          <h2>{editing ? `Edit lane ${editing}` : 'Add a lane'}</h2>
          <div className="bo-inline">
            {!editing && <Field label="Lane id" name="laneid" value={form.laneid} onChange={set('laneid')} errors={errors} required />}
            <Field label="Lane name" name="name" value={form.name} onChange={set('name')} errors={errors} />
            <Field label="Serial port" name="port_path" value={form.port_path} onChange={set('port_path')} errors={errors} hint="/dev/ttyUSB0, COM3" required />
            <button type="submit" className="primary">{editing ? 'Save lane' : 'Add lane'}</button>
            {editing && <button type="button" onClick={reset}>Cancel</button>}
          </div>
        </form>
      )}
      <div className="card">
        <LaneTable lanes={data?.lanes ?? []} edit={edit} command={command} busy={busy} run={(l, cmd) => void run(l, cmd)} onEdit={(l) => (setEditing(l.laneid), setForm({ laneid: l.laneid, name: l.name, port_path: l.port_path }))} onRemove={setRemoving} />
        {data && data.lanes.length === 0 && <p className="muted">No lane yet: add one with its serial port.</p>}
      </div>
      {removing && (
        <Confirm title={`Remove lane ${removing.laneid}?`} danger confirm="Remove lane" onCancel={() => setRemoving(null)} onConfirm={() => void remove(removing)}
          body={<p>Its port is closed and the register can no longer use it. Payments and signatures already taken stay.</p>} />
      )}
    </>
  );
}

function LaneTable(props: { lanes: Lane[]; edit: boolean; command: boolean; busy: string | null; run(l: Lane, cmd: Command): void; onEdit(l: Lane): void; onRemove(l: Lane): void }) {
  const { lanes, edit, command, busy, run, onEdit, onRemove } = props;
  return (
        <table className="bo-simple" aria-label="Lanes">
          <thead><tr><th>Lane</th><th>Port</th><th>Status</th><th>Device</th><th />
          </tr></thead>
          <tbody>
            {lanes.map((l) => (
              <tr key={l.laneid}>
                <td><strong>{l.laneid}</strong> {l.name}</td>
                <td><code>{l.port_path}</code></td>
                <td>
                  <span className={`pill ${l.status}`} aria-label={`Status of lane ${l.laneid}`}>{statusText(l.status)}</span>{' '}
                  <span className="muted small">{[l.status === 'offline' || l.status === 'disabled' ? null : activityText(l.activity), l.last_error].filter(Boolean).join(' · ')}</span>
                </td>
                <td className="muted small">{l.firmware ?? '—'}</td>
                <td>
                  <div className="bo-actions">
                    {command && (['DeviceSetup', 'DeviceStatus'] as const).map((cmd) => (
                      <button key={cmd} type="button" disabled={busy !== null} onClick={() => run(l, cmd)}>{busy === `${l.laneid}:${cmd}` ? '…' : cmd}</button>
                    ))}
                    {edit && <button type="button" onClick={() => onEdit(l)}>Edit</button>}
                    {edit && <button type="button" className="danger" onClick={() => onRemove(l)}>Remove</button>}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
  );
}

/** Z report history: the Zs of a lane, newest first; one opens with its totals. */
export function ZPanel({ rest }: { rest: string[] }) {
  const go = useRoute((s) => s.go);
  const { data: lanes } = useLoad((c) => boCall(c, 'lanes', {}), []);
  const laneid = rest[0] ?? lanes?.lanes[0]?.laneid;
  const { data, error } = useLoad((c) => (laneid ? boCall(c, 'zReports', { params: { laneid } }) : Promise.resolve({ reports: [] })), [laneid]);
  if (laneid && rest[1]) return <ZReportView laneid={laneid} number={rest[1]} />;
  return (
    <>
      <Notice error={error} />
      <div className="card">
        <div className="bo-title">
          <h2 className="page-title">Z reports</h2>
          <label className="bo-field small">
            Lane
            <select aria-label="Lane" value={laneid ?? ''} onChange={(e) => go(link('pos', 'z', e.target.value), { replace: true })}>
              {(lanes?.lanes ?? []).map((l) => <option key={l.laneid} value={l.laneid}>{l.laneid} · {l.name}</option>)}
            </select>
          </label>
        </div>
        {(data?.reports ?? []).length === 0 ? <p className="muted">No Z report on this lane yet.</p> : (
          <table className="bo-simple" aria-label="Z reports">
            <thead><tr><th>Z</th><th>From</th><th>To</th><th className="num">Sales</th><th className="num">Net sales</th></tr></thead>
            <tbody>
              {[...(data?.reports ?? [])].reverse().map((z) => (
                <tr key={z.period} tabIndex={0} className="clickable" onClick={() => go(link('pos', 'z', z.laneid, String(z.period)))} onKeyDown={(e) => e.key === 'Enter' && go(link('pos', 'z', z.laneid, String(z.period)))}>
                  <td>Z {z.period}</td><td>{time(z.from)}</td><td>{time(z.to)}</td>
                  <td className="num">{z.sales.count}</td><td className="num"><Money cents={z.net_sales_cents} currency={z.currency} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </>
  );
}

function ZReportView({ laneid, number }: { laneid: string; number: string }) {
  const { data: z, error } = useLoad((c) => boCall(c, 'zReport', { params: { laneid, number } }), [laneid, number]);
  if (error) return <Notice error={error} />;
  if (!z) return <p className="muted">Loading…</p>;
  const cur = z.currency;
  return (
    <>
      <Title back={link('pos', 'z', laneid)}>Z {z.period} · lane {laneid}</Title>
      <p className="muted">{time(z.from)} – {time(z.to)}</p>
      <div className="grid">
        <div className="card"><h2>Net sales</h2><p className="big-figure"><Money fit cents={z.net_sales_cents} currency={cur} /></p><p className="muted">Tax <Money cents={z.net_tax_cents} currency={cur} /></p></div>
        <div className="card"><h2>Sales</h2><p>{z.sales.count} · <Money cents={z.sales.total_cents} currency={cur} /></p><p className="muted">Paid sales voided {z.voids.count} · refunds {z.refunds.count}{z.open_voids.count > 0 ? ` · voided before payment ${z.open_voids.count}` : ''}</p></div>
        <div className="card"><h2>Cash drawer</h2><p><Money cents={z.cash.net_cents} currency={cur} /></p><p className="muted">Opened {z.cash.drawer_opens} times · {z.declined} declined</p></div>
      </div>
      <div className="card">
        <h2>Tenders</h2>
        <table className="bo-simple" aria-label="Tenders">
          <tbody>
            {z.tenders.map((t) => (
              <tr key={t.type}><td>{t.label} <span className="muted small">×{t.count}</span></td><td className="num"><Money cents={t.net_cents} currency={cur} /></td></tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
