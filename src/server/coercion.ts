import type { TSchema } from '@sinclair/typebox';
import { DECIMAL_NUMBER_TEXT, WHOLE_NUMBER_TEXT } from '../shared/number-text';
import { registeredComponents } from '../shared/schemas/components';

/**
 * Request bodies are coerced to their schemas before validation, the way the reference service
 * takes them: clients written against it send JSON numbers where it takes strings (ActiveMerchant
 * sends a US zip as `80803`), digit strings where it takes numbers (`"amount_cents": "500"`) and
 * `"true"`/`"false"` for flags. Only unambiguous values are converted, and only where the result
 * fits the field's own rules (pattern, enum, length, range); anything else is left as sent and
 * refused by validation. The rules, all driven by the TypeBox schemas:
 *
 * - a JSON number where a string is expected becomes its decimal text (`80803` -> `"80803"`), unless
 *   that text would need an exponent (`1e+30`);
 * - `true`/`false` where a string is expected becomes `"true"`/`"false"`;
 * - a string of digits (optional `-`) where an integer is expected becomes that integer, within
 *   JavaScript's safe integers; a decimal string (`"12.50"`) where a number is expected becomes it;
 * - `"true"`/`"false"` (exactly) where a boolean is expected become the booleans.
 *
 * - `null` for an optional field whose schema does not take null counts as not sent (generated
 *   clients send every field of a model, unset ones as null); where null means something (a
 *   field cleared), the schema takes it and it is kept.
 *
 * Never converted: empty or padded strings (`""`, `" 12"`), `"1e3"`, `"0x1F"`, numbers to
 * booleans or back, scalars to objects or arrays. A value already of an accepted type is kept as is.
 */

type Schema = TSchema & {
  $ref?: string;
  anyOf?: Schema[];
  allOf?: Schema[];
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
};

type Kind = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object';

const patterns = new Map<string, RegExp>();
function regex(source: string): RegExp {
  let r = patterns.get(source);
  if (!r) patterns.set(source, (r = new RegExp(source, 'u')));
  return r;
}

function resolve(schema: Schema): Schema {
  let s = schema;
  // A registered component is referenced by its $id (see shared/schemas/components.ts).
  for (let hops = 0; s.$ref && hops < 8; hops++) {
    const target = registeredComponents().get(s.$ref) as Schema | undefined;
    if (!target) break;
    s = target;
  }
  return s;
}

function kindOf(value: unknown): Kind {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as Kind;
}

function typesOf(s: Schema): string[] | null {
  if (s.type === undefined) return null;
  return Array.isArray(s.type) ? s.type : [s.type];
}

/** Whether a schema takes a value of this JSON kind at all (its constraints aside). */
function takesKind(schema: Schema, kind: Kind): boolean {
  const s = resolve(schema);
  if (s.anyOf) return s.anyOf.some((b) => takesKind(b, kind));
  if (s.allOf) return s.allOf.every((b) => takesKind(b, kind));
  const types = typesOf(s);
  if (!types) return s.const === undefined ? true : kindOf(s.const) === kind || (kind === 'integer' && kindOf(s.const) === 'number');
  return types.includes(kind) || (kind === 'integer' && types.includes('number'));
}

/** A converted scalar still has to meet the field's own rules, or it is not the value meant. */
function fits(s: Schema, value: string | number | boolean): boolean {
  if (s.const !== undefined && s.const !== value) return false;
  if (s.enum && !s.enum.includes(value)) return false;
  if (typeof value === 'string') {
    if (s.pattern && !regex(s.pattern).test(value)) return false;
    if (s.minLength !== undefined && value.length < s.minLength) return false;
    if (s.maxLength !== undefined && value.length > s.maxLength) return false;
  }
  if (typeof value === 'number') {
    if (s.minimum !== undefined && value < s.minimum) return false;
    if (s.maximum !== undefined && value > s.maximum) return false;
  }
  return true;
}

