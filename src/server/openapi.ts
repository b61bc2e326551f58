import type { TSchema } from '@sinclair/typebox';
import { registeredComponents } from '../shared/schemas/components';
import type { AnyRoute, ResponseSpec } from './route';
import { Type } from '@sinclair/typebox';

const errorRef = Type.Ref('Error');

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** TypeBox schema -> plain JSON Schema with `$ref`s pointing into components/schemas. */
function toDocSchema(schema: TSchema): Json {
  const plain = JSON.parse(JSON.stringify(schema)) as Json;
  const walk = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(walk);
    if (node && typeof node === 'object') {
      const out: { [k: string]: Json } = {};
      for (const [k, v] of Object.entries(node)) {
        if (k === '$id') continue;
        if (k === '$ref' && typeof v === 'string' && !v.startsWith('#')) out[k] = `#/components/schemas/${v}`;
        else out[k] = walk(v);
      }
      return out;
    }
    return node;
  };
  return walk(plain);
}

function objectProperties(schema: TSchema | undefined): Array<[string, TSchema, boolean]> {
  if (!schema) return [];
  const props = (schema as { properties?: Record<string, TSchema> }).properties ?? {};
  const required = new Set((schema as { required?: string[] }).required ?? []);
  return Object.entries(props).map(([name, s]) => [name, s, required.has(name)]);
}

export interface OpenApiInfo {
  version: string;
  description: string;
  serverUrl?: string;
}

export function buildOpenApi(routes: readonly AnyRoute[], info: OpenApiInfo): Record<string, Json> {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const parameters: Json[] = [];
    for (const [name, schema] of objectProperties(route.params)) {
      parameters.push({ name, in: 'path', required: true, schema: toDocSchema(schema) });
    }
    for (const [name, schema, required] of objectProperties(route.query)) {
      const isObject = (schema as { type?: string }).type === 'object';
      parameters.push({
        name,
        in: 'query',
        required,
        ...(isObject ? { style: 'deepObject', explode: true } : {}),
        ...((schema as { description?: string }).description ? { description: (schema as { description?: string }).description ?? '' } : {}),
        schema: toDocSchema(schema),
      });
    }
    const responses: Record<string, Json> = {};
    // Statuses every operation can answer, documented once here rather than on each route.
    const common: Record<number, ResponseSpec> = {
      403: { description: 'Refused: a request from a web page on another site, a host name this server does not answer to, or a credential without the scope this operation needs', schema: errorRef },
      429: { description: 'Rate limited (error code 1015); see Retry-After', schema: errorRef },
    };
    if (route.auth !== false) common[401] = { description: 'Missing or invalid credentials', schema: errorRef };
    if (route.params || route.query) common[400] = { description: 'A path or query parameter that is not valid', schema: errorRef };
    if (route.body) {
      common[400] = { description: 'Malformed or invalid body', schema: errorRef };
      common[413] = { description: 'Body over the size limit of this operation', schema: errorRef };
      common[415] = { description: 'A body that is not JSON (Content-Type), or whose Content-Encoding is not supported', schema: errorRef };
    }
    // A gateway operation answers a malformed request as an operation error (its 500), never 400.
    if (route.errorShape === 'gateway') delete common[400];
    for (const [status, spec] of Object.entries({ ...common, ...route.responses })) {
      responses[status] = {
        description: spec.description,
        ...(spec.schema
          ? { content: { [spec.contentType ?? 'application/json']: { schema: toDocSchema(spec.schema) }, ...Object.fromEntries(Object.entries(spec.alsoContent ?? {}).map(([type, schema]) => [type, { schema: toDocSchema(schema) }])) } }
          : {}),
        ...(spec.headers ? { headers: Object.fromEntries(Object.entries(spec.headers).map(([name, h]) => [name, { description: h.description, schema: toDocSchema(h.schema) }])) } : {}),
      };
    }
    const operation: Record<string, Json> = {
      operationId: route.operationId,
      tags: route.tags,
      summary: route.summary,
      ...(route.description || route.nullMeansAbsent
        ? { description: [route.description, route.nullMeansAbsent ? 'A field sent as `null` counts as not sent (at any depth of the body).' : undefined].filter(Boolean).join('\n\n') }
        : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: toDocSchema(route.body) } } } } : {}),
      ...(route.multipartBody ? { requestBody: { required: true, content: { 'multipart/form-data': { schema: toDocSchema(route.multipartBody) } } } } : {}),
      responses,
      security: route.auth === false ? [] : [{ basicAuth: [] }, { bearerAuth: [] }],
    };
    (paths[path] ??= {})[route.method] = operation;
  }

  const schemas: Record<string, Json> = {};
  for (const [id, schema] of registeredComponents()) schemas[id] = toDocSchema(schema);

  return {
    openapi: '3.1.0',
    info: { title: 'Laneway API', version: info.version, description: info.description },
    ...(info.serverUrl ? { servers: [{ url: info.serverUrl, description: 'This install' }] } : {}),
    tags: [...new Set(routes.flatMap((r) => r.tags))].map((name) => ({ name })),
    paths,
    components: {
      schemas,
      securitySchemes: {
        basicAuth: { type: 'http', scheme: 'basic', description: 'API token as user name, API key as password.' },
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The `jwt` from GET /api/whoami.' },
      },
    },
  };
}
