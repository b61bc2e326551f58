import type { Bidi, EmbeddingLevels } from 'bidi-js';
import type LineBreakerClass from 'linebreak';
import { FontChain, pdfFontsDir, winAnsi, type FontFile } from './pdf-fonts';

/** How text is set: its size in points, Helvetica's face, and colour. */
export interface TextStyle {
  size: number;
  face?: Face;
  color?: string;
}
export type Face = 'regular' | 'bold' | 'oblique';

/** Where text goes: its left edge and top (the document's x and y when left out), the column's width. */
export interface TextBox {
  x?: number;
  y?: number;
  width: number;
  align?: 'left' | 'right' | 'center';
  /** false: one line per "\n" however long (footers, amounts), never a new page. */
  lineBreak?: boolean;
}

/** Where a character no font draws is reported, once a process per character. */
export interface GlyphLog {
  warn(details: object, message: string): void;
}

const STANDARD: Record<Face, string> = { regular: 'Helvetica', bold: 'Helvetica-Bold', oblique: 'Helvetica-Oblique' };
/** Helvetica's ascender (its AFM, the same in the three faces): every font's baseline on a line is Helvetica's. */
const ASCENT = 0.718;
/** The stroke that thickens a bundled font's glyphs where the style is bold (the fonts are shipped in one weight). */
const BOLD_STROKE = 0.03;

interface Kit {
  chain: FontChain;
  LineBreaker: typeof LineBreakerClass;
  bidi: Bidi;
}

let loading: Promise<Kit> | undefined;

/** fontkit, the line breaker and the bidi algorithm, loaded with the first document like pdfkit itself. */
export function loadTextKit(): Promise<Kit> {
  loading ??= Promise.all([import('fontkit'), import('linebreak'), import('bidi-js')]).then(([fontkit, linebreak, bidi]) => ({
    chain: new FontChain(fontkit, pdfFontsDir),
    LineBreaker: linebreak.default,
    bidi: bidi.default(),
  }));
  return loading;
}

/** Characters reported as drawn by no font, so the log says it once, not on every document. */
const reported = new Set<number>();

/**
 * A string made ready to set: NFC (an accent typed apart is the accented letter Helvetica has),
 * and for each UTF-16 unit the font that draws it, null for Helvetica. A character no font has
 * is replaced by its code point, "[U+13E3]", so it is visibly missing rather than turned into
 * another character or nothing.
 */
interface Prepared {
  text: string;
  fonts: Array<FontFile | null>;
  /** Set when the text holds right-to-left characters (bidi levels, computed on first use). */
  rtl: boolean;
  levels?: EmbeddingLevels;
}

const PLAIN = /^[\x20-\x7e\n]*$/;
const RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;
/** Marks, joiners and selectors: drawn by the font of the letter they belong to when it has them. */
const ATTACHED = /^[\p{M}\u200c\u200d]$/u;
const SPACE = /^\p{Zs}$/u;
const NO_BREAK = /^[\u2007\u202f]$/;
/** Format characters (zero-width space, direction marks, ...) and variation selectors: nothing to draw when no font has them. */
const INVISIBLE = /^[\p{Cf}\p{Cc}\ufe00-\ufe0f\u{e0100}-\u{e01ef}]$/u;

/** Text set with Helvetica and, for the characters it lacks, the bundled fonts, on one document. */
export class PdfText {
  private readonly registered = new Set<string>();
  /** Widths in em of the runs measured on this document, by font. */
  private readonly widths = new Map<FontFile, Map<string, number>>();

  constructor(
    readonly doc: PDFKit.PDFDocument,
    private readonly kit: Kit,
    private readonly log?: GlyphLog,
  ) {}

  /**
   * Draws `text` in the box: wrapped to its width at the places UAX #14 allows (spaces, between
   * CJK characters, ...), a word longer than a line cut between characters; each line aligned;
   * a line that would pass the page's bottom margin starts a new page. Leaves the document's y
   * below the text, its x at the box's left, and its font Helvetica in the style (for moveDown).
   */
  text(text: string, box: TextBox, style: TextStyle): this {
    const { doc } = this;
    const x = box.x ?? doc.x;
    let y = box.y ?? doc.y;
    const p = this.prepare(text);
    const lineHeight = this.lineHeight(style);
    for (const [start, end] of this.lines(p, box, style)) {
      if (box.lineBreak !== false && y + lineHeight > doc.page.maxY() && y > doc.page.margins.top) {
        doc.addPage();
        y = doc.page.margins.top;
      }
      this.drawLine(p, start, end, x, y, box, style);
      y += lineHeight;
    }
    doc.font(STANDARD[style.face ?? 'regular']).fontSize(style.size);
    doc.x = x;
    doc.y = y;
    return this;
  }

  /** How tall `text` is set in a column `width` wide. */
  heightOf(text: string, width: number, style: TextStyle): number {
    return this.lines(this.prepare(text), { width }, style).length * this.lineHeight(style);
  }

