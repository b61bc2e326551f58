/**
 * A number written as text, read one way whatever the writer's language: digits with an optional
 * leading '-', and for a decimal one '.' between digits (2, 2.5, -1, 0.125). Anything else is not
 * a number here, never guessed at: 0x10, 1e3, Infinity, 1,5, 1 000, +2, '' (Number() would read
 * the first three as 16, 1000 and Infinity, and '' as 0). Both ways text becomes a number use it:
 * the API's body coercion (src/server/coercion.ts, "500" where an integer is expected) and the
 * import rules reading a file's cells (src/engine/receivables/fields.ts).
 */
export const WHOLE_NUMBER_TEXT = /^-?[0-9]+$/;
export const DECIMAL_NUMBER_TEXT = /^-?[0-9]+(\.[0-9]+)?$/;

/** The number `text` writes (see above), or undefined when it writes none; a decimal only when `decimals`. */
export function numberFromText(text: string, decimals: boolean): number | undefined {
  return (decimals ? DECIMAL_NUMBER_TEXT : WHOLE_NUMBER_TEXT).test(text) ? Number(text) : undefined;
}
