/**
 * What a person typed where a number, a code or an amount is read, with full-width forms read as
 * their ASCII ones: a Japanese, Chinese or Korean input method types "６１６０", "３＊２００１",
 * "１２．５０" and the ideographic space, which look like the ASCII ones and were refused or
 * dropped. Only the Fullwidth ASCII block (U+FF01–U+FF5E) and U+3000 are mapped, as NFKC maps
 * them: NFKC itself also turns "²" into "2" and "½" into "1⁄2", so a stray superscript would
 * silently become a digit of an amount, and the full-width yen sign (U+FFE5, how ja-JP writes
 * JPY) is left for the money parser's own currency marks.
 */
export function halfWidth(text: string): string {
  return text.replace(/[\uff01-\uff5e\u3000]/g, (c) => (c === '\u3000' ? ' ' : String.fromCharCode(c.charCodeAt(0) - 0xfee0)));
}
