import { describe, expect, it } from 'vitest';
import { parseWholeNumber, typedDigits, typedNumber } from '../../src/renderer/src/format';

describe('the screens\' readers of whole numbers and digits-only fields', () => {
  it('read Arabic-Indic and full-width digits as 0-9 and drop bidi marks: a cashier code, a refund quantity, a line quantity', () => {
    expect(typedDigits('٩٤٣٩')).toBe('9439');
    expect(typedDigits('۹۴۳۹')).toBe('9439');
    expect(typedDigits('６１６０')).toBe('6160');
    expect(parseWholeNumber('١')).toBe(1);
    expect(parseWholeNumber('\u200f٢\u200f')).toBe(2);
    expect(parseWholeNumber('٢٠')).toBe(20);
    expect(typedNumber('\u2067٢\u2069')).toBe('2');
  });

  it('still read no fraction or grouped number as a whole one', () => {
    expect(parseWholeNumber('١٫٥')).toBeNull();
    expect(parseWholeNumber('1,5')).toBeNull();
    expect(parseWholeNumber('١٬٠٠٠')).toBeNull();
  });
});
