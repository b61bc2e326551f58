import { existsSync, readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as FontkitModule from 'fontkit';
import type { Font, FontCollection } from 'fontkit';

type Fontkit = typeof FontkitModule;

/** What the standard fonts' WinAnsi encoding holds beyond Latin-1 (Windows-1252's 0x80-0x9F). */
const CP1252 = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

/**
 * Whether the standard Helvetica draws the character. Those keep Helvetica, the look every
 * document had before other scripts were drawn: a PDF viewer has it, so nothing is embedded for
 * a document in English, French or Spanish.
 */
export function winAnsi(cp: number): boolean {
  return (cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff) || CP1252.has(String.fromCodePoint(cp));
}

/**
 * The fonts shipped with the app (SIL Open Font License 1.1, in resources/pdf-fonts/: copied from
 * npm's @fontsource packages by scripts/vendor-pdf-fonts.mjs), in the order a character is looked
 * up: Noto Sans for Latin beyond WinAnsi, Cyrillic, Greek, Vietnamese and Devanagari; IBM Plex
 * Sans Arabic, then Noto Sans Arabic for the rarer letters; the Noto Sans of Hebrew, Thai, Bengali,
 * Tamil, Kannada, Malayalam, Georgian, Armenian, Khmer, Myanmar and Thaana; the four Noto Sans CJK
 * fonts, whose order a text can change (see `cjkOrder`); then symbols and emoji (Noto Emoji, drawn
 * in one colour). Each family splits its font into files by Unicode range (`unicode.json`), so a
 * document loads and embeds only the few files its characters are in.
 *
 * Plex before Noto for Arabic: Noto Sans Arabic draws ب ت ث ن ي (and others) as one dotless
 * letter plus dots, and a PDF maps a glyph back to one character only, so copying or searching
 * the text gave "ببب" for "بتث". Plex draws each letter with its own glyphs.
 */
const BEFORE_CJK = [
  'noto-sans',
  'ibm-plex-sans-arabic',
  'noto-sans-arabic',
  'noto-sans-hebrew',
  'noto-sans-thai',
  'noto-sans-bengali',
  'noto-sans-tamil',
  'noto-sans-kannada',
  'noto-sans-malayalam',
  'noto-sans-georgian',
  'noto-sans-armenian',
  'noto-sans-khmer',
  'noto-sans-myanmar',
  'noto-sans-thaana',
] as const;
export const CJK = ['noto-sans-jp', 'noto-sans-sc', 'noto-sans-tc', 'noto-sans-kr'] as const;
const AFTER_CJK = ['noto-sans-symbols-2', 'noto-emoji'] as const;
export type CjkFamily = (typeof CJK)[number];
/** Every bundled family, each a folder of resources/pdf-fonts/. */
export const FAMILIES: readonly string[] = [...BEFORE_CJK, ...CJK, ...AFTER_CJK];

/** One file of a font: the name a document registers it under, and the font. */
export interface FontFile {
  key: string;
  font: Font;
}

/** A bundled family: its files by Unicode range, read on first use. */
class Family {
  /** The files each code point is in (a few are in two: the Latin and the Cyrillic file both have U+0301). */
  private slices: Map<number, string[]> | undefined;
  private readonly files = new Map<string, FontFile>();

  constructor(
    private readonly fontkit: Fontkit,
    readonly id: string,
    private readonly dir: string,
  ) {}

  /** The file of this family that draws `cp`, if any. */
  fileFor(cp: number): FontFile | undefined {
    this.slices ??= readSlices(join(this.dir, 'unicode.json'));
    for (const slice of this.slices.get(cp) ?? []) {
      const file = this.file(slice);
      if (file.font.hasGlyphForCodePoint(cp)) return file;
    }
    return undefined;
  }

  private file(slice: string): FontFile {
    let file = this.files.get(slice);
    if (!file) {
      // WOFF, not WOFF2: fontkit reads WOFF2 glyphs, but its subsetter copies their transformed
      // outlines as they are, and the embedded glyphs came out blank.
      const path = join(this.dir, 'files', `${this.id}-${slice}-400-normal.woff`);
      file = { key: `${this.id}-${slice}`, font: ligaturesReadBackwards(single(this.fontkit.create(woffToSfnt(readFileSync(path))))) };
      this.files.set(slice, file);
    }
    return file;
  }
}

function readSlices(path: string): Map<number, string[]> {
  const bySlice = JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;
  const out = new Map<number, string[]>();
  for (const [name, list] of Object.entries(bySlice)) {
    // "[12]" is the 13th numbered file of a CJK font; "latin", "cyrillic", ... name the others.
    const slice = name.replace(/^\[(\d+)\]$/, '$1');
    for (const range of list.split(',')) {
      const [a, b] = range.trim().replace(/^U\+/i, '').split('-');
      for (let cp = parseInt(a!, 16); cp <= parseInt(b ?? a!, 16); cp++) {
        const slices = out.get(cp);
        if (slices) slices.push(slice);
        else out.set(cp, [slice]);
      }
    }
  }
  return out;
}

const single = (f: Font | FontCollection): Font => ('fonts' in f ? f.fonts[0]! : f);

/**
 * A WOFF file as the plain TrueType font it wraps, its tables inflated once by zlib. fontkit reads
 * WOFF itself, but inflates a table (in JavaScript) every time it reads from it: embedding the
 * glyphs of a page in Japanese took half a second a document.
 */
export function woffToSfnt(woff: Buffer): Buffer {
  if (woff.toString('latin1', 0, 4) !== 'wOFF') return woff;
  const count = woff.readUInt16BE(12);
  const tables = Array.from({ length: count }, (_, i) => {
    const at = 44 + 20 * i;
    const offset = woff.readUInt32BE(at + 4);
    const compressed = woff.readUInt32BE(at + 8);
    const length = woff.readUInt32BE(at + 12);
    const raw = woff.subarray(offset, offset + compressed);
    return { tag: woff.subarray(at, at + 4), checksum: woff.readUInt32BE(at + 16), data: compressed < length ? inflateSync(raw) : raw };
  });
  const header = Buffer.alloc(12 + 16 * count);
  woff.copy(header, 0, 4, 8);
  const power = 2 ** Math.floor(Math.log2(count));
  header.writeUInt16BE(count, 4);
  header.writeUInt16BE(power * 16, 6);
  header.writeUInt16BE(Math.log2(power), 8);
  header.writeUInt16BE(count * 16 - power * 16, 10);
  const parts: Buffer[] = [header];
  let offset = header.length;
  tables.forEach((t, i) => {
    const at = 12 + 16 * i;
    t.tag.copy(header, at);
    header.writeUInt32BE(t.checksum, at + 4);
    header.writeUInt32BE(offset, at + 8);
    header.writeUInt32BE(t.data.length, at + 12);
    const padded = (t.data.length + 3) & ~3;
    parts.push(t.data, Buffer.alloc(padded - t.data.length));
    offset += padded;
  });
  return Buffer.concat(parts);
}

/**
 * The font, its right-to-left ligatures mapped back to their characters last to first. A PDF
 * reader (poppler, pdf.js) puts a right-to-left line back in reading order by reversing its
 * characters, a ligature's with them: لا (lam-alef, one glyph) came back as ال, "السلام" as
 * "السالم". pdfkit maps each glyph to the characters fontkit says it draws; those are reversed
 * here, on a copy (fontkit shares its glyph objects between layouts).
 */
function ligaturesReadBackwards(font: Font): Font {
  const layout = font.layout.bind(font);
  font.layout = ((...args: Parameters<Font['layout']>) => {
    const run = layout(...args);
    if (run.direction === 'rtl') {
      run.glyphs = run.glyphs.map((g) => (g.codePoints.length > 1 ? Object.create(g, { codePoints: { value: [...g.codePoints].reverse() } }) : g));
    }
    return run;
  }) as Font['layout'];
  return font;
}

/**
 * Which font draws a character: the bundled families in order, the CJK ones in the order the text
 * asks for. Loaded once a process (the first PDF); the fonts' files are read as characters need them.
 */
export class FontChain {
  private readonly families: Map<string, Family>;

  constructor(fontkit: Fontkit, packageDir: (family: string) => string) {
    this.families = new Map(FAMILIES.map((id) => [id, new Family(fontkit, id, packageDir(id))]));
  }

  /** The first font that has a glyph for `cp`, or undefined when none of them has. */
  fileFor(cp: number, cjk: readonly CjkFamily[]): FontFile | undefined {
    for (const id of [...BEFORE_CJK, ...cjk, ...AFTER_CJK]) {
      const file = this.families.get(id)!.fileFor(cp);
      if (file) return file;
    }
    return undefined;
  }

  /**
   * The order the CJK fonts are tried for a text. Their Han characters are the same letters drawn
   * the way each country writes them, and each font holds a different selection of them: kana says
   * the text is Japanese and hangul Korean; otherwise the first font that has all its Han
   * characters draws them all (北京烤鸭 in the Chinese font, not three in the Japanese one and 鸭 in
   * the Chinese), Japanese first.
   */
  cjkOrder(text: string): readonly CjkFamily[] {
    const first = KANA.test(text) ? 'noto-sans-jp' : HANGUL.test(text) ? 'noto-sans-kr' : this.coveringAll(text);
    return first ? [first, ...CJK.filter((f) => f !== first)] : CJK;
  }

  private coveringAll(text: string): CjkFamily | undefined {
    const han = [...text].map((c) => c.codePointAt(0)!).filter((cp) => HAN.test(String.fromCodePoint(cp)));
    if (han.length === 0) return undefined;
    return CJK.find((id) => han.every((cp) => this.families.get(id)!.fileFor(cp)));
  }
}

let fontsRoot: string | undefined;

/**
 * Where a bundled family's files are: resources/pdf-fonts/<family>/, found by climbing from this
 * module, which runs from src/engine/ (tests, tsx), out/cli/ (`serve`, `admin`), out/main/chunks/
 * (the desktop app), and the same inside the packaged app's asar, which holds resources/ too.
 */
export function pdfFontsDir(family: string): string {
  if (!fontsRoot) {
    const start = dirname(fileURLToPath(import.meta.url));
    for (let dir = start; ; dir = dirname(dir)) {
      const candidate = join(dir, 'resources', 'pdf-fonts');
      if (existsSync(join(candidate, 'README.md'))) {
        fontsRoot = candidate;
        break;
      }
      if (dirname(dir) === dir) throw new Error(`resources/pdf-fonts not found above ${start}`);
    }
  }
  return join(fontsRoot, family);
}

const KANA = /[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]/;
const HANGUL = /[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]/;
const HAN = /^\p{Script=Han}$/u;
