import type { TSchema } from '@sinclair/typebox';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { registeredComponents } from '../shared/schemas/components';
import { fail, type EngineError } from '../engine/errors';
import { coercer } from './coercion';
import { ORIGIN_PATTERN } from '../shared/schemas/ecommerce';
import { AMOUNT_OF, EXPECTED } from '../shared/schemas/common';

function makeAjv(coerce: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    // Each error names the schema it failed (parentSchema): a failed union is said as what it takes.
    verbose: true,
    strict: false,
  });
  addFormats.default(ajv);
  for (const schema of registeredComponents().values()) ajv.addSchema(schema);
  return ajv;
}

let bodyAjv: Ajv2020 | undefined;
let queryAjv: Ajv2020 | undefined;

/**
 * Bodies are coerced to their schema the reference's way (see coercion.ts), then validated; path and
 * query values are strings, coerced to their types by Ajv.
 */
export function compile(schema: TSchema, source: 'body' | 'query' | 'params'): ValidateFunction {
  if (source === 'params') return (queryAjv ??= makeAjv(true)).compile(schema);
  if (source === 'query') {
    const validate = (queryAjv ??= makeAjv(true)).compile(schema);
    const flags = flagFields(schema);
    if (flags.length === 0) return validate;
    const withFlags = ((data: unknown) => validate(flagsAsWords(data, flags))) as ValidateFunction;
    Object.defineProperty(withFlags, 'errors', { get: () => validate.errors });
    return withFlags;
  }
  const validate = (bodyAjv ??= makeAjv(false)).compile(schema);
  const coerce = coercer(schema);
  const coerced = ((data: unknown) => validate(coerce(data))) as ValidateFunction;
  Object.defineProperty(coerced, 'errors', { get: () => validate.errors });
  return coerced;
}

type FlagPath = readonly string[];

/** Paths of the boolean fields of a query schema (`list`, `options[payments]`). */
function flagFields(schema: TSchema, at: FlagPath = []): FlagPath[] {
  const { properties, anyOf } = schema as { properties?: Record<string, TSchema>; anyOf?: TSchema[] };
  if (anyOf) return anyOf.flatMap((s) => flagFields(s, at));
  if (!properties) return [];
  return Object.entries(properties).flatMap(([name, s]) => ((s as { type?: unknown }).type === 'boolean' ? [[...at, name]] : flagFields(s, [...at, name])));
}

/**
 * `list=1` and `list=0` as the flags they mean, and `True`/`False` in any case: query strings from
 * form posts, PHP's http_build_query and Rails-era clients write booleans as 1 and 0, Python's
 * requests as True and False (the reference's service reads them so), where Ajv takes only
 * `true`/`false`.
 */
function flagsAsWords(data: unknown, flags: readonly FlagPath[]): unknown {
  for (const path of flags) {
    let holder = data as Record<string, unknown> | undefined;
    for (const part of path.slice(0, -1)) holder = holder && typeof holder[part] === 'object' ? (holder[part] as Record<string, unknown>) : undefined;
    const name = path.at(-1)!;
    const value = holder?.[name];
    if (typeof value !== 'string') continue;
    const word = value.toLowerCase();
    if (word === '1' || word === 'true') holder![name] = 'true';
    else if (word === '0' || word === 'false') holder![name] = 'false';
    // `?list` or `?list=`: said without a value, as absent (its default).
    else if (word === '') delete holder![name];
  }
  return data;
}

const cold = new Set<() => ValidateFunction>();

/**
 * compile() on first use. Compiling every route's schemas took most of the start-up time before
 * the socket listened (0.3-0.6 s); warmValidators() compiles the rest once it listens.
 */
export function lazyCompile(schema: TSchema, source: 'body' | 'query' | 'params'): () => ValidateFunction {
  let fn: ValidateFunction | undefined;
  const get = () => {
    if (!fn) {
      fn = compile(schema, source);
      cold.delete(get);
    }
    return fn;
  };
  cold.add(get);
  return get;
}

