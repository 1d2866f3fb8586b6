import type { JsonSchema } from "./schema-arbitrary";

export interface Parameter {
  name: string;
  in: "path" | "query";
  required: boolean;
  schema: JsonSchema;
}

/** One operation of the served OpenAPI document, as the fuzz suite drives it. */
export interface Operation {
  method: string;
  /** Template with the /api/v2 prefix, e.g. `/api/v2/webhooks/{id}`. */
  template: string;
  pathParams: Parameter[];
  queryParams: Parameter[];
  body?: JsonSchema;
  /** The body is `multipart/form-data` (an upload): `body` is its fields' schema. */
  multipart: boolean;
  /** Required scope, or undefined for public and portal operations. */
  scope?: string;
  /** A portal operation: the caller is a person with a session cookie, not a service account. */
  portal: boolean;
  /** `pagination` in the success answer: a list that issues page tokens. */
  paginated: boolean;
  /** The operation documents the `Idempotency-Key` header parameter. */
  idempotencyKey: boolean;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, any>>;
  components?: Record<string, any>;
}

/** Every operation of the document; the suite knows no route by name. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const out: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const params = (op.parameters ?? []) as Parameter[];
      const refs = (op.parameters ?? []) as { $ref?: string }[];
      const success = Object.entries(op.responses ?? {}).find(([status]) => status.startsWith("2"))?.[1] as any;
      out.push({
        method: method.toUpperCase(),
        template,
        pathParams: params.filter((p) => p.in === "path"),
        queryParams: params.filter((p) => p.in === "query"),
        body: op.requestBody?.content?.["application/json"]?.schema ?? op.requestBody?.content?.["multipart/form-data"]?.schema,
        multipart: Boolean(op.requestBody?.content?.["multipart/form-data"]),
        scope: op["x-required-scope"],
        portal: Boolean((op.security as Record<string, unknown>[] | undefined)?.some((s) => "portalSession" in s)),
        paginated: Boolean(success?.content?.["application/json"]?.schema?.properties?.pagination),
        idempotencyKey: refs.some((p) => p.$ref === "#/components/parameters/Idempotency-Key"),
      });
    }
  }
  return out;
}

/** `#/components/schemas/X` → the schema. */
export function resolverOf(doc: OpenApiDocument): (ref: string) => JsonSchema {
  return (ref) => {
    let node: any = doc;
    for (const part of ref.replace(/^#\//, "").split("/")) node = node?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
    if (!node) throw new Error(`Unresolvable reference ${ref}`);
    return node as JsonSchema;
  };
}

/** The collection a path parameter names an item of: the template up to the parameter. */
export function collectionOf(template: string, param: string): string {
  return template.slice(0, template.indexOf(`{${param}}`)).replace(/\/$/, "");
}
