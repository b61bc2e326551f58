import { useEffect, useMemo, useRef, useState, type ReactNode, type RefObject } from 'react';
import { tableFeatures, useTable, type ColumnDef, type RowData } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { money } from '../format';
import './datatable.css';

const features = tableFeatures({});
/** The narrowest a column other than money gets, in characters, unless the list names its own. */
const TEXT_MIN = 8;
export type Columns<T extends RowData> = Array<ColumnDef<typeof features, T>>;

/**
 * DataTable's `numeric` for money columns: each one's longest amount as this screen writes it
 * ("1 234 567,89 $ US" in fr-CA), or its header with the sort mark if longer.
 */
export function moneyWidths<T extends RowData>(columns: Columns<T>, rows: T[], amounts: Record<string, (row: T) => [cents: number | null | undefined, currency: string | null | undefined]>): Record<string, number> {
  const widths: Record<string, number> = {};
  for (const [id, get] of Object.entries(amounts)) {
    const header = String(columns.find((c) => (c.id ?? (c as { accessorKey?: string }).accessorKey) === id)?.header ?? '');
    widths[id] = Math.max(header.length + 2, ...rows.map((r) => { const [cents, currency] = get(r); return money(cents ?? 0, (currency ?? 'usd').toUpperCase()).length; }));
  }
  return widths;
}

/** The canvas that measures text with the page's own font (null where there is none: tests without a DOM). */
let pen: CanvasRenderingContext2D | null | undefined;

/** Columns whose text is never cut, by id: the text a row shows, or the text of the pill it shows. */
export type Whole<T> = Readonly<Record<string, ((row: T) => string) | { pill: (row: T) => string }>>;

interface TextStyle {
  bold?: boolean;
  /** In em of the row's font. */
  size?: number;
  spacing?: number;
  upper?: boolean;
}

/**
 * A measure of texts in a row's `ch`, in the page's font: an identifier's capitals ("CHQ-C-FR-12")
 * and a header's bold capitals are wider than 1ch each, so counting characters cut them mid-word.
 */
function ruler(): (text: string, style?: TextStyle) => number {
  if (pen === undefined) pen = typeof document === 'undefined' ? null : document.createElement('canvas').getContext('2d');
  const ctx = pen;
  if (!ctx) return (text) => text.length;
  const root = getComputedStyle(document.documentElement);
  const px = parseFloat(root.fontSize) || 16;
  ctx.font = `${px}px ${root.fontFamily}`;
  const zero = ctx.measureText('0').width || px / 2;
  return (text, style = {}) => {
    const size = px * (style.size ?? 1);
    const drawn = style.upper ? text.toUpperCase() : text;
    ctx.font = `${style.bold ? 700 : 400} ${size}px ${root.fontFamily}`;
    return Math.ceil((ctx.measureText(drawn).width + (style.spacing ?? 0) * size * drawn.length) / zero);
  };
}

/**
 * The narrowest each column may get so that what must stay whole does: every header's longest word
 * (bold capitals at 0.85em, as styles.css draws .bo-head) and, for the columns in `whole`, every
 * row's text (dates, identifiers), whose cut "20 nov. 2…" or "CHQ-C-…" reads as another value.
 */
function wholeWidths<T extends RowData>(headers: Record<string, string>, rows: T[], whole: Whole<T> = {}): Record<string, number> {
  const measure = ruler();
  const widths: Record<string, number> = {};
  for (const [id, header] of Object.entries(headers)) {
    widths[id] = Math.max(0, ...header.split(/\s+/).map((w) => measure(w, { bold: true, size: 0.85, spacing: 0.03, upper: true }))) + 2;
  }
  for (const [id, text] of Object.entries(whole)) {
    // A pill (.pill, styles.css) is 0.8em semibold (measured bold) with 1.6rem of padding and margin: 3ch.
    const width = typeof text === 'function' ? (r: T) => measure(text(r)) + 1 : (r: T) => measure(text.pill(r), { bold: true, size: 0.8 }) + 3;
    widths[id] = Math.max(widths[id] ?? 0, ...rows.map(width));
  }
  return widths;
}

/**
 * Every row is its own grid (rows are virtual), so a money column's width comes from the longest
 * amount of all the rows (tabular digits are 1ch wide), not from each row's content. The other
 * columns share what is left, none narrower than its minimum: who a row is stays readable, and a
 * table wider than its card scrolls sideways inside it (head and rows together, `minWidth`).
 */
function columnWidths(ids: string[], numeric: Readonly<Record<string, number>> = {}, minWidths: Readonly<Record<string, number>> = {}) {
  const chars = ids.map((id) => (numeric[id] !== undefined ? Math.max(numeric[id], 6) + 1 : (minWidths[id] ?? TEXT_MIN)));
  const template = ids.map((id, i) => (numeric[id] !== undefined ? `${chars[i]}ch` : `minmax(${chars[i]}ch, 1fr)`)).join(' ');
  const minWidth = `calc(${chars.reduce((a, b) => a + b, 0)}ch + ${ids.length - 1} * 0.6rem + 2rem)`;
  return { template, minWidth };
}

