import type { PaymentTypeName } from './protocol';

/**
 * The frame's forms, built with the DOM (labels from the session are text, never markup): one
 * section per payment type, each field with its label and an error beside it that screen readers
 * announce.
 */
export interface Field {
  input: HTMLInputElement | HTMLSelectElement;
  error: HTMLElement;
  errorLabel: string;
}

export interface Method {
  name: PaymentTypeName;
  label: string;
  fields: Record<string, Field>;
  section: HTMLElement;
  /** The wallet's saved methods of this type the buyer may pick instead of typing one. */
  saved: HTMLInputElement[];
  /** "Save to my wallet", when the session's wallet takes new methods. */
  save: HTMLInputElement | null;
}

export interface SavedMethod {
  token: string;
  text: string;
}

export interface WalletChoices {
  creditCard: SavedMethod[];
  ach: SavedMethod[];
  allowAdd: boolean;
  saveByDefault: boolean;
}

type FieldOptions = Array<{ name?: string; label?: string; errorLabel?: string; placeholder?: string }>;

interface Spec {
  id: string;
  /** The session's name for the field (the reference's `expDate` covers month and year). */
  option: string;
  label: string;
  errorLabel: string;
  autocomplete?: string;
  inputmode?: string;
  maxLength?: number;
  secret?: boolean;
  choices?: Array<[string, string]>;
}

// Month and year start empty ("MM", "YYYY"): a default the buyer never chose could already have passed.
const months: Array<[string, string]> = [['', 'MM'], ...Array.from({ length: 12 }, (_, i): [string, string] => [String(i + 1), String(i + 1).padStart(2, '0')])];
const years = (): Array<[string, string]> => {
  const y = new Date().getFullYear();
  return [['', 'YYYY'], ...Array.from({ length: 16 }, (_, i): [string, string] => [String(y + i), String(y + i)])];
};

const SPECS: Record<string, Spec[]> = {
  creditCard: [
    { id: 'cardholderName', option: 'cardholderName', label: 'Cardholder Name', errorLabel: 'Cardholder name', autocomplete: 'cc-name', maxLength: 50 },
    { id: 'accountNo', option: 'accountNo', label: 'Account Number', errorLabel: 'Credit card number', autocomplete: 'cc-number', inputmode: 'numeric', maxLength: 23, secret: true },
    { id: 'expMonth', option: 'expDate', label: 'Expiration Date', errorLabel: 'Expiration date', autocomplete: 'cc-exp-month', choices: months },
    { id: 'expYear', option: 'expDate', label: 'Expiration Year', errorLabel: 'Expiration year', autocomplete: 'cc-exp-year', choices: [] },
    { id: 'cvv', option: 'cvv', label: 'Security Code', errorLabel: 'Security code', autocomplete: 'cc-csc', inputmode: 'numeric', maxLength: 4, secret: true },
  ],
  ach: [
    { id: 'accountType', option: 'accountType', label: 'Account Type', errorLabel: 'Account type', choices: [['checking', 'Checking'], ['savings', 'Savings']] },
    { id: 'checkType', option: 'checkType', label: 'Check Type', errorLabel: 'Check type', choices: [['personal', 'Personal'], ['business', 'Business']] },
    { id: 'accountHolder', option: 'accountHolder', label: 'Account Holder', errorLabel: 'Account holder', autocomplete: 'name', maxLength: 50 },
    { id: 'routingNo', option: 'routingNo', label: 'Routing Number', errorLabel: 'Routing number', inputmode: 'numeric', maxLength: 9 },
    { id: 'achAccountNo', option: 'achAccountNo', label: 'Account Number', errorLabel: 'Bank account number', inputmode: 'numeric', maxLength: 17, secret: true },
  ],
  giftCard: [
    { id: 'gcAccountNo', option: 'gcAccountNo', label: 'Account Number', errorLabel: 'Gift card number', inputmode: 'numeric', maxLength: 23, secret: true },
    { id: 'pin', option: 'pin', label: 'PIN', errorLabel: 'PIN', inputmode: 'numeric', maxLength: 12, secret: true },
  ],
};

function fieldOf(section: HTMLElement, spec: Spec, options: FieldOptions): Field {
  const o = options.find((f) => f.name === spec.option);
  const id = spec.id;
  const wrap = document.createElement('div');
  wrap.id = `${id}Div`;
  wrap.className = 'field';
  const label = document.createElement('label');
  label.htmlFor = id;
  label.textContent = spec.id === 'expYear' ? spec.label : (o?.label ?? spec.label);
  let input: HTMLInputElement | HTMLSelectElement;
  const choices = spec.id === 'expYear' ? years() : spec.choices;
  if (choices) {
    const select = document.createElement('select');
    for (const [value, text] of choices) select.add(new Option(text, value));
    input = select;
  } else {
    const text = document.createElement('input');
    text.type = spec.secret && spec.id === 'pin' ? 'password' : 'text';
    if (spec.inputmode) text.inputMode = spec.inputmode;
    if (spec.maxLength) text.maxLength = spec.maxLength;
    if (o?.placeholder) text.placeholder = o.placeholder;
    text.spellcheck = false;
    input = text;
  }
  input.id = id;
  input.name = spec.id;
  input.autocomplete = (spec.autocomplete ?? 'off') as AutoFill;
  const error = document.createElement('span');
  error.id = `${id}-error`;
  error.className = 'error';
  error.setAttribute('aria-live', 'polite');
  input.setAttribute('aria-describedby', error.id);
  wrap.append(label, input, error);
  section.appendChild(wrap);
  return { input, error, errorLabel: spec.id === 'expYear' ? spec.errorLabel : (o?.errorLabel ?? spec.errorLabel) };
}

