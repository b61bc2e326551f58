/**
 * Text columns: string fields of a document (dot paths such as `data.view`) that a collection
 * asks to be kept beside the document JSON, each in its own TEXT column, instead of inside it.
 *
 * Why: a field that is itself pre-rendered JSON (an export rendering) costs twice when it sits
 * inside the document JSON: every quote is escaped on write and unescaped by JSON.parse on every
 * read, and the parse of a 2 KB escaped string is most of what reading such a document costs. In
 * its own column the text is stored as it is and comes back from SQLite as a ready string; only
 * the small rest of the document is parsed.
 *
 * The document JSON keeps a `null` in the field's place (so the key order of the document is the
 * same after a round trip) and the column holds the string. A column that is NULL means the field
 * was not a string (absent, null, or another type) and the JSON holds it as it was.
 */

export type TextPath = readonly string[];

export function parseTextPaths(paths: readonly string[] | undefined): TextPath[] {
  return (paths ?? []).map((p) => p.split('.'));
}

type Obj = Record<string, unknown>;

const isObject = (value: unknown): value is Obj => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A shallow copy of `value` with the string at `path` replaced by null, or `text: null` when there is none. */
function detach(value: unknown, path: TextPath, at: number): { value: unknown; text: string | null } {
  const key = path[at]!;
  if (!isObject(value) || !Object.hasOwn(value, key)) {
    return { value, text: null };
  }
  const child = value[key];
  if (at === path.length - 1) {
    return typeof child === 'string' ? { value: { ...value, [key]: null }, text: child } : { value, text: null };
  }
  const inner = detach(child, path, at + 1);
  return inner.text === null ? { value, text: null } : { value: { ...value, [key]: inner.value }, text: inner.text };
}

/**
 * Splits a document into what goes into the JSON column and the text columns' values. The
 * document itself is not modified (it belongs to the caller and to RxDB's change events).
 */
export function detachTexts<T>(doc: T, paths: readonly TextPath[]): { rest: T; texts: Array<string | null> } {
  let rest: unknown = doc;
  const texts: Array<string | null> = [];
  for (const path of paths) {
    const split = detach(rest, path, 0);
    rest = split.value;
    texts.push(split.text);
  }
  return { rest: rest as T, texts };
}

/** Puts the text columns' values (`row[offset + i]` for path i) back into a freshly parsed document, in place. */
export function attachTexts(doc: unknown, paths: readonly TextPath[], row: ReadonlyArray<unknown>, offset: number): void {
  for (let i = 0; i < paths.length; i++) {
    const text = row[offset + i];
    if (typeof text === 'string') {
      attachAt(doc, paths[i]!, text);
    }
  }
}

/** Sets the field at `path`, whose parents the parsed document has (its JSON holds a null there). */
export function attachAt(doc: unknown, path: TextPath, value: unknown): void {
  let target = doc as Obj;
  for (let at = 0; at < path.length - 1; at++) {
    target = target[path[at]!] as Obj;
  }
  target[path[path.length - 1]!] = value;
}
