import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildOpenApi } from '../../src/server/openapi';
import { allRoutes } from '../../src/server/routes';

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
  components: { schemas: Record<string, unknown> };
};

let doc: Doc | undefined;
let ajv: Ajv2020 | undefined;
const cache = new Map<string, ValidateFunction | null>();

function setup(): { doc: Doc; ajv: Ajv2020 } {
  if (!doc || !ajv) {
    doc = buildOpenApi(allRoutes, { version: 'test', description: '' }) as unknown as Doc;
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'openapi', components: doc.components });
  }
  return { doc, ajv };
}

function templateFor(doc: Doc, path: string): string | undefined {
  const clean = path.split('?')[0] ?? path;
  for (const template of Object.keys(doc.paths)) {
    const re = new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (re.test(clean)) return template;
  }
  return undefined;
}

/**
 * Checks a response against our own OpenAPI document: the operation must exist, the status must
 * be documented, and a JSON body must match the documented schema. Returns a list of problems.
 */
export function checkResponse(method: string, path: string, status: number, body: unknown, contentType = 'application/json'): string[] {
  const { doc, ajv } = setup();
  const template = templateFor(doc, path);
  if (!template) return [`${method} ${path}: no such path in the OpenAPI document`];
  const op = doc.paths[template]?.[method.toLowerCase()];
  if (!op) return [`${method} ${template}: method not documented`];
  const response = op.responses[String(status)];
  if (!response) return [`${method} ${template}: status ${status} not documented`];
  if (!contentType.includes('json')) return [];
  const schema = response.content?.['application/json']?.schema;
  if (!schema) return body === undefined || body === '' ? [] : [`${method} ${template} ${status}: body not documented`];
  const key = `${method} ${template} ${status}`;
  let validate = cache.get(key);
  if (validate === undefined) {
    const rewritten = JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi#/components/')) as object;
    validate = ajv.compile(rewritten);
    cache.set(key, validate);
  }
  if (!validate || validate(body)) return [];
  return (validate.errors ?? []).slice(0, 5).map((e) => `${key}: ${e.instancePath || '/'} ${e.message ?? ''}`);
}
