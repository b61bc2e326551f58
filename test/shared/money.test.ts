import { describe, expect, it } from 'vitest';
import { cashFarAboveDue, formatAmount, formatMoney, minorDigits, parseMoney, parsePercent } from '../../src/shared/money';

const NBSP = '\u00a0';
const NNBSP = '\u202f';
const minor = (text: string, currency: string, locale: string) => {
  const r = parseMoney(text, currency, locale);
  return r.ok ? r.minor : r.problem;
};

describe('parseMoney: the locale\'s own separators', () => {
  it('reads a comma decimal in fr-CA and a point decimal in en-US as the same amount', () => {
    expect(minor('12,50', 'usd', 'fr-CA')).toBe(1250);
    expect(minor('12.50', 'usd', 'en-US')).toBe(1250);
    expect(minor('12,5', 'usd', 'fr-CA')).toBe(1250);
    expect(minor('20', 'usd', 'fr-CA')).toBe(2000);
    expect(minor('1.234,5', 'eur', 'de-DE')).toBe(123450);
  });

  it('reads what the screen itself shows back to the same amount', () => {
    for (const locale of ['en-US', 'fr-CA', 'fr-FR', 'de-DE', 'de-CH', 'en-IN', 'ja-JP']) {
      for (const cents of [0, 5, 1250, 123456, 98765432]) {
        expect([locale, minor(formatMoney(cents, 'usd', { locale }), 'usd', locale)]).toEqual([locale, cents]);
        expect([locale, minor(formatAmount(cents, 'usd', locale, true), 'usd', locale)]).toEqual([locale, cents]);
      }
    }
  });

  it('reads full-width digits and signs (a Japanese input method\'s) as ASCII, and no superscript or fraction as a digit', () => {
    expect(minor('１２．５０', 'usd', 'ja-JP')).toBe(1250);
    expect(minor('１，２３４．５０', 'usd', 'ja-JP')).toBe(123450);
    expect(minor('１２，５０', 'usd', 'fr-CA')).toBe(1250);
    expect(minor('１\u3000２３４，５０', 'usd', 'fr-CA')).toBe(123450);
    expect(parseMoney('－５．００', 'usd', 'en-US', { allowNegative: true })).toEqual({ ok: true, minor: -500 });
    expect(minor('￥１，２３４', 'jpy', 'ja-JP')).toBe(1234);
    expect(minor('12²', 'usd', 'en-US')).toBe('not_an_amount');
    expect(parsePercent('８．８７５％', 'ja-JP', 3)).toEqual({ ok: true, percent: 8.875 });
  });

  it('"1,234" is a thousand in en-US, and refused as ambiguous in fr-CA (1 234, or 1,23 mistyped?)', () => {
    expect(minor('1,234', 'usd', 'en-US')).toBe(123400);
    const fr = parseMoney('1,234', 'usd', 'fr-CA');
    expect(fr).toMatchObject({ ok: false, problem: 'ambiguous' });
    expect(!fr.ok && fr.message).toContain('12,50');
  });

  it('refuses "12,50" in en-US instead of reading 1250 dollars', () => {
    expect(parseMoney('12,50', 'usd', 'en-US')).toMatchObject({ ok: false, problem: 'ambiguous' });
    expect(minor('12,345.6', 'usd', 'en-US')).toBe(1234560);
  });

  it('refuses "0,500" in en-US instead of reading 500 dollars: no thousands group follows a lone zero', () => {
    for (const typed of ['0,500', '0,001', '00,100', '0,250.00', '0,999']) expect(parseMoney(typed, 'usd', 'en-US'), typed).toMatchObject({ ok: false, problem: 'ambiguous' });
    expect(parseMoney('0 500', 'usd', 'fr-CA')).toMatchObject({ ok: false });
    expect(minor('1,000', 'usd', 'en-US')).toBe(100000);
    expect(minor('0.50', 'usd', 'en-US')).toBe(50);
  });

  it('refuses a separator the locale does not use: "." in fr-CA, "1.234,5" in fr-CA and en-US', () => {
    expect(parseMoney('12.50', 'usd', 'fr-CA')).toMatchObject({ ok: false, problem: 'ambiguous' });
    expect(parseMoney('1.234', 'usd', 'fr-CA')).toMatchObject({ ok: false, problem: 'ambiguous' });
    expect(parseMoney('1.234,5', 'usd', 'fr-CA')).toMatchObject({ ok: false, problem: 'ambiguous' });
    expect(parseMoney('1.234,5', 'usd', 'en-US')).toMatchObject({ ok: false });
  });

  it('takes spaces, no-break spaces and narrow no-break spaces as thousands groups, only where groups go', () => {
    expect(minor('1 234,50', 'usd', 'fr-CA')).toBe(123450);
    expect(minor(`1${NBSP}234,50`, 'usd', 'fr-CA')).toBe(123450);
    expect(minor(`1${NNBSP}234,50`, 'usd', 'fr-CA')).toBe(123450);
    expect(minor('1 234.50', 'usd', 'en-US')).toBe(123450);
    expect(minor('1 234 567', 'usd', 'fr-CA')).toBe(123456700);
    expect(parseMoney('12 50', 'usd', 'fr-CA')).toMatchObject({ ok: false });
    expect(parseMoney('1 2345', 'usd', 'fr-CA')).toMatchObject({ ok: false });
  });

  it('strips the currency as the locale writes it', () => {
    expect(minor('12,50 $ US', 'usd', 'fr-CA')).toBe(1250);
    expect(minor(`12,50${NBSP}$${NBSP}US`, 'usd', 'fr-CA')).toBe(1250);
    expect(minor('$1,020.05', 'usd', 'en-US')).toBe(102005);
    expect(minor('USD 5', 'usd', 'en-US')).toBe(500);
    expect(parseMoney('12 apples', 'usd', 'en-US')).toMatchObject({ ok: false, problem: 'not_an_amount' });
  });

  it('refuses negative amounts unless asked to take them', () => {
    expect(parseMoney('-5', 'usd', 'en-US')).toMatchObject({ ok: false, problem: 'negative' });
    expect(parseMoney('−5,00', 'usd', 'fr-CA')).toMatchObject({ ok: false, problem: 'negative' });
    expect(parseMoney('($5.00)', 'usd', 'en-US')).toMatchObject({ ok: false, problem: 'negative' });
    expect(parseMoney('-5.25', 'usd', 'en-US', { allowNegative: true })).toEqual({ ok: true, minor: -525 });
  });

  it('refuses more decimals than the currency has', () => {
    expect(parseMoney('12.5055', 'usd', 'en-US')).toMatchObject({ ok: false, problem: 'too_many_decimals' });
    // Three digits after the decimal point could be a thousands group written the other way round.
    expect(parseMoney('12.505', 'usd', 'en-US')).toMatchObject({ ok: false, problem: 'ambiguous' });
    expect(parseMoney('12,5055', 'usd', 'fr-CA')).toMatchObject({ ok: false, problem: 'too_many_decimals' });
    expect(parseMoney('', 'usd', 'en-US')).toMatchObject({ ok: false, problem: 'empty' });
    expect(parseMoney('99999999999', 'usd', 'en-US')).toMatchObject({ ok: false, problem: 'too_large' });
  });

  it('says three decimals after a lone zero are too many, not two amounts: "0,035" is no thousands group in any locale', () => {
    for (const [typed, locale] of [['0,035', 'fr-CA'], ['0.035', 'en-US'], ['0,035', 'de-DE']] as const) {
      const r = parseMoney(typed, 'usd', locale);
      expect(r, `${typed} in ${locale}`).toMatchObject({ ok: false, problem: 'too_many_decimals' });
      expect(!r.ok && r.message).toMatch(/^USD amounts have at most 2 decimals\./);
    }
    // After 1 to 999 it could still be a thousand written the other locale's way.
    expect(parseMoney('1,035', 'usd', 'fr-CA')).toMatchObject({ ok: false, problem: 'ambiguous' });
    expect(parseMoney('0,5', 'usd', 'fr-CA')).toEqual({ ok: true, minor: 50 });
  });

  it('currencies with no minor digits (JPY) and three (KWD)', () => {
    expect(minorDigits('jpy')).toBe(0);
    expect(minorDigits('KWD')).toBe(3);
    expect(minor('1,234', 'jpy', 'en-US')).toBe(1234);
    expect(minor('1 234', 'jpy', 'fr-CA')).toBe(1234);
    expect(parseMoney('12.5', 'jpy', 'en-US')).toMatchObject({ ok: false, problem: 'too_many_decimals' });
    expect(parseMoney('1.234', 'jpy', 'en-US')).toMatchObject({ ok: false, problem: 'ambiguous' });
    expect(minor('1.234', 'kwd', 'en-US')).toBe(1234);
    expect(minor('1,5', 'kwd', 'fr-CA')).toBe(1500);
    expect(minor('1,234', 'kwd', 'en-US')).toBe(1234000);
    expect(parseMoney('1.2345', 'kwd', 'en-US')).toMatchObject({ ok: false, problem: 'too_many_decimals' });
  });
});