/** Compiles the validators not used yet, a few per turn of the event loop so requests go first. */
export function warmValidators(): void {
  const next = () => {
    const started = performance.now();
    for (const get of cold) {
      get();
      if (performance.now() - started > 5) break;
    }
    if (cold.size > 0) setImmediate(next);
  };
  setImmediate(next);
}

/** The longest field name an error repeats. */
const MAX_NAME = 200;

/**
 * A field's name as an error repeats it: a name is the client's text (a free-form key, an unknown
 * field), and a 5 MB one would be copied into the answer and read again for card numbers there.
 * A long one is cut, and so is any number it ends in (a card number cut in two is no longer
 * recognized, and masked; the answer's masking then reads what is left).
 */
function named(text: string): string {
  if (text.length <= MAX_NAME) return text;
  return `${text.slice(0, MAX_NAME).replace(/\P{L}+$/u, '')}…`;
}

/** `options/jwt_expiry` reads as `options[jwt_expiry]` in a query and `line_items.0.amount` in a body. */
function fieldOf(e: ErrorObject, source: string): string {
  const parts = e.instancePath.split('/').filter(Boolean);
  if (e.keyword === 'required') parts.push(String((e.params as { missingProperty?: string }).missingProperty ?? ''));
  if (parts.length === 0) return source;
  if (source === 'query') return named(parts[0] + parts.slice(1).map((p) => `[${p}]`).join(''));
  return named(parts.join('.'));
}

const FORMAT_TEXT: Record<string, string> = {
  uri: 'must be a full address, such as https://api.example.com',
  email: 'must be an e-mail address',
  date: 'must be a date (YYYY-MM-DD)',
  'date-time': 'must be a date and time (ISO 8601, such as 2026-03-01T09:30:00Z)',
};

/** Patterns a form's field is held to, said in words (an address: the hub's, the upstream's, onboarding's). */
const PATTERN_TEXT: Record<string, string> = {
  '^https?://': 'must start with https:// (or http://)',
  '^([01][0-9]|2[0-3]):[0-5][0-9]$': 'must be a time of day on the 24-hour clock, HH:MM (23:00 for 11 pm)',
  '^[A-Za-z]{2}$': 'must be two letters',
  // A site allowed to show the payment frame, typed by a shop owner who often pastes a page's address.
  [ORIGIN_PATTERN]: 'must be a site: http:// or https://, its host name and a port if any (https://shop.example, http://shop.example:8080), with no path or slash after it',
};

const TYPE_TEXT: Record<string, string> = { integer: 'a whole number', number: 'a number', string: 'text', boolean: 'true or false', object: 'an object', array: 'a list' };

function describe(e: ErrorObject): string {
  switch (e.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return `has an unknown field ${named(String((e.params as { additionalProperty?: string }).additionalProperty))}`;
    case 'enum':
      return `must be one of ${((e.params as { allowedValues?: unknown[] }).allowedValues ?? []).map(shown).join(', ')}`;
    case 'const':
      return `must be ${shown((e.params as { allowedValue?: unknown }).allowedValue)}`;
    case 'format':
      // Read by people in the back office's forms too, not only by a developer who knows the format's name.
      return FORMAT_TEXT[String((e.params as { format?: string }).format)] ?? e.message ?? 'is invalid';
    case 'pattern':
      return PATTERN_TEXT[String((e.params as { pattern?: string }).pattern)] ?? e.message ?? 'is invalid';
    // In words a person at the back office's forms reads, not Ajv's ("must NOT have fewer than 1 characters").
    case 'minLength': {
      const n = Number((e.params as { limit?: number }).limit);
      return n === 1 ? 'must not be empty' : `must be at least ${n} characters long`;
    }
    case 'maxLength':
      return `must be at most ${Number((e.params as { limit?: number }).limit)} characters long`;
    case 'minItems':
      return `must list at least ${Number((e.params as { limit?: number }).limit)}`;
    case 'maxItems':
      return `must list at most ${Number((e.params as { limit?: number }).limit)}`;
    case 'minimum':
      return `must be ${Number((e.params as { limit?: number }).limit)} or more`;
    case 'maximum':
      return `must be ${Number((e.params as { limit?: number }).limit)} or less`;
    case 'exclusiveMinimum':
      return `must be more than ${Number((e.params as { limit?: number }).limit)}`;
    case 'exclusiveMaximum':
      return `must be less than ${Number((e.params as { limit?: number }).limit)}`;
    case 'type': {
      const types = [(e.params as { type?: string | string[] }).type ?? []].flat().filter((t) => t !== 'null');
      const words = types.map((t) => TYPE_TEXT[t] ?? t);
      return words.length ? `must be ${words.join(' or ')}` : (e.message ?? 'is invalid');
    }
    default:
      return e.message ?? 'is invalid';
  }
}

