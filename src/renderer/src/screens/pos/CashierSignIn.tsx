import { useState, type FormEvent } from 'react';
import { usePos } from '../../state/pos';
import { useKeys } from '../../keys';
import { activityText, statusText, typedDigits } from '../../format';

export function CashierSignIn() {
  const { laneid, lanes, register, signIn, busy, changeLane, server } = usePos();
  const [code, setCode] = useState('');
  const lane = laneid ? lanes[laneid] : undefined;
  useKeys({ Escape: changeLane });

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!code) return;
    const ok = await signIn(code);
    if (!ok) setCode('');
  };

  return (
    <section className="centered-page">
      <form className="card signin" onSubmit={(e) => void submit(e)} aria-labelledby="cashier-title">
        <h2 id="cashier-title" className="page-title">
          {lane?.name ?? `Lane ${laneid}`}
        </h2>
        {lane && server === 'down' && <p className="muted">Terminal: status unknown while Laneway is not answering.</p>}
        {lane && server !== 'down' && (
          <p className="muted">
            Terminal: <span className={`pill ${lane.status}`}>{statusText(lane.status)}</span> {lane.status !== 'offline' ? activityText(lane.activity) : ''}
          </p>
        )}
        {register?.signed_in && <p className="muted">{register.signed_in.cashier} is signed in here; signing in takes over the lane.</p>}
        <label>
          Cashier code
          <input
            autoFocus
            type="password"
            inputMode="numeric"
            autoComplete="off"
            maxLength={8}
            value={code}
            onChange={(e) => setCode(typedDigits(e.target.value))}
            aria-describedby="cashier-hint"
          />
        </label>
        <p id="cashier-hint" className="muted">
          Type your code and press Enter. Your sign-in to Laneway is not your code: an owner or a manager gives each cashier one under Point of sale → Cashiers.
        </p>
        <button type="submit" className="primary big" disabled={busy || code.length < 4}>
          Sign in <kbd>Enter</kbd>
        </button>
        <button type="button" onClick={changeLane}>
          Change lane <kbd>Esc</kbd>
        </button>
      </form>
    </section>
  );
}