/** The grid's columns: each as wide as its money, its minimum, or what it must show whole, whichever is widest. */
function fittedWidths<T extends RowData>(ids: string[], headers: string[], rows: T[], given: { numeric?: Readonly<Record<string, number>>; minWidths?: Readonly<Record<string, number>>; whole?: Whole<T> }) {
  const need = wholeWidths(Object.fromEntries(ids.map((id, i) => [id, headers[i] ?? ''])), rows, given.whole);
  const text = Object.fromEntries(ids.map((id) => [id, Math.max(given.minWidths?.[id] ?? TEXT_MIN, need[id] ?? 0)]));
  const money = given.numeric ? Object.fromEntries(Object.entries(given.numeric).map(([id, w]) => [id, Math.max(w, need[id] ?? 0)])) : undefined;
  return columnWidths(ids, money, text);
}

/** What of a table wider than its card is out of view: the headers of the columns cut or hidden at its right, and whether it is scrolled from its start. */
interface Sideways {
  hidden: string[];
  scrolled: boolean;
}

/**
 * Measured on every scroll and resize: a scroll bar that shows only while scrolling (macOS, Electron)
 * says nothing of columns past the card's edge, so the list names them (TableFoot) and shades the edge.
 * `headers`: the column headers of the scrolled table (a list's grid, or a plain table's head row).
 */
function useSideways(box: RefObject<HTMLDivElement | null>, layout: unknown[], headers = '.bo-head [role="columnheader"]'): Sideways {
  const [seen, setSeen] = useState<Sideways>({ hidden: [], scrolled: false });
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => {
      const edge = el.getBoundingClientRect().right;
      const hidden = [...el.querySelectorAll<HTMLElement>(headers)]
        .filter((h) => h.getBoundingClientRect().right > edge + 1)
        .map((h) => (h.textContent ?? '').replace(/[▲▼]/g, '').trim());
      const scrolled = el.scrollLeft > 0;
      setSeen((was) => (was.scrolled === scrolled && was.hidden.join('|') === hidden.join('|') ? was : { hidden, scrolled }));
    };
    measure();
    el.addEventListener('scroll', measure, { passive: true });
    const resized = new ResizeObserver(measure);
    resized.observe(el);
    if (el.firstElementChild) resized.observe(el.firstElementChild);
    return () => {
      el.removeEventListener('scroll', measure);
      resized.disconnect();
    };
  }, layout);
  return seen;
}

/**
 * A list's rows, drawn virtually (only the rows in view exist in the page), with a sortable header
 * where the list says so, "Load more" at the end when the engine has more, and Enter or a click to
 * open a row.
 */
