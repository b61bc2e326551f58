import { describe, expect, it } from 'vitest';
import { typedText } from '../../src/shared/typed-text';

describe('typedText: one reading of every typed number', () => {
  it('reads full-width and Arabic-Indic digits and signs as ASCII and drops bidi marks, nothing else', () => {
    expect(typedText('３＊２００１')).toBe('3*2001');
    expect(typedText('٣*٤٠٠٢')).toBe('3*4002');
    expect(typedText('٩٤٣٩')).toBe('9439');
    expect(typedText('۱۲۳۴۵۶۷۸۹۰')).toBe('1234567890');
    expect(typedText('١٢٣٬٤٥٦٫٧٨')).toBe('123,456.78');
    expect(typedText('\u200e\u200f\u061c\u2066\u2067\u2068\u2069١٢٪')).toBe('12%');
    expect(typedText('12² ½ ج.م.')).toBe('12² ½ ج.م.');
  });
});
