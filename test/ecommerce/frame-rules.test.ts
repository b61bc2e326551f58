import { describe, expect, it } from 'vitest';
import { abaValid, cvvLengthFor, expiryPassed, luhnValid } from '../../src/shared/payment-fields';
import { allowedFontUrls, sanitizeStyles } from '../../src/ecommerce-client/styles';
import { avsRefusal, orderOf, toMinor } from '../../src/engine/ecommerce/sales';
import { originAllowed } from '../../src/engine/ecommerce/settings';

/** The frame's field checks and style filter, the AVS rules and the sale's money, as pure functions. */
describe('payment field checks (frame and engine alike)', () => {
  it('checks Luhn, the ABA check digit, the security code length by brand and expiry', () => {
    expect(luhnValid('4895281000000006')).toBe(true);
    expect(luhnValid('4895281000000007')).toBe(false);
    expect(abaValid('122105278')).toBe(true);
    expect(abaValid('122105279')).toBe(false);
    expect(cvvLengthFor('341111597242000')).toBe(4);
    expect(cvvLengthFor('4895281000000006')).toBe(3);
    expect(expiryPassed(11, 2026, '2026-11-01')).toBe(false);
    expect(expiryPassed(10, 2026, '2026-11-01')).toBe(true);
  });
});

describe("the shop's styles", () => {
  it('keeps allowed properties on allowed selectors and drops anything that could load or escape', () => {
    const css = sanitizeStyles({
      input: { color: '#333', 'font-size': '14pt', 'background-image': 'url(https://evil.example/x)' },
      '#accountNo': { border: '1px solid red' },
      '#accountNo:focus': { outline: 'none' },
      'input[value^="4"]': { color: 'red' },
      '#secretThing': { color: 'red' },
      select: { color: 'red; } body { background: url(https://evil.example/)' },
      html: { 'font-family': 'DotGothic16' },
    });
    expect(css).toContain('input { color: #333; font-size: 14pt; }');
    expect(css).toContain('#accountNo { border: 1px solid red; }');
    expect(css).toContain('#accountNo:focus { outline: none; }');
    expect(css).toContain('html { font-family: DotGothic16; }');
    expect(css).not.toMatch(/url|value\^|secretThing|select/);
    expect(allowedFontUrls(['https://fonts.googleapis.com/css2?family=DotGothic16&display=swap', 'https://evil.example/font.css', 'https://fonts.googleapis.com/css2?family=a"><script>'])).toEqual([
      'https://fonts.googleapis.com/css2?family=DotGothic16&display=swap',
    ]);
  });
});

describe('AVS rules', () => {
  it("refuses what the session's rules name, on the sandbox's AVS codes", () => {
    expect(avsRefusal({ rejectAddressMismatch: true }, 'N')).toMatch(/street/);
    expect(avsRefusal({ rejectAddressMismatch: true }, 'Z')).toMatch(/street/);
    expect(avsRefusal({ rejectAddressMismatch: true }, 'A')).toBeNull();
    expect(avsRefusal({ rejectPostCodeMismatch: true }, 'A')).toMatch(/postal/);
    expect(avsRefusal({ rejectPostCodeMismatch: true }, 'Y')).toBeNull();
    expect(avsRefusal({ rejectUnknown: true }, 'U')).toMatch(/could not be checked/);
    expect(avsRefusal({ rejectUnknown: true }, null)).toMatch(/could not be checked/);
    expect(avsRefusal(undefined, 'N')).toBeNull();
  });
});

describe("a sale's money", () => {
  it('turns decimal lines into integer minor units, with the currency of the sale', () => {
    const address = { address1: '1 Main', city: 'X', postCode: '1', country: 'US' };
    const { input, total } = orderOf('O1', {
      orderNumber: 'SO1',
      currency: 'USD',
      billingAddress: address,
      shippingAddress: address,
      lines: [
        { number: 'A', description: 'a', price: 0.1, quantity: 3 },
        { number: 'B', description: 'b', price: 19.99, quantity: 1.5, discount: 0.5 },
        { number: 'C', description: 'c', price: 1, quantity: 0.285 },
      ],
      shippingAmount: 5.05,
      taxAmount: 1.45,
      discountAmount: 2.25,
    }, '2026-03-02');
    // 0.30 + (19.99 x 1.5 = 29.985, rounded to 29.99, less 0.50) + (1.00 x 0.285 = 0.285, 0.29: the
    // quantity as written, not its float) + 5.05 + 1.45 - 2.25
    expect(total).toBe(30 + 2949 + 29 + 505 + 145 - 225);
    expect(input.date).toBe('2026-03-02');
    expect(input.order_items?.[0]).toMatchObject({ unit_cost_cents: 10, amount_cents: 30 });
    expect(toMinor(1500, 'JPY', '/x')).toBe(1500);
    expect(() => toMinor(1.005, 'USD', '/amount')).toThrow(/more decimals/);
  });
});

describe('frame ancestors', () => {
  it('matches origins exactly, or any port where the setting says :*', () => {
    expect(originAllowed('http://localhost:5173', ['http://localhost:*'])).toBe(true);
    expect(originAllowed('http://localhost.evil.example:80', ['http://localhost:*'])).toBe(false);
    expect(originAllowed('https://shop.example', ['https://shop.example'])).toBe(true);
    expect(originAllowed('https://shop.example:8443', ['https://shop.example'])).toBe(false);
  });
});