/** Writes an amount in minor units for the reader (the account's currency, the request's locale). */
export type AmountWriter = (minor: number) => string;

/**
 * `A price is at most $99,999.99`: an amount past its limits, said in money as the asking screen
 * writes it, when its schema says what it is (AMOUNT_OF) and the caller can write amounts.
 */
function amountLimit(e: ErrorObject, amount: AmountWriter | undefined): string | undefined {
  const what = (e.parentSchema as { [AMOUNT_OF]?: unknown } | undefined)?.[AMOUNT_OF];
  if (!amount || typeof what !== 'string') return undefined;
  const limit = Number((e.params as { limit?: number }).limit);
  if (e.keyword === 'maximum') return `${what} is at most ${amount(limit)}`;
  if (e.keyword === 'minimum') return limit === 0 ? `${what} cannot be negative` : `${what} is at least ${amount(limit)}`;
  return undefined;
}

const shown = (value: unknown): string => (typeof value === 'string' ? (value === '' ? '""' : value) : JSON.stringify(value));

interface SchemaNode {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  $ref?: string;
  [EXPECTED]?: string;
}

/** What a schema takes, in words and in values (`null` says nothing: a field sent as null is one not sent). */
function takes(schema: SchemaNode | undefined, out = { words: [] as string[], values: [] as unknown[] }, depth = 0) {
  if (!schema || depth > 10) return out;
  if (typeof schema[EXPECTED] === 'string') out.words.push(schema[EXPECTED]);
  else if (schema.$ref) takes(registeredComponents().get(schema.$ref) as SchemaNode | undefined, out, depth + 1);
  else if (schema.anyOf ?? schema.oneOf) for (const branch of schema.anyOf ?? schema.oneOf ?? []) takes(branch, out, depth + 1);
  else if ('const' in schema) out.values.push(schema.const);
  else if (schema.enum) out.values.push(...schema.enum);
  else for (const t of [schema.type ?? []].flat()) if (t !== 'null') out.words.push(TYPE_TEXT[t] ?? t);
  return out;
}

/** `must be a whole number of cents`, `must be one of CCD, PPD, WEB`, `must be text or an object`. */
function describeUnion(schema: SchemaNode | undefined): string {
  const { words, values } = takes(schema);
  const all = [...new Set(words)];
  if (values.length > 0) all.push(values.length === 1 ? shown(values[0]) : `one of ${[...new Set(values)].map(shown).join(', ')}`);
  return all.length ? `must be ${all.join(' or ')}` : 'is invalid';
}

/** Keywords that judge a value itself (its type or a rule on it), not something inside it. */
const VALUE_KEYWORDS = new Set(['type', 'const', 'enum', 'pattern', 'format', 'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']);
const MISMATCH_KEYWORDS = new Set(['type', 'const', 'enum']);
const isUnion = (e: ErrorObject) => e.keyword === 'anyOf' || e.keyword === 'oneOf';
const listAt = (map: Map<string, ErrorObject[]>, path: string): ErrorObject[] => map.get(path) ?? map.set(path, []).get(path)!;

