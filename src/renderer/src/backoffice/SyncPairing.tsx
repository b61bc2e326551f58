import { useRef, useState, type FormEvent, type RefObject } from 'react';
import { ApiError } from '../api/client';
import { boCall, type BoAnswer } from '../api/backoffice';
import { can, useUser } from '../state/user';
import { time } from '../format';
import { Confirm, CopyButton, Field, Notice, dropError, fieldErrors, useLoad } from './common';

type Peer = BoAnswer<'syncStatus'>['peers'][number];
type PairedLane = BoAnswer<'syncLanes'>['lanes'][number];
type Code = BoAnswer<'createPairingCode'>;

/** The field each of the engine's refusals of a pairing code is about; the rest go above the form. */
const FIELD_OF: Record<string, string> = { lane_paired: 'laneid', invalid_laneid: 'laneid' };

/** Whether the lane PC could reach this hub at the address the back office is open at. */
const isLoopback = (host: string) => host === 'localhost' || host === '[::1]' || /^127\./.test(host);

/**
 * Lane PCs paired with this hub (docs/sync.md, Pairing): the paired lanes with their last contact,
 * Revoke after a confirmation that says what it does, and "Pair a lane PC": a one-time code for a
 * lane, shown once, with the command to run on the lane PC. Making a pairing code and revoking a
 * lane need the `credentials` scope, which only the owner's own sign-in holds among the roles (a
 * pairing code becomes the lane's lasting credential: authorizeLasting); others read the list and
 * are told who may. On a PC that is itself a lane of a hub, pairing happens on the hub.
 */
export function LanePairing({ peers, onChange }: { peers: Peer[] | undefined; onChange(): void }) {
  const session = useUser((s) => s.session);
  const creds = useUser((s) => s.creds);
  const lanes = useLoad((c) => boCall(c, 'syncLanes', {}), []);
  const owner = can(session, 'credentials');
  const [revoking, setRevoking] = useState<PairedLane | null>(null);
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState<{ ok: boolean; text: string } | null>(null);
  const hub = peers?.find((p) => p.peer === 'hub');
  const lastContact = (laneid: string) => peers?.find((p) => p.peer === `lane:${laneid}`)?.last_success_at ?? null;

  const revoke = async (lane: PairedLane) => {
    if (!creds) return;
    setBusy(true);
    try {
      await boCall(creds, 'revokeSyncLane', { params: { laneid: lane.laneid } });
      setSaid({ ok: true, text: `Lane ${lane.laneid} is revoked: its credential is disabled, so that PC no longer syncs with this hub.` });
    } catch (err) {
      setSaid({ ok: false, text: (err as Error).message });
    } finally {
      setBusy(false);
      setRevoking(null);
      lanes.reload();
      onChange();
    }
  };

  if (hub) {
    return (
      <div className="card" aria-label="Lane pairing">
        <h2>Lane PCs</h2>
        <p className="muted">
          This PC is a lane of the hub at {hub.url ?? 'its hub'}: lane PCs are paired, and revoked, in the hub&apos;s back office (Sync).
        </p>
      </div>
    );
  }
  const list = lanes.data?.lanes ?? [];
  return (
    <div className="card bo-stack" aria-label="Lane pairing">
      <h2>Lane PCs paired with this hub</h2>
      <Notice error={lanes.error} />
      {said && (
        <p role="status" className={`notice ${said.ok ? 'ok' : 'error'}`}>
          {said.text}
        </p>
      )}
      {!lanes.data && !lanes.error && <p className="muted">Loading…</p>}
      {lanes.data && list.length === 0 && <p className="muted" data-testid="no-paired-lanes">No lane PC is paired with this hub yet.</p>}
      {list.length > 0 && <PairedLaneTable lanes={list} lastContact={lastContact} canRevoke={owner} onRevoke={(l) => (setSaid(null), setRevoking(l))} />}
      {owner ? (
        <PairForm onPaired={() => (lanes.reload(), onChange())} />
      ) : (
        <p className="muted" role="note" data-testid="pairing-owner-only">
          Only the owner, signed in as themselves, pairs a lane PC or revokes one: the pairing code becomes the lane&apos;s lasting credential.
        </p>
      )}
      {revoking && <RevokeDialog lane={revoking} busy={busy} onCancel={() => setRevoking(null)} onConfirm={() => void revoke(revoking)} />}
    </div>
  );
}

