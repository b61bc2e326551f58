import { formatMoney } from '../shared/money';
import type { PayLinkOutcome, PayLinkPaymentRequest, PayLinkView } from '../shared/schemas/pay-links';
import { buildForms, type Method } from './frame-forms';
import { digits, problems, tokenRequest } from './method-checks';

/**
 * The click-to-pay page (GET /pay/{key}): what the invoice's sender asks, in the payer's own
 * locale (amounts and dates), the card or bank account form the hosted frame uses, and the
 * receipt. The key in the address is the only credential: nothing here is stored in the browser.
 */
const key = document.body.dataset.key ?? '';
const api = `/api/pay/${encodeURIComponent(key)}`;
const locale = navigator.languages?.[0] ?? navigator.language ?? 'en-US';

const $ = (id: string) => document.getElementById(id)!;
const money = (cents: number, currency: string) => formatMoney(cents, currency, { locale });
const day = (iso: string) => new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(`${iso}T00:00:00Z`));

function row(list: HTMLElement, term: string, value: string, id?: string): void {
  const dt = document.createElement('dt');
  dt.textContent = term;
  const dd = document.createElement('dd');
  dd.textContent = value;
  if (id) dd.id = id;
  list.append(dt, dd);
}

function summary(view: PayLinkView): void {
  $('merchant').textContent = `${view.merchant} asks you to pay an invoice`;
  document.title = `Pay invoice ${view.invoice.number} — ${view.merchant}`;
  const list = $('details');
  list.replaceChildren();
  const inv = view.invoice;
  row(list, 'Invoice', inv.number);
  row(list, 'Billed to', view.customer.name);
  row(list, 'Invoice date', day(inv.date));
  if (inv.due_date) row(list, 'Due', day(inv.due_date));
  row(list, 'Invoice total', money(inv.amount_cents, inv.currency));
  if (inv.discount_cents > 0 && inv.discount_expiry_date) {
    row(list, 'Owing', money(inv.owing_cents, inv.currency));
    row(list, `Early-payment discount, if paid by ${day(inv.discount_expiry_date)}`, `−${money(inv.discount_cents, inv.currency)}`, 'discount');
  }
  row(list, 'To pay now', money(inv.pay_cents, inv.currency), 'owing');
  if (view.environment === 'sandbox') {
    $('sandbox').hidden = false;
  }
}

/** An id for one press of Pay: the same press sent again never charges twice. */
function attemptId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The billing postal code (the processor's AVS check), after the card's fields: the frame has none. */
function postalField(): HTMLInputElement | null {
  const section = document.getElementById('creditCardForm');
  if (!section) return null;
  const wrap = document.createElement('div');
  wrap.className = 'field';
  const label = document.createElement('label');
  label.htmlFor = 'postalCode';
  label.textContent = 'Billing Postal Code';
  const input = document.createElement('input');
  input.id = 'postalCode';
  input.autocomplete = 'postal-code';
  input.maxLength = 10;
  const error = document.createElement('span');
  error.id = 'postalCode-error';
  error.className = 'error';
  error.setAttribute('aria-live', 'polite');
  input.setAttribute('aria-describedby', error.id);
  wrap.append(label, input, error);
  section.appendChild(wrap);
  return input;
}

function paymentRequest(m: Method, amount: number, attempt: string, postal: string): PayLinkPaymentRequest {
  const t = tokenRequest(m) as Record<string, string | number | undefined>;
  const common = { amount_cents: amount, attempt, name: String(t.accountHolder ?? '') };
  if (m.name === 'creditCard') {
    return { ...common, type: 'creditCard', card_number: digits(String(t.accountNumber ?? '')), expiry_month: Number(t.expirationMonth), expiry_year: Number(t.expirationYear), cvv: String(t.cardVerificationValue ?? ''), postal_code: postal };
  }
  return { ...common, type: 'ach', routing_number: String(t.routingNumber ?? ''), account_number: String(t.accountNumber ?? ''), account_type: t.accountType === 'savings' ? 'savings' : 'checking', check_type: t.checkType === 'business' ? 'business' : 'personal' };
}

function receipt(view: PayLinkView, outcome: PayLinkOutcome): void {
  $('payment').hidden = true;
  $('sandbox').hidden = true;
  const box = $('receipt');
  box.hidden = false;
  $('receiptTitle').textContent = outcome.status === 'in_progress' ? 'Payment accepted' : 'Payment approved';
  $('receiptMessage').textContent = outcome.message;
  const list = $('receiptDetails');
  list.replaceChildren();
  row(list, 'Amount', money(outcome.amount_cents, outcome.currency), 'paidAmount');
  // The server charged pay_cents, so the discount the page showed is the one taken.
  if (view.invoice.discount_cents > 0) row(list, 'Early-payment discount taken', money(view.invoice.discount_cents, outcome.currency));
  row(list, 'Paid with', outcome.payment_method);
  row(list, 'Invoice', view.invoice.number);
  row(list, 'Receipt number', outcome.transaction);
  if (outcome.authorization_code) row(list, 'Authorization', outcome.authorization_code);
  // The server's clock, not the payer's: a sandbox clock moved ahead dates the payment as the books do.
  row(list, 'Date', new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'short' }).format(outcome.paid_at ? new Date(outcome.paid_at) : new Date()));
  $('owing').textContent = money(0, outcome.currency);
  $('receiptTitle').focus();
}

