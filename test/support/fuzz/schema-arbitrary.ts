import fc from "fast-check";

export type JsonSchema = Record<string, any>;

/** Values of real things seen in the service's answers, by property name, to reach past 404s. */
export type ValuePool = ReadonlyMap<string, readonly string[]>;

export interface SchemaContext {
  /** Resolves `#/components/...` references of the document. */
  resolve(ref: string): JsonSchema;
  pool: ValuePool;
  /** Objects with their required properties only: the likeliest to be accepted as a whole. */
  minimal?: boolean;
}

const SAFE_TEXT = fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 24 });

/**
 * A fast-check arbitrary of values that follow a JSON Schema of the OpenAPI document (types,
 * enums, formats, bounds, required properties): the starting point that the fuzz categories then
 * break in one place. Refinements a schema cannot say (cross-field rules) may still fail, which is fine.
 */
export function valueOf(schema: JsonSchema | undefined, ctx: SchemaContext, name = "", depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return fc.constant(null);
  if (typeof schema.$ref === "string") return valueOf(ctx.resolve(schema.$ref), ctx, name, depth + 1);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives)) {
    const { anyOf: _any, oneOf: _one, ...own } = schema;
    // Beside an object's own properties, the alternatives say which of them are required: each alternative is that object.
    if (own.type === "object" || own.properties) {
      return fc.oneof(...alternatives.map((s: JsonSchema) => valueOf({ ...own, ...s, required: [...(own.required ?? []), ...(s.required ?? [])] }, ctx, name, depth + 1)));
    }
    return fc.oneof(...alternatives.map((s: JsonSchema) => valueOf(s, ctx, name, depth + 1)));
  }
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== "null") : schema.type;
  switch (type) {
    case "string":
      return stringOf(schema, ctx, name);
    case "integer":
      return fc.integer({ min: schema.minimum ?? -1000, max: Math.min(schema.maximum ?? 1000, Number.MAX_SAFE_INTEGER) });
    case "number":
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case "boolean":
      return fc.boolean();
    case "array":
      return fc.array(valueOf(schema.items, ctx, name, depth + 1), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, 3)),
      });
    case "object":
      return objectOf(schema, ctx, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function objectOf(schema: JsonSchema, ctx: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set<string>(schema.required ?? []);
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, child] of Object.entries(properties)) {
    if (!ctx.minimal || required.has(key)) fields[key] = valueOf(child, ctx, key, depth + 1);
  }
  const record = fc.record(fields, { requiredKeys: [...required].filter((k) => k in fields) });
  if (schema.additionalProperties && typeof schema.additionalProperties === "object" && Object.keys(properties).length === 0) {
    return fc.dictionary(SAFE_TEXT, valueOf(schema.additionalProperties, ctx, "", depth + 1), { maxKeys: 3 });
  }
  return record;
}

function stringOf(schema: JsonSchema, ctx: SchemaContext, name: string): fc.Arbitrary<string> {
  const known = ctx.pool.get(name) ?? [];
  const fresh = freshString(schema);
  return known.length > 0 ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: fresh }) : fresh;
}

function freshString(schema: JsonSchema): fc.Arbitrary<string> {
  switch (schema.format) {
    case "uuid":
      return fc.uuid();
    case "date-time":
      return fc.date({ min: new Date("2020-01-01T00:00:00Z"), max: new Date("2030-01-01T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString());
    case "email":
      return fc.stringMatching(/^[a-z]{1,10}\.[a-z]{1,10}@[a-z]{2,10}\.example$/);
    case "uri":
      return fc.constantFrom("https://hooks.example.com/in", "https://example.com/a?b=c");
    default: {
      const min = schema.minLength ?? 0;
      const max = Math.max(min, Math.min(schema.maxLength ?? 40, 40));
      return fc.string({ minLength: min, maxLength: max });
    }
  }
}

/** A query-parameter value as sent on the wire. */
export function queryValueOf(schema: JsonSchema | undefined, ctx: SchemaContext, name: string): fc.Arbitrary<string[]> {
  return valueOf(schema, ctx, name).map((v) => (Array.isArray(v) ? v.map(String) : v === null || v === undefined ? [] : [String(v)]));
}
