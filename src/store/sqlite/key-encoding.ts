/**
 * SQLite compares TEXT as UTF-8 bytes, JavaScript compares strings by UTF-16
 * code units. The two orders disagree as soon as a string holds a character
 * above U+FFFF (UTF-8: F0.., UTF-16: a D800–DFFF surrogate) next to one in
 * U+E000–U+FFFF (UTF-8: EE/EF.., UTF-16: E000–FFFF). RxDB builds its index
 * strings and query bounds in JavaScript order (its INDEX_MAX is U+FFFF), so
 * every key SQLite orders or range-scans is stored as the big-endian UTF-16
 * code units in a BLOB: memcmp over big-endian 16-bit units is code-unit
 * order, and a shorter prefix sorts first exactly as in JavaScript.
 * Lone surrogates survive the round trip because Node copies code units as-is.
 */
export function encodeKey(value: string): Buffer {
  const bytes = Buffer.from(value, 'utf16le');
  return bytes.swap16();
}

export function decodeKey(bytes: Uint8Array): string {
  const copy = Buffer.from(bytes);
  return copy.swap16().toString('utf16le');
}