/** The page once nothing can be paid here: the reason, and no form. */
function closed(text: string): void {
  $('payment').hidden = true;
  $('sandbox').hidden = true;
  $('notice').textContent = text;
  $('notice').hidden = false;
}

async function start(): Promise<void> {
  $('print').addEventListener('click', () => window.print());
  const res = await fetch(api, { headers: { Accept: 'application/json' } });
  const view = (await res.json().catch(() => ({}))) as PayLinkView & { error?: string };
  if (!res.ok) {
    $('merchant').textContent = 'Payment link';
    $('details').hidden = true;
    closed(view.error ?? 'This payment link cannot be used now.');
    return;
  }
  summary(view);
  const inv = view.invoice;
  if (inv.status !== 'owing') {
    closed(inv.status === 'paid' ? `Invoice ${inv.number} is paid: there is nothing left to pay.` : `Invoice ${inv.number} was withdrawn by ${view.merchant}: there is nothing to pay.`);
    return;
  }
  if (view.locked_until) {
    closed(`Too many payments were refused on this link. It takes payments again on ${new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'short' }).format(new Date(view.locked_until))}, or contact ${view.merchant} to pay another way.`);
    return;
  }
  if (view.methods.length === 0) {
    closed(`Invoice ${inv.number} owes more than one payment can take here: contact ${view.merchant} to pay it another way.`);
    return;
  }
  payForm(view);
}

/** The form for what the invoice owes, and what each press of Pay answers. */
function payForm(view: PayLinkView): void {
  const inv = view.invoice;
  const labels: Record<string, string> = { creditCard: 'Card', ach: 'Bank account (ACH)' };
  const form = $('paymentForm') as HTMLFormElement;
  const ui = buildForms(form, view.methods.map((name) => ({ name, label: labels[name] ?? name })));
  const postal = postalField();
  const button = document.createElement('button');
  button.type = 'submit';
  button.id = 'payButton';
  button.textContent = `Pay ${money(inv.pay_cents, inv.currency)}`;
  form.appendChild(button);
  $('payment').hidden = false;
  const formError = $('formError');
  let attempt = attemptId();

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void (async () => {
      if (button.disabled) return;
      const m = ui.current();
      ui.clearErrors();
      formError.textContent = '';
      const found = problems(m);
      if (m.name === 'creditCard' && postal && !postal.value.trim()) found.push(['postalCode', 'Billing postal code is required']);
      postal?.removeAttribute('aria-invalid');
      $('postalCode-error').textContent = '';
      if (found.length > 0) {
        for (const [id, message] of found) {
          if (id !== 'postalCode') ui.showError(id, message);
          else {
            $('postalCode-error').textContent = message;
            postal?.setAttribute('aria-invalid', 'true');
          }
        }
        return;
      }
      button.disabled = true;
      button.setAttribute('aria-busy', 'true');
      ui.status('Paying…');
      try {
        const r = await fetch(`${api}/payments`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(paymentRequest(m, inv.pay_cents, attempt, postal?.value.trim() ?? '')) });
        const answer = (await r.json().catch(() => ({}))) as PayLinkOutcome & { error?: string; code?: string; details?: Array<{ field?: string; message?: string }> };
        ui.status('');
        if (r.ok && answer.status !== 'declined') {
          ui.clearSecrets();
          receipt(view, answer);
          return;
        }
        // A new press is a new attempt: what was refused is not replayed.
        attempt = attemptId();
        if (r.ok) {
          ui.clearSecrets();
          formError.textContent = `${answer.message} ${answer.attempts_left > 0 ? `${answer.attempts_left} more ${answer.attempts_left === 1 ? 'try' : 'tries'} on this link today.` : ''}`.trim();
          if (answer.attempts_left === 0) closed(`${answer.message} Too many payments were refused on this link: it takes no more for a day. Contact ${view.merchant} to pay another way.`);
          return;
        }
        if (r.status === 409) {
          closed(answer.error ?? 'This invoice cannot be paid here now.');
          return;
        }
        formError.textContent = answer.error ?? 'The payment could not be made. Try again in a moment.';
      } catch {
        ui.status('');
        formError.textContent = 'The payment could not be sent: check your connection and press Pay again (you will not be charged twice).';
      } finally {
        button.disabled = false;
        button.removeAttribute('aria-busy');
      }
    })();
  });
}

void start();
