import { CHANNEL, isEnvelope, type FrameMessage, type PaymentTypeName } from './protocol';
import { allowedFontUrls, sanitizeStyles } from './styles';
import { buildForms, type Method, type WalletChoices } from './frame-forms';
import { formatMoney, minorDigits } from '../shared/money';
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
// Amounts read as the buyer reads them: their browser's language, the session's currency.
const locale = navigator.languages?.[0] ?? navigator.language ?? 'en-US';

interface SessionView {
  paymentTypes: Array<{ name: PaymentTypeName; label: string; promoted?: boolean; fields?: Array<{ name?: string; label?: string; errorLabel?: string; placeholder?: string }> }>;
  amount?: number;
  currency?: string;
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
function listen(submit: () => Promise<void>, focus: () => void = () => undefined): void {
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
    } else if (m.type === 'focus') {
      focus();
    }
  });
}

async function balanceOf(token: string): Promise<number> {
  const b = (await (await fetch(`${base}/balance/${encodeURIComponent(token)}`)).json()) as { balance?: number };
  return b.balance ?? 0;
}

/** No type of the session has a form here (Apple Pay alone, say): say so, and every Pay is refused. */
function noMethod(form: HTMLFormElement, ui: ReturnType<typeof buildForms>, paymentType: PaymentTypeName): void {
  const text = 'No payment method is available in this payment form.';
  ui.status(text);
  const refuse = async () => {
    post({ type: 'rejection', error: { paymentType, error: text } });
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void refuse();
  });
  listen(refuse);
  post({ type: 'ready' });
}

/** The session's currency (USD when it names none) in minor units, and amounts in the buyer's locale. */
function amounts(currency: string | undefined) {
  const code = typeof currency === 'string' && /^[A-Z]{3}$/.test(currency) ? currency : 'USD';
  const scale = 10 ** minorDigits(code);
  return {
    minor: (amount: number) => Math.round(amount * scale),
    decimal: (units: number) => units / scale,
    money: (units: number) => formatMoney(units, code, { locale }),
  };
}

/** The session, or null once the page was told why it cannot be used. */
async function sessionView(): Promise<SessionView | null> {
  const res = await fetch(base, { headers: { Accept: 'application/json' } });
  const body = (await res.json().catch(() => ({}))) as SessionView & { message?: string };
  if (res.ok) return body;
  const status = document.getElementById('status')!;
  status.textContent = body.message ?? 'This payment session cannot be used.';
  post({ type: 'failed', error: status.textContent });
  return null;
}

/** Refusing what was typed: the message beside its field (focused) and in onApproval's reject. */
function refusals(ui: ReturnType<typeof buildForms>, formError: HTMLElement) {
  // The field to focus again once the page hands this frame its focus (Pay was pressed on the page:
  // focusing the iframe from there resets the frame's own focused element).
  let focusLater: string | null = null;
  const focusField = (id: string) => {
    ui.focus(id);
    focusLater = id;
  };
  return {
    focusField,
    refuse(m: Method, error: string, field?: string) {
      if (field) {
        ui.showError(field, error);
        focusField(field);
      } else formError.textContent = error;
      post({ type: 'rejection', error: { paymentType: m.name, error }, ...(field ? { invalid: true } : {}) });
    },
    refocus() {
      if (focusLater) ui.focus(focusLater);
      focusLater = null;
    },
  };
}

async function start(): Promise<void> {
  const body = await sessionView();
  if (!body) return;
  const { minor, decimal, money } = amounts(body.currency);
  // What is left to pay, in minor units (never summed in floating point).
  let remaining = typeof body.amount === 'number' ? minor(body.amount) : undefined;
  // The gift cards this frame counted as partial payments: one is never counted twice.
  const applied = new Set<string>();
  const form = document.getElementById('paymentForm') as HTMLFormElement;
  const formError = document.getElementById('formError')!;
  const ui = buildForms(form, body.paymentTypes, walletChoices(body.wallet));
  let busy = false;

  if (!ui.any()) {
    noMethod(form, ui, body.paymentTypes[0]?.name ?? 'creditCard');
    return;
  }

  const { refuse, focusField, refocus } = refusals(ui, formError);

  const submit = async () => {
    if (busy) return;
    const m = ui.current();
    ui.clearErrors();
    formError.textContent = '';
    const withAmount = remaining !== undefined ? { amount: decimal(remaining) } : {};
    const saved = ui.savedToken(m);
    if (saved) {
      post({ type: 'approval', result: { paymentType: m.name, token: saved, paymentTypeName: m.label, ...withAmount } });
      return;
    }
    const found = problems(m);
    if (found.length > 0) {
      for (const [id, message] of found) ui.showError(id, message);
      focusField(found[0]![0]);
      post({ type: 'rejection', error: { paymentType: m.name, error: found[0]![1] }, invalid: true });
      return;
    }
    busy = true;
    try {
      const r = await fetch(`${base}/tokens`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ...tokenRequest(m), ...(m.save?.checked ? { addToWallet: true } : {}) }) });
      const answer = (await r.json().catch(() => ({}))) as { token?: string; message?: string };
      ui.clearSecrets();
      if (!r.ok || !answer.token) {
        refuse(m, answer.message ?? 'This payment method was not accepted.');
        return;
      }
      const result = { paymentType: m.name, token: answer.token, paymentTypeName: m.label };
      if (m.name !== 'giftCard') {
        post({ type: 'approval', result: { ...result, ...withAmount } });
        return;
      }
      // A gift card's token is the card's own: the same card typed again answers the same token.
      if (applied.has(answer.token)) {
        refuse(m, `This gift card is already applied.${remaining !== undefined ? ` Choose another payment method for the ${money(remaining)} left to pay.` : ''}`, 'gcAccountNo');
        return;
      }
      const balance = minor(await balanceOf(answer.token));
      if (balance <= 0) {
        refuse(m, 'This gift card has no balance left: choose another payment method.', 'gcAccountNo');
        return;
      }
      if (remaining !== undefined && balance < remaining) {
        applied.add(answer.token);
        remaining -= balance;
        ui.status(`Gift card applied (${money(balance)}). ${money(remaining)} is left to pay: choose another payment method.`);
        post({ type: 'partial', result: { ...result, amount: decimal(balance), remaining: decimal(remaining) } });
        return;
      }
      post({ type: 'approval', result: { ...result, amount: decimal(remaining !== undefined ? remaining : balance) } });
    } finally {
      busy = false;
    }
  };

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void submit();
  });
  listen(submit, refocus);
  post({ type: 'ready' });
}

// First of all: the page learns the browser showed this frame (it did not refuse the page's origin).
post({ type: 'loaded' });
void start();
