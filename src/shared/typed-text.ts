/**
 * What a person typed where a number, a code or an amount is read, in the one form every reader
 * of numbers takes (money, percentages, quantities, cashier codes, scans, sale numbers):
 *
 * - Full-width forms as their ASCII ones: a Japanese, Chinese or Korean input method types
 *   "６１６０", "３＊２００１", "１２．５０" and the ideographic space, which look like the ASCII ones
 *   and were refused or dropped. Only the Fullwidth ASCII block (U+FF01–U+FF5E) and U+3000 are
 *   mapped, as NFKC maps them: NFKC itself also turns "²" into "2" and "½" into "1⁄2", so a stray
 *   superscript would silently become a digit of an amount, and the full-width yen sign (U+FFE5,
 *   how ja-JP writes JPY) is left for the money parser's own currency marks.
 * - Arabic-Indic digits (U+0660–0669, how ar-EG writes numbers) and Extended Arabic-Indic ones
 *   (U+06F0–06F9, fa-IR, ur) as 0-9; the Arabic decimal separator (U+066B) as ".", its thousands
 *   separator (U+066C) as "," and its percent sign (U+066A) as "%": "١٬٢٣٤٫٥٠" is "1,234.50".
 * - Bidirectional marks dropped (LRM, RLM, ALM, the isolates and embeddings): Intl writes them
 *   around signs and currencies in right-to-left locales ("؜-١٢٫٥٠"), and a copied amount keeps them.
 *
 * A locale's separators taken from Intl go through this too, so both sides are compared alike.
 */
export function typedText(text: string): string {
  return text.replace(/[\uff01-\uff5e\u3000\u0660-\u0669\u06f0-\u06f9\u066a-\u066c\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.charCodeAt(0);
    if (code === 0x3000) return ' ';
    if (code >= 0xff01) return String.fromCharCode(code - 0xfee0);
    if (code >= 0x0660 && code <= 0x0669) return String(code - 0x0660);
    if (code >= 0x06f0 && code <= 0x06f9) return String(code - 0x06f0);
    if (code === 0x066a) return '%';
    if (code === 0x066b) return '.';
    if (code === 0x066c) return ',';
    return '';
  });
}