function PairedLaneTable({ lanes, lastContact, canRevoke, onRevoke }: { lanes: PairedLane[]; lastContact(laneid: string): string | null; canRevoke: boolean; onRevoke(l: PairedLane): void }) {
  return (
    <table className="bo-simple" aria-label="Paired lane PCs">
      <thead>
        <tr><th>Lane</th><th>Paired</th><th>Last contact</th><th>State</th><th /></tr>
      </thead>
      <tbody>
        {lanes.map((l) => {
          const seen = lastContact(l.laneid);
          return (
            <tr key={l.laneid} data-testid={`paired-lane-${l.laneid}`}>
              <td><strong>{l.laneid}</strong> {l.name}</td>
              <td>{time(l.paired_at)}</td>
              <td>{l.revoked_at ? '—' : seen ? time(seen) : <span className="muted">none since this hub started</span>}</td>
              <td>{l.revoked_at ? `Revoked ${time(l.revoked_at)}` : 'Paired'}</td>
              <td>
                {canRevoke && !l.revoked_at && (
                  <button type="button" className="danger" onClick={() => onRevoke(l)}>
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Revoking asks first, saying what it does; the safe answer has the focus, so Enter by reflex keeps the lane. */
function RevokeDialog({ lane, busy, onCancel, onConfirm }: { lane: PairedLane; busy: boolean; onCancel(): void; onConfirm(): void }) {
  return (
    <Confirm
      title={`Revoke lane ${lane.laneid}?`}
      danger
      cancelFirst
      busy={busy}
      confirm="Revoke lane"
      cancel="Keep it paired"
      onCancel={onCancel}
      onConfirm={onConfirm}
      body={
        <>
          <p>
            The credential of lane {lane.laneid} ({lane.name}) is disabled at once: that PC can no longer send its sales to this hub, nor get the catalog, cashiers, customers and gift card balances from it. What it already sent stays here.
          </p>
          <p className="muted">Revoke a lost or stolen lane PC at once: it holds what checks every cashier code. To use that PC, or a new one, as lane {lane.laneid} again, pair it with a new code.</p>
        </>
      }
    />
  );
}

/** "Pair a lane PC": the lane's id (and name), then its one-time code, shown once, with the steps on the lane PC. */
function PairForm({ onPaired }: { onPaired(): void }) {
  const creds = useUser((s) => s.creds);
  const [laneid, setLaneid] = useState('');
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [code, setCode] = useState<Code | null>(null);
  const shown = useRef<HTMLDivElement>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!creds || busy) return;
    setBusy(true);
    try {
      const made = await boCall(creds, 'createPairingCode', { body: { laneid: laneid.trim(), ...(name.trim() ? { name: name.trim() } : {}) } });
      setCode(made);
      setLaneid('');
      setName('');
      setErrors({});
      setMessage(null);
      onPaired();
      setTimeout(() => shown.current?.focus(), 0);
    } catch (err) {
      const { fields, message: top } = fieldErrors(err);
      const field = err instanceof ApiError ? FIELD_OF[err.code] : undefined;
      if (field && !fields[field]) fields[field] = top;
      setErrors(fields);
      setMessage(Object.keys(fields).length ? null : top);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      {code && <CodeShown code={code} onDone={() => setCode(null)} box={shown} />}
      <form className="bo-stack" aria-label="Pair a lane PC" noValidate onSubmit={(e) => void submit(e)}>
        <h3>Pair a lane PC</h3>
        <p className="muted small">
          A lane PC runs its own register and sends its sales here; it gets this hub&apos;s catalog, cashiers and customers. Choose the lane it sells as, then start Laneway on that PC with the code shown.
        </p>
        <Notice error={message} />
        <div className="bo-inline">
          <Field label="Lane id" name="laneid" value={laneid} onChange={(v) => (setLaneid(v), dropError(setErrors, 'laneid'))} errors={errors} required hint="Its own id, not one of this PC's lanes: its receipts are numbered with it (2-00000042)" />
          <Field label="Lane name" name="name" value={name} onChange={setName} errors={errors} hint="Optional: Front till" />
          <button type="submit" className="primary" disabled={busy}>
            Make a pairing code
          </button>
        </div>
      </form>
    </>
  );
}

/** The code, once: its expiry and what to do on the lane PC. Kept only while shown here. */
function CodeShown({ code, onDone, box }: { code: Code; onDone(): void; box: RefObject<HTMLDivElement | null> }) {
  const here = window.location;
  const command = `npm run serve -- --hub ${here.origin} --pairing-code ${code.code}`;
  return (
    <div className="notice info bo-stack" role="status" tabIndex={-1} ref={box} aria-label={`Pairing code for lane ${code.laneid}`} data-testid="pairing-code">
      <p>
        Pairing code for lane {code.laneid}: <code className="bo-secret" data-testid="pairing-code-value">{code.code}</code>
      </p>
      <p className="small">
        Shown once. It works once, until {time(code.expires_at)} (15 minutes); after that, make a new one.
      </p>
      <ol className="small">
        <li>On the lane PC, install this version of Laneway.</li>
        <li>
          Start it as lane {code.laneid} of this hub (from the Laneway folder): <code className="bo-secret" data-testid="pairing-command">{command}</code> <CopyButton text={command} what="command" />
        </li>
        <li>It takes this hub&apos;s catalog, cashiers and settings (its own products and cashiers are set aside), and shows below with its last contact. Later starts need no code.</li>
      </ol>
      {isLoopback(here.hostname) && (
        <p className="small" data-testid="pairing-loopback">
          This back office is open at {here.hostname}, which the lane PC cannot reach: start this hub with <code>--host 0.0.0.0</code> (on the shop&apos;s network, behind a VPN or a TLS proxy) and, in the command, write this PC&apos;s address on that network instead of {here.hostname}.
        </p>
      )}
      <div className="bo-actions">
        <button type="button" onClick={onDone}>
          Done: hide the code
        </button>
      </div>
    </div>
  );
}
