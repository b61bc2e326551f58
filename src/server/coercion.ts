import type { TSchema } from '@sinclair/typebox';
import { registeredComponents } from '../shared/schemas/registry';

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
 * Never converted: null, empty or padded strings (`""`, `" 12"`), `"1e3"`, `"0x1F"`, numbers to
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
  // A registered component is referenced by its $id (see shared/schemas/registry.ts).
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

const INTEGER_TEXT = /^-?[0-9]+$/;
const DECIMAL_TEXT = /^-?[0-9]+(\.[0-9]+)?$/;

/** The value converted to what this (non-union) schema takes, or undefined when it cannot be. */
function convertScalar(s: Schema, value: unknown): unknown {
  const types = typesOf(s);
  if (!types) return undefined;
  for (const type of types) {
    let out: string | number | boolean | undefined;
    if (type === 'string' && typeof value === 'number' && DECIMAL_TEXT.test(String(value))) out = String(value);
    else if (type === 'string' && typeof value === 'boolean') out = String(value);
    else if (type === 'integer' && typeof value === 'string' && INTEGER_TEXT.test(value)) {
      const n = Number(value);
      if (Number.isSafeInteger(n)) out = n;
    } else if (type === 'number' && typeof value === 'string' && DECIMAL_TEXT.test(value)) {
      const n = Number(value);
      if (Number.isFinite(n) && (!INTEGER_TEXT.test(value) || Number.isSafeInteger(n))) out = n;
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

function coerceObject(s: Schema, value: Record<string, unknown>): void {
  const properties = s.properties ?? {};
  const patternEntries = Object.entries(s.patternProperties ?? {});
  for (const [key, v] of Object.entries(value)) {
    let sub: Schema | undefined = Object.prototype.hasOwnProperty.call(properties, key) ? properties[key] : undefined;
    sub ??= patternEntries.find(([p]) => regex(p).test(key))?.[1];
    if (!sub && typeof s.additionalProperties === 'object') sub = s.additionalProperties;
    if (sub) value[key] = coerce(sub, v);
  }
}

/**
 * The value coerced to the schema. Objects and arrays are changed in place (the request body keeps
 * its identity); a scalar is returned converted.
 */
export function coerce(schema: Schema, value: unknown): unknown {
  const s = resolve(schema);
  const kind = kindOf(value);
  if (s.allOf) {
    let out = value;
    for (const part of s.allOf) out = coerce(part, out);
    return out;
  }
  if (s.anyOf) {
    const options = branches(s);
    const taking = options.find((b) => takesKind(b, kind));
    if (taking) return kind === 'object' || kind === 'array' ? coerce(taking, value) : value;
    for (const b of options) {
      const converted = convertScalar(b, value);
      if (converted !== undefined) return converted;
    }
    return value;
  }
  if (!takesKind(s, kind)) return convertScalar(s, value) ?? value;
  if (kind === 'object') coerceObject(s, value as Record<string, unknown>);
  else if (kind === 'array' && s.items) {
    const list = value as unknown[];
    for (let i = 0; i < list.length; i++) list[i] = coerce(s.items, list[i]);
  }
  return value;
}