describe('formatMoney', () => {
  it('respects each currency\'s minor digits', () => {
    expect(formatMoney(123456, 'usd', { locale: 'en-US' })).toBe('$1,234.56');
    expect(formatMoney(1234, 'jpy', { locale: 'en-US' })).toBe('¥1,234');
    expect(formatMoney(1234, 'kwd', { locale: 'en-US' }).replace(/\s/g, ' ')).toBe('KWD 1.234');
    expect(formatMoney(1250, 'usd', { locale: 'fr-CA' }).replace(/\s/g, ' ')).toBe('12,50 $ US');
  });

  it('never prints a negative zero', () => {
    expect(formatMoney(-0, 'usd', { locale: 'en-US' })).toBe('$0.00');
    expect(formatMoney(-0, 'usd', { locale: 'fr-CA' })).not.toMatch(/[-−]/);
    expect(formatMoney(-350, 'usd', { locale: 'en-US' })).toBe('-$3.50');
  });

  it('the reference API\'s strings stay as they were: en-US, narrow symbol', () => {
    expect(formatMoney(2618500, 'cad', { locale: 'en-US', display: 'narrowSymbol' })).toBe('$26,185.00');
  });
});

describe('cashFarAboveDue', () => {
  it('asks about 1 250.00 handed over for 12.50, not about a 100 note for a coffee', () => {
    expect(cashFarAboveDue(125000, 1250, 'usd')).toBe(true);
    expect(cashFarAboveDue(10000, 450, 'usd')).toBe(false);
    expect(cashFarAboveDue(2000, 1250, 'usd')).toBe(false);
    expect(cashFarAboveDue(50000, 2500, 'usd')).toBe(true);
    expect(cashFarAboveDue(12500, 1250, 'jpy')).toBe(true);
    expect(cashFarAboveDue(1250, 1250, 'usd')).toBe(false);
  });
});