/** Radios for the wallet's saved methods (and "a new one", which shows the fields), before the fields. */
function savedChoices(section: HTMLElement, name: PaymentTypeName, items: SavedMethod[]): HTMLInputElement[] {
  if (items.length === 0) return [];
  const group = document.createElement('fieldset');
  group.className = 'saved';
  const legend = document.createElement('legend');
  legend.textContent = name === 'ach' ? 'Saved bank accounts' : 'Saved cards';
  group.appendChild(legend);
  const radios = [...items, { token: '', text: name === 'ach' ? 'A new bank account' : 'A new card' }].map((item, i) => {
    const radio = document.createElement('input');
    radio.type = 'radio';
    radio.name = `saved-${name}`;
    radio.id = `saved-${name}-${i}`;
    radio.value = item.token;
    radio.checked = i === 0;
    const label = document.createElement('label');
    label.htmlFor = radio.id;
    label.textContent = item.text;
    group.append(radio, label);
    // A saved method needs no typing: its fields are hidden while it is picked.
    radio.addEventListener('change', () => section.classList.toggle('using-saved', radio.value !== ''));
    return radio;
  });
  section.classList.add('using-saved');
  section.appendChild(group);
  return radios;
}

function saveBox(section: HTMLElement, name: PaymentTypeName, checked: boolean): HTMLInputElement {
  const wrap = document.createElement('div');
  wrap.className = 'save';
  const box = document.createElement('input');
  box.type = 'checkbox';
  box.id = `save-${name}`;
  box.checked = checked;
  const label = document.createElement('label');
  label.htmlFor = box.id;
  label.textContent = 'Save to my wallet';
  wrap.append(box, label);
  section.appendChild(wrap);
  return box;
}

export function buildForms(form: HTMLFormElement, types: Array<{ name: PaymentTypeName; label: string; fields?: FieldOptions }>, wallet?: WalletChoices) {
  const methods: Method[] = [];
  const usable = types.filter((t) => SPECS[t.name]);
  const chooser = document.createElement('fieldset');
  chooser.className = 'methods';
  const legend = document.createElement('legend');
  legend.textContent = 'Payment method';
  chooser.appendChild(legend);
  form.appendChild(chooser);
  if (usable.length < 2) chooser.hidden = true;
  usable.forEach((t, i) => {
    const radio = document.createElement('input');
    radio.type = 'radio';
    radio.name = 'paymentType';
    radio.id = `type-${t.name}`;
    radio.value = t.name;
    radio.checked = i === 0;
    const label = document.createElement('label');
    label.htmlFor = radio.id;
    label.textContent = t.label;
    chooser.append(radio, label);
    const section = document.createElement('section');
    section.id = `${t.name}Form`;
    section.setAttribute('aria-label', t.label);
    section.hidden = i !== 0;
    const savable = wallet && (t.name === 'creditCard' || t.name === 'ach');
    const saved = savable ? savedChoices(section, t.name, wallet[t.name as 'creditCard' | 'ach']) : [];
    const fields: Record<string, Field> = {};
    // Month and year sit in #expDate inside #expDateDiv: ids the reference lets a shop style.
    let expDate: HTMLElement | undefined;
    const parentOf = (spec: Spec): HTMLElement => {
      if (spec.option !== 'expDate') return section;
      if (!expDate) {
        const div = document.createElement('div');
        div.id = 'expDateDiv';
        expDate = document.createElement('div');
        expDate.id = 'expDate';
        expDate.className = 'expiry';
        div.appendChild(expDate);
        section.appendChild(div);
      }
      return expDate;
    };
    for (const spec of SPECS[t.name]!) fields[spec.id] = fieldOf(parentOf(spec), spec, t.fields ?? []);
    const save = savable && wallet.allowAdd ? saveBox(section, t.name, wallet.saveByDefault) : null;
    form.appendChild(section);
    methods.push({ name: t.name, label: t.label, fields, section, saved, save });
    radio.addEventListener('change', () => {
      for (const m of methods) m.section.hidden = m.name !== t.name;
    });
  });
  return formsApi(form, methods);
}

/** What the frame does with the forms: the chosen method, its errors and focus, the status line. */
function formsApi(form: HTMLFormElement, methods: Method[]) {
  const status = document.getElementById('status')!;
  const fieldById = (id: string) => methods.flatMap((m) => (m.fields[id] ? [m.fields[id]] : []))[0];
  return {
    /** Whether any of the session's types has a form here (Apple Pay, say, has none). */
    any(): boolean {
      return methods.length > 0;
    },
    /** The saved method picked instead of typing one, or null. */
    savedToken(m: Method): string | null {
      return m.saved.find((r) => r.checked)?.value || null;
    },
    current(): Method {
      const chosen = (form.querySelector('input[name="paymentType"]:checked') as HTMLInputElement | null)?.value;
      return methods.find((m) => m.name === chosen) ?? methods[0]!;
    },
    clearErrors() {
      for (const m of methods) {
        for (const f of Object.values(m.fields)) {
          f.error.textContent = '';
          f.input.removeAttribute('aria-invalid');
        }
      }
    },
    showError(id: string, message: string) {
      const f = fieldById(id);
      if (!f) return;
      f.error.textContent = message;
      f.input.setAttribute('aria-invalid', 'true');
    },
    /** Moves focus to a field (the first invalid one), so the buyer is where the problem is. */
    focus(id: string) {
      fieldById(id)?.input.focus();
    },
    /** Numbers and codes leave the page's fields once they were sent (or refused). */
    clearSecrets() {
      for (const m of methods) {
        for (const [id, f] of Object.entries(m.fields)) if (['accountNo', 'cvv', 'achAccountNo', 'gcAccountNo', 'pin'].includes(id)) f.input.value = '';
      }
    },
    status(text: string) {
      status.textContent = text;
    },
  };
}