  /** The lines `text` is cut into in a column `width` wide, each with the spaces or "\n" it ends with. */
  wrap(text: string, width: number, style: TextStyle): string[] {
    const p = this.prepare(text);
    return this.lines(p, { width }, style).map(([start, end]) => p.text.slice(start, end));
  }

  private lineHeight(style: TextStyle): number {
    return this.doc.font(STANDARD[style.face ?? 'regular']).fontSize(style.size).currentLineHeight(true);
  }

  private prepare(raw: string): Prepared {
    const text = raw.normalize('NFC').replace(/\r\n?/g, '\n').replace(/\t/g, ' ');
    if (PLAIN.test(text)) return { text, fonts: new Array<null>(text.length).fill(null), rtl: false };
    const order = this.kit.chain.cjkOrder(text);
    let out = '';
    const fonts: Array<FontFile | null> = [];
    let previous: FontFile | null = null;
    for (const c of text) {
      const cp = c.codePointAt(0)!;
      let font: FontFile | null | undefined;
      if (c === '\n' || winAnsi(cp)) font = null;
      else if (previous && ATTACHED.test(c) && previous.font.hasGlyphForCodePoint(cp)) font = previous;
      else font = this.kit.chain.fileFor(cp, order);
      if (font === undefined && SPACE.test(c)) {
        // A width of space (Intl puts U+202F in French amounts) that no font has: a space it is.
        out += NO_BREAK.test(c) ? '\u00a0' : ' ';
        fonts.push(null);
        previous = null;
        continue;
      }
      if (font === undefined) {
        if (INVISIBLE.test(c)) continue;
        this.missing(cp);
        const mark = `[${codePoint(cp)}]`;
        out += mark;
        for (let i = 0; i < mark.length; i++) fonts.push(null);
        previous = null;
        continue;
      }
      out += c;
      for (let i = 0; i < c.length; i++) fonts.push(font);
      previous = font;
    }
    spacesInside(out, fonts);
    return { text: out, fonts, rtl: RTL.test(out) };
  }

  private missing(cp: number): void {
    if (!this.log || reported.has(cp)) return;
    reported.add(cp);
    const code = codePoint(cp);
    this.log.warn({ code_point: code }, `PDF: no font draws ${code}; it is printed as [${code}]`);
  }

  /** Lines as [start, end) of the prepared text, the greedy way pdfkit wraps. */
  private lines(p: Prepared, box: Pick<TextBox, 'width' | 'lineBreak'>, style: TextStyle): Array<[number, number]> {
    const { text } = p;
    const out: Array<[number, number]> = [];
    if (box.lineBreak === false) {
      let start = 0;
      for (const line of text.split('\n')) {
        out.push([start, start + line.length]);
        start += line.length + 1;
      }
      return out;
    }
    const width = box.width;
    const breaker = new this.kit.LineBreaker(text);
    let start = 0;
    let used = 0;
    let last = 0;
    for (let bk = breaker.nextBreak(); bk; bk = breaker.nextBreak()) {
      const end = bk.position;
      const w = this.measure(p, last, end, style);
      if (used + w <= width) used += w;
      else if (w <= width) {
        if (last > start) out.push([start, last]);
        start = last;
        used = w;
      } else {
        // Longer than a line by itself: as many characters as fit on each.
        for (const { index, segment } of graphemes.segment(text.slice(last, end))) {
          const at = last + index;
          const gw = this.measure(p, at, at + segment.length, style);
          if (used + gw > width && at > start) {
            out.push([start, at]);
            start = at;
            used = 0;
          }
          used += gw;
        }
      }
      if (bk.required && end > start) {
        out.push([start, end]);
        start = end;
        used = 0;
      }
      last = end;
    }
    if (start < text.length) out.push([start, text.length]);
    return out;
  }

  /** The width of text[start, end) as drawn: each font's run measured by that font. */
  private measure(p: Prepared, start: number, end: number, style: TextStyle): number {
    let width = 0;
    for (let i = start; i < end; ) {
      let j = i + 1;
      while (j < end && p.fonts[j] === p.fonts[i]) j++;
      width += this.width(p.text.slice(i, j), p.fonts[i] ?? null, style);
      i = j;
    }
    return width;
  }

  private width(s: string, font: FontFile | null, style: TextStyle): number {
    if (!font) return this.doc.font(STANDARD[style.face ?? 'regular']).fontSize(style.size).widthOfString(s);
    // Shaping is most of the cost of a line, and wrapping measures each word more than once.
    let widths = this.widths.get(font);
    if (!widths) this.widths.set(font, (widths = new Map()));
    let em = widths.get(s);
    if (em === undefined) widths.set(s, (em = font.font.layout(s, []).advanceWidth / font.font.unitsPerEm));
    return em * style.size;
  }

