import { readFileSync } from 'node:fs';
import AjvModule, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * Checks an answer against the response schema the public reference document gives for the same
 * operation and status: what a client generated from that document parses. OpenAPI 3.0 schemas
 * (`nullable`), components resolved in the reference document itself.
 */
const REFERENCE = '/work/shared/spec/reference/api-reference-1.3.35.openapi.json';
/** The ecommerce API's document: its paths are relative to /api/v2. */
export const ECOMMERCE_REFERENCE = '/work/shared/spec/reference/ecommerce-api-2.0.0.openapi.json';

type Doc = { paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>; components: unknown };
const docs = new Map<string, Doc>();
const Ajv = (AjvModule as unknown as { default?: typeof AjvModule }).default ?? AjvModule;
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true, validateSchema: false });
(addFormats as unknown as { default: (a: unknown) => void }).default(ajv);
const compiled = new Map<string, ValidateFunction | null>();

/**
 * What a generated client enforces: a field the schema does not list as required may be null
 * (clients type it optional), and the reference's enums and formats of free text are descriptions
 * (its own answers do not keep to them: `avs_response` is `M`, not `M (V_FULL_MATCH)`).
 */
function asClientsRead(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(asClientsRead);
  if (!node || typeof node !== 'object') return node;
  const o = { ...(node as Record<string, unknown>) };
  delete o.enum;
  delete o.format;
  delete o.pattern;
  delete o.maxLength;
  if (o.properties && typeof o.properties === 'object') {
    const required = new Set(Array.isArray(o.required) ? (o.required as string[]) : []);
    o.properties = Object.fromEntries(
      Object.entries(o.properties as Record<string, unknown>).map(([k, v]) => {
        const read = asClientsRead(v) as Record<string, unknown>;
        return [k, required.has(k) || !read || typeof read !== 'object' ? read : { anyOf: [read, { type: 'null' }] }];
      }),
    );
  }
  for (const [k, v] of Object.entries(o)) if (k !== 'properties' && v && typeof v === 'object') o[k] = asClientsRead(v);
  return o;
}

export function referenceValidator(method: string, path: string, status: number, file = REFERENCE): ValidateFunction | null {
  // A few of the reference's schemas say `properties: null` (an object of any fields).
  if (!docs.has(file)) docs.set(file, JSON.parse(readFileSync(file, 'utf8'), (k, v: unknown) => (k === 'properties' && v === null ? undefined : v)) as Doc);
  const doc = docs.get(file)!;
  const key = `${file} ${method} ${path} ${status}`;
  if (!compiled.has(key)) {
    const schema = doc.paths[path]?.[method.toLowerCase()]?.responses?.[String(status)]?.content?.['application/json']?.schema;
    compiled.set(key, schema ? ajv.compile(asClientsRead({ ...(schema as object), components: doc.components }) as object) : null);
  }
  return compiled.get(key)!;
}

/** Problems of `body` against the reference's schema (empty when it matches or the reference has none). */
export function referenceProblems(method: string, path: string, status: number, body: unknown, file = REFERENCE): string[] {
  const validate = referenceValidator(method, path, status, file);
  if (!validate) return [`the reference has no schema for ${method} ${path} ${status}`];
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

/**
 * The property names the reference document lists for a component schema, or for the schema at a
 * dot path inside it (`Settlement.batches.fees`: array items and $refs are followed), so a test
 * can assert every one of them is a key of an answer.
 */
export function referenceKeys(path: string, file = REFERENCE): string[] {
  if (!docs.has(file)) docs.set(file, JSON.parse(readFileSync(file, 'utf8'), (k, v: unknown) => (k === 'properties' && v === null ? undefined : v)) as Doc);
  const doc = docs.get(file)! as unknown as { components: { schemas: Record<string, Schema> } };
  type Schema = { $ref?: string; type?: string; items?: Schema; properties?: Record<string, Schema>; allOf?: Schema[]; additionalProperties?: Schema };
  const resolve = (s: Schema | undefined): Schema | undefined => {
    while (s?.$ref) s = s.$ref.split('/').slice(1).reduce<unknown>((a, k) => (a as Record<string, unknown>)[k], doc) as Schema;
    if (s?.type === 'array') return resolve(s.items);
    if (s?.allOf) return { properties: Object.assign({}, ...s.allOf.map((x) => resolve(x)?.properties ?? {})) as Record<string, Schema> };
    return s;
  };
  const [name, ...rest] = path.split('.');
  let schema = resolve(doc.components.schemas[name!]);
  for (const key of rest) schema = resolve(key === '*' ? schema?.additionalProperties : schema?.properties?.[key]);
  const keys = Object.keys(schema?.properties ?? {});
  if (!keys.length) throw new Error(`the reference lists no properties at ${path}`);
  return keys;
}