describe('parsePercent', () => {
  it('reads a discount percentage the locale\'s way', () => {
    expect(parsePercent('12,5', 'fr-CA')).toEqual({ ok: true, percent: 12.5 });
    expect(parsePercent('12.5 %', 'en-US')).toEqual({ ok: true, percent: 12.5 });
    expect(parsePercent('10', 'fr-CA')).toEqual({ ok: true, percent: 10 });
    expect(parsePercent('12.5', 'fr-CA')).toMatchObject({ ok: false });
    expect(parsePercent('150', 'en-US')).toEqual({ ok: false, message: 'A percentage is at most 100.' });
    expect(parsePercent('9,975', 'fr-CA')).toMatchObject({ ok: false });
  });

  it('reads a tax rate with three decimals (Québec QST 9,975 %, GST and QST 14,975 %, New York City 8.875%)', () => {
    expect(parsePercent('9,975', 'fr-CA', 3)).toEqual({ ok: true, percent: 9.975 });
    expect(parsePercent('14,975 %', 'fr-CA', 3)).toEqual({ ok: true, percent: 14.975 });
    expect(parsePercent('8.875', 'en-US', 3)).toEqual({ ok: true, percent: 8.875 });
    expect(parsePercent('13', 'en-US', 3)).toEqual({ ok: true, percent: 13 });
    expect(parsePercent('14,9755', 'fr-CA', 3)).toMatchObject({ ok: false });
    expect(parsePercent('100,001', 'fr-CA', 3)).toEqual({ ok: false, message: 'A percentage is at most 100.' });
  });
});

