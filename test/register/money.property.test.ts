import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { cashSuggestions, mulDivHalfUp, priceLine, returnedPart, roundHalfUp, TAX_SCALE } from '../../src/engine/register/money';

describe('register arithmetic', () => {
  it('rounds half up, exactly', () => {
    expect(roundHalfUp(2475, 100)).toBe(25); // 24.75
    expect(roundHalfUp(2450, 100)).toBe(25); // 24.5 goes up
    expect(roundHalfUp(2449, 100)).toBe(24);
    expect(mulDivHalfUp(495, 5000, TAX_SCALE)).toBe(25);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e12 }), fc.integer({ min: 1, max: 1e6 }), (n, d) => {
        const r = roundHalfUp(n, d);
        // r is the nearest integer to n/d, ties upward: |n − r·d| ≤ d/2, and a tie lands above.
        expect(Math.abs(n - r * d) * 2).toBeLessThanOrEqual(d);
        if ((n - r * d) * 2 === d) throw new Error('a tie rounded down');
      }),
      { numRuns: 300 },
    );
  });

  it('a line is gross − discount = net, + tax on the net = total; the discount never exceeds the gross', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9_999_999 }),
        fc.integer({ min: 1, max: 999 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 1, max: 10_000 }),
        (unit, qty, rate, bp) => {
          const l = priceLine(unit, qty, { kind: 'percent', basis_points: bp }, rate);
          expect(l.gross_cents).toBe(unit * qty);
          expect(l.discount_cents).toBeLessThanOrEqual(l.gross_cents);
          expect(l.net_cents).toBe(l.gross_cents - l.discount_cents);
          expect(l.tax_cents).toBe(mulDivHalfUp(l.net_cents, rate, TAX_SCALE));
          expect(l.total_cents).toBe(l.net_cents + l.tax_cents);
          expect(Number.isSafeInteger(l.total_cents)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('returning a line in parts, in any split, gives back exactly its amount, each part within bounds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: 12 }), (amount, parts) => {
        const quantity = parts.reduce((a, b) => a + b, 0);
        let before = 0;
        let given = 0;
        for (const q of parts) {
          const part = returnedPart(amount, quantity, before, q);
          expect(part).toBeGreaterThanOrEqual(0);
          before += q;
          given += part;
          expect(given).toBeLessThanOrEqual(amount);
        }
        expect(given).toBe(amount);
      }),
      { numRuns: 300 },
    );
  });

  it('suggests the exact amount first, then larger round amounts', () => {
    expect(cashSuggestions(1689)).toEqual([1689, 1700, 2000, 5000, 10000]);
    expect(cashSuggestions(2000)).toEqual([2000, 5000, 10000]);
    expect(cashSuggestions(0)).toEqual([]);
  });
});
