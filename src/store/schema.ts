import type { RxJsonSchema } from 'rxdb';

/**
 * Watermarks are int64 on the wire. Inside we keep them as JS numbers: the sequence would need
 * 285 years at a million writes a second to pass 2^53, and RxDB's index encoding needs a bounded
 * number range.
 */
export const MAX_WATERMARK = Number.MAX_SAFE_INTEGER;

export const watermarkField = {
  type: 'number',
  minimum: 0,
  maximum: MAX_WATERMARK,
  multipleOf: 1,
} as const;

export const keyField = (maxLength: number) => ({ type: 'string', maxLength }) as const;

/** Every stored document: a primary `id`, its watermark, and indexed fields beside a free-form body. */
export interface StoredDoc {
  id: string;
  watermark: number;
  [field: string]: unknown;
}

/**
 * How a collection's rows are laid out in storage beyond its RxDB schema: given by the domain that
 * owns the documents (the store knows no field of a body), when the collection is created.
 */
export interface CollectionLayout {
  /**
   * Large string fields of the body (dot paths, e.g. `data.view`) that the storage keeps out of
   * the document JSON (our SQLite storage: a TEXT column each; others ignore it). Not part of the
   * RxDB schema, so changing it needs no schema version: the storage relays the rows out on open.
   */
  textColumns?: readonly string[];
  /**
   * Field lists that exports read without the rest of the document (Store.project). Our SQLite
   * storage keeps each in a column of its own, written with the document; others compute them
   * on read. Like textColumns, not part of the RxDB schema.
   */
  projections?: readonly (readonly string[])[];
}

/** Storage layouts by collection name (see CollectionLayout). */
export type StoreLayouts = Readonly<Record<string, CollectionLayout>>;

export interface CollectionDef extends CollectionLayout {
  name: string;
  schema: RxJsonSchema<StoredDoc>;
}

/**
 * The collections with the layouts their domains give. A layout for a collection that is not
 * there is a wiring mistake, and fails.
 */
export function withLayouts(defs: readonly CollectionDef[], layouts: StoreLayouts): CollectionDef[] {
  const names = new Set(defs.map((d) => d.name));
  for (const name of Object.keys(layouts)) if (!names.has(name)) throw new Error(`store layout for unknown collection ${name}`);
  return defs.map((def) => {
    const layout = layouts[def.name];
    if (!layout) return def;
    return { ...def, ...(layout.textColumns ? { textColumns: layout.textColumns } : {}), ...(layout.projections ? { projections: layout.projections } : {}) };
  });
}

/**
 * Builds a collection schema. Indexed fields must be declared (and are required, with '' or 0 as
 * the "none" value) because RxDB computes index keys from them; the record body lives in `data`.
 */
export function defineCollection(
  name: string,
  spec: {
    version?: number;
    fields: Record<string, { type: 'string'; maxLength: number } | typeof watermarkField | { type: 'number'; minimum: number; maximum: number; multipleOf: number } | { type: 'boolean' }>;
    indexes: string[][];
    idLength?: number;
    textColumns?: readonly string[];
    projections?: readonly (readonly string[])[];
  },
): CollectionDef {
  const properties: Record<string, unknown> = {
    id: keyField(spec.idLength ?? 128),
    watermark: watermarkField,
    ...spec.fields,
    data: { type: 'object' },
  };
  return {
    name,
    ...(spec.textColumns ? { textColumns: spec.textColumns } : {}),
    ...(spec.projections ? { projections: spec.projections } : {}),
    schema: {
      version: spec.version ?? 0,
      primaryKey: 'id',
      type: 'object',
      properties: properties as RxJsonSchema<StoredDoc>['properties'],
      required: Object.keys(properties),
      indexes: spec.indexes,
    },
  };
}
