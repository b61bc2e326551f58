/**
 * Bounds on free-form values: the attributes a client may add beside a record's named fields
 * (a customer's or invoice's extra keys, an order's extended attributes). They are stored and
 * sent back in every export page that carries the record, so one record nested a thousand levels
 * deep would make those pages unreadable to the ERP's parser (Python's and Ruby's stop at about
 * 100 levels). Every importer checks them before anything is written.
 */

/** How deep one free-form value may nest (objects and arrays count a level each). */
export const ATTRIBUTE_MAX_DEPTH = 16;
/** How large one record's free-form values may be together, as JSON text (the notes fields' 64K). */
export const ATTRIBUTES_MAX_CHARS = 65_536;

export interface FreeFormProblem {
  field: string;
  code: 'attribute_too_deep' | 'attributes_too_large';
  message: string;
}

/** The first bound `values` break, or null. */
export function freeFormProblem(values: Record<string, unknown>): FreeFormProblem | null {
  for (const [key, value] of Object.entries(values)) {
    if (nestsDeeperThan(value, ATTRIBUTE_MAX_DEPTH)) return { field: key, code: 'attribute_too_deep', message: `nests deeper than ${ATTRIBUTE_MAX_DEPTH} levels` };
  }
  if (JSON.stringify(values).length > ATTRIBUTES_MAX_CHARS) {
    return { field: Object.keys(values)[0] ?? 'attributes', code: 'attributes_too_large', message: `and the other extra attributes take more than ${ATTRIBUTES_MAX_CHARS} characters as JSON` };
  }
  return null;
}

/** Walked level by level, never recursing, so any depth is safe to ask about. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  let level: unknown[] = [value];
  for (let depth = 0; level.length > 0; depth++) {
    const next: unknown[] = [];
    for (const v of level) {
      if (v === null || typeof v !== 'object') continue;
      if (depth >= max) return true;
      for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === 'object') next.push(child);
    }
    level = next;
  }
  return false;
}
