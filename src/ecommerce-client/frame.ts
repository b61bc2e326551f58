import { CHANNEL, isEnvelope, type FrameMessage, type PaymentTypeName } from './protocol';
import { allowedFontUrls, sanitizeStyles } from './styles';
import { buildForms, type WalletChoices } from './frame-forms';
import { problems, tokenRequest } from './method-checks';

/**
 * The hosted payment frame: the forms of the session's payment types, checked here (Luhn, expiry,
 * security code length by brand, routing number check digit) and then sent straight to this
 * product's API, which answers a token. Only the token (never a number) goes to the shop's page,
 * by postMessage to the one origin the server allowed to frame this page.
 */
const session = document.body.dataset.session ?? '';
const parentOrigin = document.body.dataset.parentOrigin ?? '';
const base = `/api/v2/sessions/${encodeURIComponent(session)}`;

interface SessionView {
  paymentTypes: Array<{ name: PaymentTypeName; label: string; promoted?: boolean; fields?: Array<{ name?: string; label?: string; errorLabel?: string; placeholder?: string }> }>;
  amount?: number;
  wallet?: {
    allowAdd?: boolean;
    saveByDefault?: boolean;
    creditCardTokens: Array<{ token: string; brand?: string; accountNumberLastFour?: string; expirationMonth?: number; expirationYear?: number }>;
    bankAccountTokens: Array<{ token: string; accountNumberLastFour?: string }>;
  };
}

function walletChoices(w: SessionView['wallet']): WalletChoices | undefined {
  if (!w) return undefined;
  const brand = (b?: string) => (b ? b.charAt(0).toUpperCase() + b.slice(1).replace(/_/g, ' ') : 'Card');
  return {
    creditCard: w.creditCardTokens.map((c) => ({ token: c.token, text: `${brand(c.brand)} ending ${c.accountNumberLastFour ?? ''} (${String(c.expirationMonth ?? '').padStart(2, '0')}/${c.expirationYear ?? ''})` })),
    ach: w.bankAccountTokens.map((b) => ({ token: b.token, text: `Bank account ending ${b.accountNumberLastFour ?? ''}` })),
    allowAdd: w.allowAdd !== false,
    saveByDefault: w.saveByDefault === true,
  };
}

function post(message: FrameMessage): void {
  window.parent.postMessage({ ...message, channel: CHANNEL, session }, parentOrigin);
}

/** The page's messages: its styles and fonts once, then submits. */
function listen(submit: () => Promise<void>): void {
  window.addEventListener('message', (e: MessageEvent) => {
    // Only our parent, at the origin the server allowed, on this session.
    if (e.source !== window.parent || e.origin !== parentOrigin || !isEnvelope(e.data, session)) return;
    const m = e.data as unknown as { type: string; styles?: unknown; fontUrls?: unknown };
    if (m.type === 'init') {
      for (const href of allowedFontUrls(m.fontUrls)) {
        const link = document.createElement('link');
        link.rel = 'stylesheet';
        link.href = href;
        document.head.appendChild(link);
      }
      const style = document.createElement('style');
      style.textContent = sanitizeStyles(m.styles);
      document.head.appendChild(style);
      post({ type: 'initialized' });
    } else if (m.type === 'submit') {
      void submit();
    }
  });
}

async function start(): Promise<void> {
  const res = await fetch(base, { headers: { Accept: 'application/json' } });
  const body = (await res.json().catch(() => ({}))) as SessionView & { message?: string };
  if (!res.ok) {
    const status = document.getElementById('status')!;
    status.textContent = body.message ?? 'This payment session cannot be used.';
    post({ type: 'failed', error: status.textContent });
    return;
  }
  let remaining = typeof body.amount === 'number' ? body.amount : undefined;
  const form = document.getElementById('paymentForm') as HTMLFormElement;
  const formError = document.getElementById('formError')!;
  const ui = buildForms(form, body.paymentTypes, walletChoices(body.wallet));
  let busy = false;

  const submit = async () => {
    if (busy) return;
    const m = ui.current();
    ui.clearErrors();
    formError.textContent = '';
    const saved = ui.savedToken(m);
    if (saved) {
      post({ type: 'approval', result: { paymentType: m.name, token: saved, paymentTypeName: m.label, ...(remaining !== undefined ? { amount: remaining } : {}) } });
      return;
    }
    const found = problems(m);
    if (found.length > 0) {
      for (const [id, message] of found) ui.showError(id, message);
      post({ type: 'rejection', error: { paymentType: m.name, error: found[0]![1] } });
      return;
    }
    busy = true;
    try {
      const r = await fetch(`${base}/tokens`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ...tokenRequest(m), ...(m.save?.checked ? { addToWallet: true } : {}) }) });
      const answer = (await r.json().catch(() => ({}))) as { token?: string; message?: string };
      ui.clearSecrets();
      if (!r.ok || !answer.token) {
        formError.textContent = answer.message ?? 'This payment method was not accepted.';
        post({ type: 'rejection', error: { paymentType: m.name, error: formError.textContent } });
        return;
      }
      const result = { paymentType: m.name, token: answer.token, paymentTypeName: m.label };
      if (m.name !== 'giftCard') {
        post({ type: 'approval', result: { ...result, ...(remaining !== undefined ? { amount: remaining } : {}) } });
        return;
      }
      const b = (await (await fetch(`${base}/balance/${encodeURIComponent(answer.token)}`)).json()) as { balance?: number };
      const balance = b.balance ?? 0;
      if (remaining !== undefined && balance < remaining) {
        remaining = Math.round((remaining - balance) * 100) / 100;
        ui.status(`Gift card applied (${balance.toFixed(2)}). ${remaining.toFixed(2)} is left to pay: choose another payment method.`);
        post({ type: 'partial', result: { ...result, amount: balance, remaining } });
        return;
      }
      post({ type: 'approval', result: { ...result, amount: remaining !== undefined ? remaining : balance } });
    } finally {
      busy = false;
    }
  };

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void submit();
  });
  listen(submit);
  post({ type: 'ready' });
}

void start();