/**
 * One line per failure. Ajv reports a union (anyOf) none of whose forms fits form by form
 * (`amount_cents must be a whole number`, `... must match pattern "^-?[0-9]{1,11}$"`, `... must be null`):
 * - a form that took the value and failed inside it (an object missing a field) says what is wrong,
 *   and the other forms' mismatches are left out;
 * - otherwise the union is one line naming what it takes (its EXPECTED words, else its forms:
 *   `must be one of CCD, PPD`), unless the value had a form's type and broke only that form's rule
 *   (`order must not be empty`), which is said as before.
 */
function lines(errors: readonly ErrorObject[], source: string, amount?: AmountWriter): Array<{ field: string; code: string; message: string }> {
  // Indexed once (a large body can fail thousands of times): the unions and the value failures at
  // each value, and the values something inside of which failed.
  const unionsAt = new Map<string, ErrorObject[]>();
  const valueFailuresAt = new Map<string, ErrorObject[]>();
  const failedInside = new Set<string>();
  for (const e of errors) {
    if (isUnion(e)) listAt(unionsAt, e.instancePath).push(e);
    else if (VALUE_KEYWORDS.has(e.keyword)) listAt(valueFailuresAt, e.instancePath).push(e);
    else if (e.keyword !== 'if') failedInside.add(e.instancePath);
    // Every value holding this one failed inside (a value in the set has its holders in it too).
    for (let path = e.instancePath, cut = path.lastIndexOf('/'); cut >= 0; cut = path.lastIndexOf('/')) {
      path = path.slice(0, cut);
      if (failedInside.has(path)) break;
      failedInside.add(path);
    }
  }
  const out = [];
  const summarized = new Set<string>();
  for (const e of errors) {
    if (isUnion(e) || e.keyword === 'if') continue;
    const field = fieldOf(e, source);
    const unions = VALUE_KEYWORDS.has(e.keyword) ? unionsAt.get(e.instancePath) : undefined;
    if (!unions) {
      out.push({ field, code: e.keyword, message: amountLimit(e, amount) ?? `${field} ${describe(e)}` });
      continue;
    }
    if (failedInside.has(e.instancePath)) continue;
    const ownWords = unions.some((u) => typeof (u.parentSchema as SchemaNode | undefined)?.[EXPECTED] === 'string');
    if (!ownWords && (valueFailuresAt.get(e.instancePath) ?? []).some((o) => !MISMATCH_KEYWORDS.has(o.keyword))) {
      if (!MISMATCH_KEYWORDS.has(e.keyword)) out.push({ field, code: e.keyword, message: `${field} ${describe(e)}` });
      continue;
    }
    if (summarized.has(e.instancePath)) continue;
    summarized.add(e.instancePath);
    // The outermost union at this value is reported last.
    out.push({ field, code: e.keyword, message: `${field} ${describeUnion(unions.at(-1)!.parentSchema as SchemaNode | undefined)}` });
  }
  return out;
}

/** Details an answer lists at most: the summary still counts them all. */
export const MAX_ERROR_DETAILS = 100;

/**
 * One readable error for a failed validation, with a detail per field (the first MAX_ERROR_DETAILS).
 * `amount` writes the amounts of limits in money (see AMOUNT_OF).
 */
export function validationError(errors: ErrorObject[] | null | undefined, source: string, kind: 'invalid' | 'precondition', amount?: AmountWriter): EngineError {
  // Branches of nested unions repeat themselves; keep one line per field and rule.
  const seen = new Set<string>();
  const details = [];
  for (const line of lines(errors ?? [], source, amount)) {
    if (seen.has(line.message)) continue;
    seen.add(line.message);
    details.push(line);
  }
  const first = details[0]?.message ?? `${source} is invalid`;
  const summary = details.length > 1 ? `${first} (and ${details.length - 1} more)` : first;
  return (kind === 'precondition' ? fail.precondition : fail.invalid)('validation_failed', summary, details.slice(0, MAX_ERROR_DETAILS));
}
