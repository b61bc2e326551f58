import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * Named API schemas. A schema registered here is validated by Ajv through `$ref` and appears once
 * under `components/schemas` in the OpenAPI document: one definition, three uses (types,
 * validation, documentation).
 */
const registry = new Map<string, TSchema>();

export function component<T extends TSchema>(id: string, schema: T): T {
  if (registry.has(id) && registry.get(id) !== schema) throw new Error(`schema ${id} registered twice`);
  const named = { ...schema, $id: id } as T;
  registry.set(id, named);
  return named;
}

/** A `$ref` to a registered schema that keeps its static type. */
export function ref<T extends TSchema>(schema: T) {
  if (!schema.$id) throw new Error('ref() needs a schema registered with component()');
  return Type.Unsafe<Static<T>>(Type.Ref(schema.$id));
}

export function registeredComponents(): ReadonlyMap<string, TSchema> {
  return registry;
}