describe('whatever is formatted in a locale reads back in it (ar-EG, fr-CH, de-CH, en-IN, en-US, de-DE)', () => {
  const LOCALES = ['ar-EG', 'fr-CH', 'de-CH', 'en-IN', 'en-US', 'de-DE', 'fa-IR', 'it-CH'];
  const VALUES = [0, 1, 5, 50, 99, 100, 1250, 8482, 12345, 123456, 150075, 1234567, 12345678, 98765432, 999999999];
  const back = (text: string, currency: string, locale: string) => {
    const r = parseMoney(text, currency, locale, { allowNegative: true });
    return r.ok ? r.minor : `${r.problem}: ${r.message}`;
  };

  it('formatMoney, and formatAmount with and without grouping, parse to the same minor units, negatives too', () => {
    for (const locale of LOCALES) {
      for (const cents of VALUES.flatMap((v) => (v ? [v, -v] : [v]))) {
        for (const text of [formatMoney(cents, 'usd', { locale }), formatAmount(cents, 'usd', locale), formatAmount(cents, 'usd', locale, true)]) {
          expect([locale, text, back(text, 'usd', locale)]).toEqual([locale, text, cents]);
        }
      }
    }
  });

  it('so do other currencies and their minor digits (EGP, CHF, INR, EUR, JPY, KWD)', () => {
    for (const [currency, locale] of [['egp', 'ar-EG'], ['chf', 'fr-CH'], ['chf', 'de-CH'], ['inr', 'en-IN'], ['eur', 'de-DE'], ['jpy', 'ar-EG'], ['kwd', 'ar-EG'], ['kwd', 'fr-CH']] as const) {
      for (const minor of [1, 1250, 123456, 98765432].flatMap((v) => [v, -v])) {
        for (const text of [formatMoney(minor, currency, { locale }), formatAmount(minor, currency, locale), formatAmount(minor, currency, locale, true)]) {
          expect([locale, currency, text, back(text, currency, locale)]).toEqual([locale, currency, text, minor]);
        }
      }
    }
  });

  it('ar-EG: Arabic-Indic digits, its decimal and group separators, Latin digits with them, bidi marks', () => {
    expect(minor('١٢٫٥٠', 'usd', 'ar-EG')).toBe(1250);
    expect(minor('١٢٣٬٤٥٦٫٧٨', 'usd', 'ar-EG')).toBe(12345678);
    expect(minor('12٫50', 'usd', 'ar-EG')).toBe(1250);
    expect(minor('٨٤٫٨٢', 'usd', 'ar-EG')).toBe(8482);
    expect(minor('١٥٠٠٫٧٥', 'usd', 'ar-EG')).toBe(150075);
    expect(minor('٢٫٧٥', 'usd', 'ar-EG')).toBe(275);
    expect(minor('\u200f١٢٫٥٠\u00a0US$', 'usd', 'ar-EG')).toBe(1250);
    expect(minor('\u2067١٢٫٥٠\u2069', 'usd', 'ar-EG')).toBe(1250);
    expect(parseMoney('\u061c-١٢٫٥٠', 'usd', 'ar-EG', { allowNegative: true })).toEqual({ ok: true, minor: -1250 });
    // Extended Arabic-Indic digits (fa-IR, ur) read alike, in any locale.
    expect(minor('۱۲٫۵۰', 'usd', 'fa-IR')).toBe(1250);
    expect(minor('۱۲٫۵۰', 'usd', 'ar-EG')).toBe(1250);
    // The message's example is one that reads.
    const refused = parseMoney('abc', 'usd', 'ar-EG');
    expect(refused).toMatchObject({ ok: false, problem: 'not_an_amount' });
    const example = !refused.ok && /such as (.+)\.$/.exec(refused.message)?.[1];
    expect(example).toBe('١٢٫٥٠');
    expect(minor(example as string, 'usd', 'ar-EG')).toBe(1250);
    // Still refused where it could mean two amounts: "٬" groups thousands in ar-EG.
    expect(parseMoney('١٢٬٥٠', 'usd', 'ar-EG')).toMatchObject({ ok: false, problem: 'ambiguous' });
  });

  it('fr-CH: cents after "." as money is shown, or "," as plain numbers are; apostrophes and spaces group', () => {
    expect(minor('1 234.56 $US', 'usd', 'fr-CH')).toBe(123456);
    expect(minor(`1${NNBSP}234.56`, 'usd', 'fr-CH')).toBe(123456);
    expect(minor('12.50', 'usd', 'fr-CH')).toBe(1250);
    expect(minor('12,50', 'usd', 'fr-CH')).toBe(1250);
    expect(minor('1590,07', 'usd', 'fr-CH')).toBe(159007);
    expect(minor('1590.07', 'usd', 'fr-CH')).toBe(159007);
    expect(minor('1’234.50', 'usd', 'fr-CH')).toBe(123450);
    expect(minor("1'234,50", 'usd', 'fr-CH')).toBe(123450);
    // A thousand written with "." or ",", or both in one amount: which is the decimal?
    expect(parseMoney('1.234', 'usd', 'fr-CH')).toMatchObject({ ok: false, problem: 'ambiguous' });
    expect(parseMoney('1,234', 'usd', 'fr-CH')).toMatchObject({ ok: false, problem: 'ambiguous' });
    expect(parseMoney('1,234.50', 'usd', 'fr-CH')).toMatchObject({ ok: false, problem: 'ambiguous' });
    expect(parseMoney('1.234,50', 'usd', 'fr-CH')).toMatchObject({ ok: false, problem: 'ambiguous' });
  });

  it('de-CH: the Swiss apostrophe, typed straight or curly, and spaces group thousands', () => {
    expect(minor('1’234.50', 'chf', 'de-CH')).toBe(123450);
    expect(minor("1'234.50", 'chf', 'de-CH')).toBe(123450);
    expect(minor('1 234.50', 'chf', 'de-CH')).toBe(123450);
    expect(minor('CHF 1’234.50', 'chf', 'de-CH')).toBe(123450);
    expect(parseMoney('12,50', 'chf', 'de-CH')).toMatchObject({ ok: false, problem: 'ambiguous' });
  });

  it('keeps refusing what is truly ambiguous: "12.50" in de-DE, "12,50" in en-US and en-IN', () => {
    expect(parseMoney('12.50', 'eur', 'de-DE')).toMatchObject({ ok: false, problem: 'ambiguous' });
    expect(parseMoney('12,50', 'usd', 'en-US')).toMatchObject({ ok: false, problem: 'ambiguous' });
    expect(parseMoney('12,50', 'inr', 'en-IN')).toMatchObject({ ok: false, problem: 'ambiguous' });
    expect(minor('12,34,567.50', 'inr', 'en-IN')).toBe(123456750);
    expect(minor('1’234.50', 'usd', 'en-US')).toBe(123450);
  });

  it('percentages, three-decimal quantities and tax rates read the same way', () => {
    expect(parsePercent('١٢٫٥', 'ar-EG')).toEqual({ ok: true, percent: 12.5 });
    expect(parsePercent('٥', 'ar-EG', 3)).toEqual({ ok: true, percent: 5 });
    expect(parsePercent('١٢٫٥٪', 'ar-EG')).toEqual({ ok: true, percent: 12.5 });
    expect(parsePercent('٩٫٩٧٥', 'ar-EG', 3)).toEqual({ ok: true, percent: 9.975 });
    expect(parsePercent('12.5', 'fr-CH')).toEqual({ ok: true, percent: 12.5 });
    expect(parsePercent('12,5 %', 'fr-CH')).toEqual({ ok: true, percent: 12.5 });
    expect(parsePercent(new Intl.NumberFormat('ar-EG', { style: 'percent', maximumFractionDigits: 1 }).format(0.125), 'ar-EG')).toEqual({ ok: true, percent: 12.5 });
  });
});
