import type { TestHost, TestPerson } from "./test-host";
import type { Json } from "./json";

/** One operation's request as the served document's examples fill it in. */
export interface ExampleRequest {
  method: string;
  /** The documented path template, with the /api/v2 prefix. */
  template: string;
  /** Path and query, the parameters filled in. */
  url: string;
  body?: unknown;
  /** A multipart upload: the body's fields sent as file parts. */
  fileFields?: string[];
}

/** The value Swagger UI 5 puts in a parameter's field when "Try it out" is pressed (parameter-row.jsx). */
export function prefilled(param: Json): unknown {
  const schema = param.schema ?? {};
  const value = param.example ?? schema.example ?? schema.default;
  if (value === undefined && param.required && Array.isArray(schema.enum)) return schema.enum[0];
  return value;
}

/**
 * Every operation's request as "Try it out" on the reference page fills it in from the served
 * document: path and query parameters from their `example`, `schema.example` or `schema.default`,
 * the body from its schema's first `examples` entry. Header parameters are the caller's own (a
 * session's CSRF token, a version read before). In the order that lets each succeed on the demo
 * data: reads, then writes, then deletions, signing out last. `missing` names what a caller must give
 * and the document gives no example of.
 */
export function exampleRequests(doc: Json): { requests: ExampleRequest[]; missing: string[] } {
  const requests: ExampleRequest[] = [];
  const missing: string[] = [];
  for (const [template, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const where = `${method.toUpperCase()} ${template}`;
      let path = template;
      const query = new URLSearchParams();
      for (const param of op.parameters ?? []) {
        // Reusable parameters (`$ref`) are the request headers: If-Match, the session's CSRF token.
        if (param.$ref !== undefined || param.in === "header") continue;
        const value = prefilled(param);
        if (value === undefined) {
          if (param.required) missing.push(`${where}: ${param.in} parameter ${param.name}`);
          continue;
        }
        if (param.in === "path") path = path.replace(`{${param.name}}`, encodeURIComponent(String(value)));
        else for (const v of Array.isArray(value) ? value : [value]) query.append(param.name, String(v));
      }
      let body: unknown;
      let fileFields: string[] | undefined;
      if (op.requestBody) {
        // An upload's example is its form's fields; those the schema marks binary are the files to pick.
        const form = op.requestBody.content?.["multipart/form-data"]?.schema;
        body = (form ?? op.requestBody.content?.["application/json"]?.schema)?.examples?.[0];
        if (form) fileFields = Object.entries<Json>(form.properties ?? {}).filter(([, field]) => field.format === "binary").map(([name]) => name);
        if (body === undefined) missing.push(`${where}: request body`);
      }
      const search = query.toString();
      requests.push({ method: method.toUpperCase(), template, url: path + (search ? `?${search}` : ""), body, fileFields });
    }
  }
  return { requests: requests.sort((a, b) => exampleRank(a) - exampleRank(b)), missing };
}

/** Reads first, then writes, then deletions; signing out, which ends the session every other portal example is sent with, last. */
export function exampleRank(request: { method: string; template: string }): number {
  return request.template.endsWith("/portal/auth/sign-out") ? 3 : request.method.toUpperCase() === "GET" ? 0 : request.method.toUpperCase() === "DELETE" ? 2 : 1;
}

/** An upload's example as a browser sends it: each file field a file, named as a person's would be, the others text. */
export function formOf(example: Json, fileFields: string[]): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(example)) {
    if (fileFields.includes(name)) form.append(name, new Blob([String(value)]), `${name}-example.md`);
    else form.append(name, String(value));
  }
  return form;
}

/**
 * Sends one example request as "Try it out" would: a portal operation as the person (their session
 * cookie and CSRF token), an upload as a form, anything else as the admin; `headers` added.
 */
export function sendExample(host: TestHost, person: TestPerson, request: ExampleRequest, headers: Record<string, string> = {}): Promise<Response> {
  const path = request.url.slice("/api/v2".length);
  if (request.fileFields) {
    return host.fetch(host.base + path, { method: request.method, headers: { ...person.headers, ...headers }, body: formOf(request.body as Json, request.fileFields) });
  }
  return path.startsWith("/portal/") ? host.portal(person, request.method, path, { body: request.body, headers }) : host.call(request.method, path, { body: request.body, headers });
}
