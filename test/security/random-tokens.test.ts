import { describe, expect, it } from 'vitest';
import { randomIds, randomString, TOKEN_ALPHABET } from '../../src/engine/ids';

/** Pearson's chi-square statistic of letter counts against the uniform distribution. */
function chiSquare(counts: Map<string, number>, letters: string, total: number): number {
  const expected = total / letters.length;
  let sum = 0;
  for (const l of letters) sum += ((counts.get(l) ?? 0) - expected) ** 2 / expected;
  return sum;
}

describe('random tokens', () => {
  it('draws every letter of the 34-letter alphabet equally often (no modulo bias)', () => {
    const counts = new Map<string, number>();
    const tokens = 20_000;
    for (let i = 0; i < tokens; i++) {
      const token = randomIds.token();
      expect(token).toMatch(/^[0-9A-HJ-NP-Z]{16}$/);
      for (const c of token) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    // 33 degrees of freedom: 90 is beyond p = 1e-6 for a fair draw. Taking a byte modulo 34 favours
    // 18 letters 8:7, which puts the statistic near 1,400 at this size.
    expect(chiSquare(counts, TOKEN_ALPHABET, tokens * 16)).toBeLessThan(90);
  });

  it('throws away the bytes past the last whole multiple of the alphabet size', () => {
    // 34 * 7 = 238: bytes 238..255 would map onto the first 18 letters a second time.
    const feed = [255, 238, 0, 250, 33, 237, 17];
    let at = 0;
    const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => feed[at++ % feed.length]!));
    expect(randomString(TOKEN_ALPHABET, 4, bytes)).toBe(`0${TOKEN_ALPHABET[33]}${TOKEN_ALPHABET[237 % 34]}${TOKEN_ALPHABET[17]}`);
  });

  it('draws a 30-letter pairing alphabet uniformly too', () => {
    const letters = '23456789ABCDEFGHJKMNPQRSTVWXYZ';
    const counts = new Map<string, number>();
    const total = 200_000;
    const text = randomString(letters, total);
    for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(30);
    expect(chiSquare(counts, letters, total)).toBeLessThan(85);
  });
});