/** The value converted to what this (non-union) schema takes, or undefined when it cannot be. */
function convertScalar(s: Schema, value: unknown): unknown {
  const types = typesOf(s);
  if (!types) return undefined;
  for (const type of types) {
    let out: string | number | boolean | undefined;
    if (type === 'string' && typeof value === 'number' && DECIMAL_NUMBER_TEXT.test(String(value))) out = String(value);
    else if (type === 'string' && typeof value === 'boolean') out = String(value);
    else if (type === 'integer' && typeof value === 'string' && WHOLE_NUMBER_TEXT.test(value)) {
      const n = Number(value);
      if (Number.isSafeInteger(n)) out = n;
    } else if (type === 'number' && typeof value === 'string' && DECIMAL_NUMBER_TEXT.test(value)) {
      const n = Number(value);
      if (Number.isFinite(n) && (!WHOLE_NUMBER_TEXT.test(value) || Number.isSafeInteger(n))) out = n;
    } else if (type === 'boolean' && (value === 'true' || value === 'false')) out = value === 'true';
    if (out !== undefined && fits(s, out)) return out;
  }
  return undefined;
}

/** The branches of a union, flattened, in order. */
function branches(s: Schema): Schema[] {
  return (s.anyOf ?? []).flatMap((b) => {
    const r = resolve(b);
    return r.anyOf ? branches(r) : [r];
  });
}

type Coercer = (value: unknown) => unknown;
const KINDS: readonly Kind[] = ['null', 'boolean', 'integer', 'number', 'string', 'array', 'object'];
const plans = new WeakMap<Schema, Coercer>();

/**
 * The coercion of one schema, planned once (routes compile theirs when they are mounted) so a
 * request only walks its own body. Objects and arrays are changed in place (the request body keeps
 * its identity); a scalar is returned converted.
 */
export function coercer(schema: TSchema): Coercer {
  const s = resolve(schema as Schema);
  const known = plans.get(s);
  if (known) return known;
  // Registered schemas may refer to themselves: the entry exists before its body is planned.
  let impl: Coercer = (v) => v;
  const entry: Coercer = (v) => impl(v);
  plans.set(s, entry);
  impl = plan(s);
  return entry;
}

function plan(s: Schema): Coercer {
  if (s.allOf) {
    // Conditions (if/then) beside the schema's own fields: both are planned.
    const { allOf, ...own } = s;
    const parts = [...(own.type !== undefined || own.properties || own.anyOf ? [coercer(own as TSchema)] : []), ...allOf.map(coercer)];
    return (v) => parts.reduce((out, part) => part(out), v);
  }
  if (s.anyOf) {
    const options = branches(s);
    // Per JSON kind: the first branch taking it (its plan for containers, `null` for scalars kept as
    // sent), or undefined when no branch takes that kind and a conversion is tried instead.
    const taking = new Map<Kind, Coercer | null>();
    for (const kind of KINDS) {
      const b = options.find((o) => takesKind(o, kind));
      if (b) taking.set(kind, kind === 'object' || kind === 'array' ? coercer(b) : null);
    }
    return (v) => {
      const found = taking.get(kindOf(v));
      if (found !== undefined) return found === null ? v : found(v);
      for (const b of options) {
        const converted = convertScalar(b, v);
        if (converted !== undefined) return converted;
      }
      return v;
    };
  }
  const takes = new Set(KINDS.filter((kind) => takesKind(s, kind)));
  const properties = new Map(Object.entries(s.properties ?? {}).map(([key, sub]) => [key, coercer(sub)] as const));
  const required = new Set((s as { required?: string[] }).required ?? []);
  const nullAsAbsent = new Set(Object.entries(s.properties ?? {}).filter(([key, sub]) => !required.has(key) && !takesKind(sub, 'null')).map(([key]) => key));
  const patterned = Object.entries(s.patternProperties ?? {}).map(([p, sub]) => [regex(p), coercer(sub)] as const);
  const additional = typeof s.additionalProperties === 'object' ? coercer(s.additionalProperties) : undefined;
  const items = s.items ? coercer(s.items) : undefined;
  return (v) => {
    const kind = kindOf(v);
    if (!takes.has(kind)) return convertScalar(s, v) ?? v;
    if (kind === 'object') {
      const obj = v as Record<string, unknown>;
      for (const key of Object.keys(obj)) {
        if (obj[key] === null && nullAsAbsent.has(key)) {
          delete obj[key];
          continue;
        }
        const sub = properties.get(key) ?? patterned.find(([re]) => re.test(key))?.[1] ?? additional;
        if (sub) obj[key] = sub(obj[key]);
      }
    } else if (kind === 'array' && items) {
      const list = v as unknown[];
      for (let i = 0; i < list.length; i++) list[i] = items(list[i]);
    }
    return v;
  };
}
