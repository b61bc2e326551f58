/**
 * SQLite compares TEXT as UTF-8 bytes, JavaScript compares strings by UTF-16
 * code units. The two orders disagree as soon as a string holds a character
 * above U+FFFF (UTF-8: F0.., UTF-16: a D800–DFFF surrogate) next to one in
 * U+E000–U+FFFF (UTF-8: EE/EF.., UTF-16: E000–FFFF). RxDB builds its index
 * strings and query bounds in JavaScript order (its INDEX_MAX is U+FFFF), so
 * every key SQLite orders or range-scans is stored as a BLOB whose memcmp
 * order is UTF-16 code-unit order.
 *
 * The encoding works per code unit: 0x00–0x7F is one byte (itself), every
 * other unit is three bytes 0x80|(u>>12), (u>>6)&0x3F, u&0x3F. Multi-byte
 * units start at 0x80, above every single-byte one, and compare numerically
 * among themselves, so the first differing unit decides exactly as in
 * JavaScript, and a prefix sorts first. Surrogates are plain units here, which
 * is the point. Index strings are mostly ASCII (ids, zero-padded numbers,
 * space padding), so keys stay half the size of UTF-16BE, which matters for
 * B-tree fan-out and write amplification.
 */
// Without the u flag this matches single UTF-16 code units, surrogates included.
const NON_ASCII = /[\u0080-\uffff]/;

export function encodeKey(value: string): Buffer {
  if (!NON_ASCII.test(value)) {
    return Buffer.from(value, 'latin1');
  }
  const out = Buffer.allocUnsafe(value.length * 3);
  let at = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit < 0x80) {
      out[at++] = unit;
    } else {
      out[at++] = 0x80 | (unit >> 12);
      out[at++] = (unit >> 6) & 0x3f;
      out[at++] = unit & 0x3f;
    }
  }
  return out.subarray(0, at);
}

/** Inverse of encodeKey; used by tests and debugging tools, not on hot paths. */
export function decodeKey(bytes: Uint8Array): string {
  let value = '';
  for (let i = 0; i < bytes.length; ) {
    const first = bytes[i]!;
    if (first < 0x80) {
      value += String.fromCharCode(first);
      i += 1;
    } else {
      value += String.fromCharCode(((first & 0x0f) << 12) | (bytes[i + 1]! << 6) | bytes[i + 2]!);
      i += 3;
    }
  }
  return value;
}
