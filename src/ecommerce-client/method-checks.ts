import { abaValid, cvvLengthFor, expiryPassed, luhnValid } from '../shared/payment-fields';
import type { Method } from './frame-forms';

/**
 * What the browser checks of a typed payment method before it leaves the page (the server checks
 * it again), and the method as the API takes it: the hosted frame's and the click-to-pay page's.
 */
export const digits = (v: string) => v.replace(/[\s-]/g, '');
const today = () => {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-01`;
};

/** Each field's problem, in the words the session gave it (errorLabel). */
export function problems(m: Method): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const f = m.fields;
  const value = (id: string) => f[id]?.input.value.trim() ?? '';
  const bad = (id: string, why: string) => out.push([id, `${f[id]?.errorLabel ?? id} ${why}`]);
  if (m.name === 'creditCard') {
    const pan = digits(value('accountNo'));
    if (!value('cardholderName')) bad('cardholderName', 'is required');
    if (!/^[0-9]{12,19}$/.test(pan) || !luhnValid(pan)) bad('accountNo', 'is not a valid card number');
    const month = Number(value('expMonth'));
    const year = Number(value('expYear'));
    if (!month || !year) bad('expMonth', 'is required');
    else if (expiryPassed(month, year, today())) bad('expMonth', 'has passed');
    const cvvLength = cvvLengthFor(pan);
    if (!new RegExp(`^[0-9]{${cvvLength}}$`).test(value('cvv'))) bad('cvv', `must be ${cvvLength} digits`);
  } else if (m.name === 'ach') {
    if (!value('accountHolder')) bad('accountHolder', 'is required');
    if (!abaValid(digits(value('routingNo')))) bad('routingNo', 'is not a valid 9-digit routing number');
    if (!/^[0-9]{4,17}$/.test(digits(value('achAccountNo')))) bad('achAccountNo', 'must be 4 to 17 digits');
  } else if (m.name === 'giftCard') {
    if (!/^[0-9]{6,19}$/.test(digits(value('gcAccountNo')))) bad('gcAccountNo', 'must be 6 to 19 digits');
    if (value('pin') && !/^[0-9]{3,12}$/.test(value('pin'))) bad('pin', 'must be 3 to 12 digits');
  }
  return out;
}

export function tokenRequest(m: Method): Record<string, unknown> {
  const v = (id: string) => m.fields[id]?.input.value.trim() ?? '';
  if (m.name === 'creditCard') {
    return { type: 'creditCard', accountHolder: v('cardholderName'), accountNumber: digits(v('accountNo')), expirationMonth: Number(v('expMonth')), expirationYear: Number(v('expYear')), cardVerificationValue: v('cvv') };
  }
  if (m.name === 'ach') {
    return { type: 'ach', accountHolder: v('accountHolder'), routingNumber: digits(v('routingNo')), accountNumber: digits(v('achAccountNo')), accountType: v('accountType') || 'checking', checkType: v('checkType') || 'personal' };
  }
  return { type: 'giftCard', accountNumber: digits(v('gcAccountNo')), ...(v('pin') ? { pin: v('pin') } : {}) };
}