  private drawLine(p: Prepared, start: number, end: number, x: number, top: number, box: TextBox, style: TextStyle): void {
    while (end > start && /\s/.test(p.text[end - 1]!)) end--;
    if (end <= start) return;
    const runs = p.rtl ? this.visualRuns(p, start, end) : this.logicalRuns(p, start, end);
    const widths = runs.map((r) => this.width(r.text, r.font, style));
    const lineWidth = widths.reduce((s, w) => s + w, 0);
    let cx = x + (box.align === 'right' ? box.width - lineWidth : box.align === 'center' ? (box.width - lineWidth) / 2 : 0);
    const baseline = top + ASCENT * style.size;
    runs.forEach((run, i) => {
      this.drawRun(run, cx, baseline, widths[i]!, style);
      cx += widths[i]!;
    });
  }

  private drawRun(run: { text: string; font: FontFile | null }, x: number, baseline: number, width: number, style: TextStyle): void {
    const { doc } = this;
    const color = style.color ?? '#000';
    // The width measured already: pdfkit would shape the run once more to find it.
    const placed = { lineBreak: false, baseline: 'alphabetic', textWidth: width } as PDFKit.Mixins.TextOptions;
    if (!run.font) {
      doc.font(STANDARD[style.face ?? 'regular']).fontSize(style.size).fillColor(color).text(run.text, x, baseline, placed);
      return;
    }
    if (!this.registered.has(run.font.key)) {
      doc.registerFont(run.font.key, run.font.font as never);
      this.registered.add(run.font.key);
    }
    doc.font(run.font.key).fontSize(style.size).fillColor(color);
    // Laid out whole (features given): pdfkit otherwise shapes word by word, and a right-to-left
    // run of several words came out with its words in left-to-right order.
    const options: PDFKit.Mixins.TextOptions = { ...placed, features: [] };
    if (style.face === 'bold') {
      doc.save().lineWidth(style.size * BOLD_STROKE).strokeColor(color);
      doc.text(run.text, x, baseline, { ...options, fill: true, stroke: true });
      doc.restore();
    } else doc.text(run.text, x, baseline, options);
  }

  private logicalRuns(p: Prepared, start: number, end: number): Array<{ text: string; font: FontFile | null }> {
    const runs: Array<{ text: string; font: FontFile | null }> = [];
    for (let i = start; i < end; ) {
      let j = i + 1;
      while (j < end && p.fonts[j] === p.fonts[i]) j++;
      runs.push({ text: p.text.slice(i, j), font: p.fonts[i] ?? null });
      i = j;
    }
    return runs;
  }

  /**
   * The line's runs left to right as the Unicode bidi algorithm orders them (each paragraph's
   * direction from its first strong letter, as a browser's dir="auto"). fontkit turns a run of a
   * right-to-left script around itself after shaping it; any other run whose order differs from
   * the one fontkit gives it is turned here, mirrored characters swapped.
   */
  private visualRuns(p: Prepared, start: number, end: number): Array<{ text: string; font: FontFile | null }> {
    const { bidi } = this.kit;
    p.levels ??= bidi.getEmbeddingLevels(p.text);
    const levels = p.levels.levels;
    const order = Array.from({ length: end - start }, (_, k) => start + k);
    for (const segment of bidi.getReorderSegments(p.text, p.levels, start, end - 1)) {
      const [from, to] = segment as [number, number];
      order.splice(from - start, to - from + 1, ...order.slice(from - start, to - start + 1).reverse());
    }
    const groups: Array<{ min: number; max: number; last: number; font: FontFile | null; level: number }> = [];
    for (const i of order) {
      const g = groups.at(-1);
      const font = p.fonts[i] ?? null;
      if (g && g.font === font && g.level === levels[i] && Math.abs(i - g.last) === 1) {
        g.min = Math.min(g.min, i);
        g.max = Math.max(g.max, i);
        g.last = i;
      } else groups.push({ min: i, max: i, last: i, font, level: levels[i]! });
    }
    return groups.map((g) => {
      const text = p.text.slice(g.min, g.max + 1);
      const rtl = g.level % 2 === 1;
      const turnedByFontkit = g.font !== null && g.font.font.layout(text, []).direction === 'rtl';
      if (rtl === turnedByFontkit) return { text, font: g.font };
      const chars = [...text].reverse();
      return { text: (rtl ? chars.map((c) => bidi.getMirroredCharacter(c) ?? c) : chars).join(''), font: g.font };
    });
  }
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const codePoint = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Spaces between two characters of one bundled font set in that font, not Helvetica: a phrase of
 * Arabic or Hebrew is then one run, shaped and turned around whole, and a reader copying it finds
 * the spaces between its words.
 */
function spacesInside(text: string, fonts: Array<FontFile | null>): void {
  const space = (i: number) => fonts[i] === null && (text[i] === ' ' || text[i] === '\u00a0');
  for (let i = 0; i < text.length; i++) {
    if (!space(i)) continue;
    let j = i;
    while (j < text.length && space(j)) j++;
    const font = fonts[i - 1];
    if (font && font === fonts[j] && font.font.hasGlyphForCodePoint(0x20) && font.font.hasGlyphForCodePoint(0xa0)) fonts.fill(font, i, j);
    i = j;
  }
}