export function DataTable<T extends RowData>(props: {
  label: string;
  columns: Columns<T>;
  rows: T[];
  onOpen?: (row: T) => void;
  more?: (() => void) | null;
  loading?: boolean;
  sort?: { by: string; desc: boolean; set(by: string): void; sortable: string[] };
  empty?: ReactNode;
  /** Money columns by id, each with its longest text in characters: that wide, right-aligned (datatable.css). */
  numeric?: Readonly<Record<string, number>>;
  /** Other columns by id, the narrowest each may get in characters (TEXT_MIN if not named). */
  minWidths?: Readonly<Record<string, number>>;
  /** Columns whose text is never cut (dates, identifiers), by id with the text a row shows: as wide as the widest. */
  whole?: Whole<T>;
}) {
  const table = useTable({ features, columns: props.columns, data: props.rows });
  const scroller = useRef<HTMLDivElement>(null);
  const rows = table.getRowModel().rows;
  const virtual = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => 44, overscan: 12 });
  const ids = table.getAllLeafColumns().map((c) => c.id);
  const isNum = (id: string) => props.numeric?.[id] !== undefined;
  const headers = table.getAllLeafColumns().map((c) => (typeof c.columnDef.header === 'string' ? c.columnDef.header : ''));
  // Measured again when the rows change: lists declare their columns, `minWidths` and `whole` once, outside the render.
  const { template, minWidth } = useMemo(
    () => fittedWidths(ids, headers, props.rows, props),
    [props.rows, props.columns, props.numeric, props.minWidths, props.whole],
  );
  return (
    <SidewaysCard label={props.label} layout={[template, minWidth]} foot={{ shown: rows.length, loading: props.loading, more: props.more }}>
      <div className="bo-table-wide" style={{ minWidth }}>
        {table.getHeaderGroups().map((group) => (
          <div className="bo-row bo-head" role="row" key={group.id} style={{ gridTemplateColumns: template }}>
            {group.headers.map((header) => {
              const id = header.column.id;
              const sortable = props.sort?.sortable.includes(id);
              const mark = props.sort?.by === id ? (props.sort.desc ? ' ▼' : ' ▲') : '';
              const sorted = props.sort?.by === id ? (props.sort.desc ? 'descending' : 'ascending') : undefined;
              // A sortable header is a button, so the keyboard can sort as the mouse does.
              return (
                <div role="columnheader" key={header.id} aria-sort={sorted} className={[sortable ? 'sortable' : '', isNum(id) ? 'bo-num' : ''].join(' ').trim() || undefined}>
                  {sortable ? (
                    <button type="button" className="bo-sort" onClick={() => props.sort!.set(id)}>
                      <table.FlexRender header={header} />
                      {mark}
                    </button>
                  ) : (
                    <table.FlexRender header={header} />
                  )}
                </div>
              );
            })}
          </div>
        ))}
        <div ref={scroller} className="bo-body">
          {rows.length === 0 && !props.loading && <p className="muted bo-empty">{props.empty ?? 'Nothing here yet.'}</p>}
          <div style={{ height: virtual.getTotalSize(), position: 'relative' }}>
            {virtual.getVirtualItems().map((item) => {
              const row = rows[item.index]!;
              return (
                <div
                  key={row.id}
                  role="row"
                  tabIndex={0}
                  className="bo-row"
                  style={{ gridTemplateColumns: template, position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${item.start}px)`, height: item.size }}
                  onClick={() => props.onOpen?.(row.original)}
                  onKeyDown={(e) => e.key === 'Enter' && props.onOpen?.(row.original)}
                >
                  {row.getAllCells().map((cell) => (
                    <div role="cell" key={cell.id} className={isNum(cell.column.id) ? 'bo-num' : undefined}>
                      <table.FlexRender cell={cell} />
                    </div>
                  ))}
                </div>
              );
            })}
          </div>
        </div>
      </div>
    </SidewaysCard>
  );
}

/** The card a list scrolls sideways in, its edge shaded while columns are past it (datatable.css), its foot below the rows. */
function SidewaysCard(props: { label: string; layout: unknown[]; foot: { shown: number; loading?: boolean | undefined; more?: (() => void) | null | undefined }; children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  const sideways = useSideways(box, props.layout);
  return (
    <div className="bo-table-frame" data-more={sideways.hidden.length ? 'right' : undefined}>
      <div ref={box} className="bo-table card" role="table" aria-label={props.label}>
        {props.children}
        <TableFoot {...props.foot} sideways={sideways} box={box} />
      </div>
    </div>
  );
}

/** The columns past the card's edge, named, and a button that scrolls to them; once scrolled, one back to the first. */
function SidewaysButton({ sideways, box }: { sideways: Sideways; box: RefObject<HTMLDivElement | null> }) {
  if (sideways.hidden.length > 0) {
    return (
      <button type="button" className="bo-sideways" onClick={() => box.current?.scrollTo({ left: box.current.scrollWidth, behavior: 'smooth' })}>
        More columns: {sideways.hidden.join(', ')} →
      </button>
    );
  }
  if (!sideways.scrolled) return null;
  return (
    <button type="button" className="bo-sideways" onClick={() => box.current?.scrollTo({ left: 0, behavior: 'smooth' })}>
      ← First columns
    </button>
  );
}

/**
 * A plain table (a few rows, no sorting) in a card: wider than the card, it scrolls inside it and
 * says so as the lists do, the edge shaded and the columns past it named, not a figure cut at the
 * edge ("US$11,") with nothing to say more is there.
 */
export function TableScroll({ children }: { children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  const sideways = useSideways(box, [], ':scope > table > thead > tr > th');
  return (
    <>
      <div className="bo-table-frame" data-more={sideways.hidden.length ? 'right' : undefined}>
        <div ref={box} className="bo-table-scroll">
          {children}
        </div>
      </div>
      {(sideways.hidden.length > 0 || sideways.scrolled) && (
        <div className="bo-foot">
          <SidewaysButton sideways={sideways} box={box} />
        </div>
      )}
    </>
  );
}

/** How many are shown, then `children`, and "Load more" while the engine has more: every list's foot. */
export function ListFoot({ shown, loading, more, children }: { shown: number; loading?: boolean | undefined; more?: (() => void) | null | undefined; children?: ReactNode }) {
  return (
    <div className="bo-foot">
      <span className="muted">{shown} shown</span>
      {children}
      {loading && <span className="muted">Loading…</span>}
      {more && !loading && (
        <button type="button" onClick={more}>
          Load more
        </button>
      )}
    </div>
  );
}

/** A table's foot: the columns past the card's edge too (a button scrolls to them and back). */
function TableFoot({ sideways, box, ...foot }: { shown: number; loading?: boolean | undefined; more?: (() => void) | null | undefined; sideways: Sideways; box: RefObject<HTMLDivElement | null> }) {
  return (
    <ListFoot {...foot}>
      <SidewaysButton sideways={sideways} box={box} />
    </ListFoot>
  );
}
