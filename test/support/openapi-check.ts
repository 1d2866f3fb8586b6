import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { errorCodes } from "../../shared/platform/errors/api-error";

type OpenApiDocument = { paths: Record<string, Record<string, any>>; components?: Record<string, any> };

export interface ObservedResponse {
  method: string;
  /** Path and query as requested, e.g. `/api/v2/users?role=Admin`. */
  url: string;
  status: number;
  contentType: string | null;
  body: string;
  /** The answer's headers; without them the headers are not checked. */
  headers?: Headers;
}

const DOC_ID = "openapi";
const METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options"]);

/**
 * Checks answers against the served OpenAPI document: the status must be documented for the
 * operation, the media type must be one it lists, and the body must match its schema. Every header
 * the document marks required for that status must be there, every documented header there must
 * match its schema, and a header the document describes somewhere must not come on an answer that
 * does not document it. An answer of no documented operation (an unknown path or method) must be a
 * problem document (with `Allow` on a 405). Returns the mismatches; empty when the answer is as documented.
 */
export class OpenApiResponseCheck {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: { path: string; segments: string[]; literals: number }[];
  /** Every header name the document describes on some answer, lower-case. */
  private readonly describedHeaders = new Set<string>();

  constructor(private readonly doc: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema(doc as object, DOC_ID);
    this.templates = Object.keys(doc.paths)
      .map((path) => {
        const segments = path.split("/").filter(Boolean);
        return { path, segments, literals: segments.filter((s) => !s.startsWith("{")).length };
      })
      .sort((a, b) => b.literals - a.literals);
    for (const item of Object.values(doc.paths)) {
      for (const op of Object.values(item)) {
        for (const response of Object.values<any>(op?.responses ?? {})) for (const name of Object.keys(response.headers ?? {})) this.describedHeaders.add(name.toLowerCase());
      }
    }
  }

  static async fetch(base: string): Promise<OpenApiResponseCheck> {
    const res = await fetch(`${base}/openapi.json`);
    if (res.status !== 200) throw new Error(`GET openapi.json answered ${res.status}`);
    return new OpenApiResponseCheck((await res.json()) as OpenApiDocument);
  }

  /** The documented path template of a request path, or undefined. */
  templateOf(pathname: string): string | undefined {
    const parts = pathname.split("/").filter(Boolean);
    return this.templates.find((t) => t.segments.length === parts.length && t.segments.every((s, i) => s.startsWith("{") || s === parts[i]))?.path;
  }

  check(observed: ObservedResponse): string[] {
    const url = new URL(observed.url, "http://host");
    const template = this.templateOf(url.pathname);
    const method = observed.method.toLowerCase();
    const operation = template ? this.doc.paths[template]?.[method] : undefined;
    const where = `${observed.method} ${url.pathname} → ${observed.status}`;
    if (!operation || !METHODS.has(method)) {
      if (observed.status === 405 && observed.headers && !observed.headers.has("allow")) return [`${where}: a 405 must name the methods it allows in Allow`];
      if (observed.status >= 400 && observed.status < 500) return this.problemMismatches(observed, where, "#/components/schemas/Problem");
      return [`${where}: no documented operation, yet the answer is not a 4xx problem`];
    }
    const responses = operation.responses as Record<string, any>;
    const key = [String(observed.status), `${String(observed.status)[0]}XX`, "default"].find((k) => responses[k] !== undefined);
    if (!key) return [`${where}: status ${observed.status} is not documented for ${observed.method.toUpperCase()} ${template} (documented: ${Object.keys(responses).join(", ")})`];
    return [...this.headerMismatches(observed, where, responses[key].headers ?? {}), ...this.bodyMismatches(observed, where, template!, method, key, responses[key])];
  }

  private bodyMismatches(observed: ObservedResponse, where: string, template: string, method: string, key: string, response: any): string[] {
    const content = response.content as Record<string, { schema?: unknown }> | undefined;
    if (!content) {
      if (observed.status === 204 && observed.body.length > 0) return [`${where}: documented without a body, yet one was sent`];
      return [];
    }
    const mediaType = (observed.contentType ?? "").split(";")[0]!.trim().toLowerCase();
    if (!(mediaType in content)) return [`${where}: Content-Type ${observed.contentType} is not among ${Object.keys(content).join(", ")}`];
    const pointer = `/paths/${escape(template)}/${method}/responses/${key}/content/${escape(mediaType)}/schema`;
    if (mediaType === "application/problem+json") {
      return [...this.problemMismatches(observed, where, `#${pointer}`), ...this.undocumentedCode(observed, where, content[mediaType] as { examples?: Record<string, unknown> })];
    }
    if (!content[mediaType]?.schema || !mediaType.endsWith("json")) return [];
    return this.schemaMismatches(observed.body, `#${pointer}`, where);
  }

  /**
   * The answer's headers against those documented for its status: the required ones there, each one
   * there as its schema says (a number as its digits), and none that the document describes only on
   * other answers.
   */
  private headerMismatches(observed: ObservedResponse, where: string, documented: Record<string, any>): string[] {
    if (!observed.headers) return [];
    const out: string[] = [];
    const names = new Set<string>();
    for (const [name, entry] of Object.entries(documented)) {
      names.add(name.toLowerCase());
      const header = this.resolve(entry);
      const value = observed.headers.get(name);
      if (value === null) {
        if (header.required) out.push(`${where}: header ${name} is documented as sent on every such answer, yet it is missing`);
        continue;
      }
      const schema = header.schema ?? {};
      const numeric = schema.type === "integer" || schema.type === "number";
      if (numeric && !/^-?\d+(\.\d+)?$/.test(value)) {
        out.push(`${where}: header ${name}: ${JSON.stringify(value)} is not a number`);
        continue;
      }
      const validate = this.compiled(schema);
      if (!validate(numeric ? Number(value) : value)) out.push(`${where}: header ${name}: ${JSON.stringify(value)} ${this.ajv.errorsText(validate.errors)}`);
    }
    for (const name of observed.headers.keys()) {
      if (this.describedHeaders.has(name) && !names.has(name)) out.push(`${where}: sends header ${name}, which the document does not describe for this answer (declare it: the route's responseHeaders)`);
    }
    return out;
  }

  /** A `$ref` (`#/components/headers/…`) to what it names. */
  private resolve(entry: any): any {
    if (typeof entry?.$ref !== "string") return entry;
    let node: any = this.doc;
    for (const part of entry.$ref.replace(/^#\//, "").split("/")) node = node?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
    if (!node) throw new Error(`Unresolvable reference ${entry.$ref}`);
    return node;
  }

  private compiled(schema: object): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.validators.set(key, validate);
    }
    return validate;
  }

  private problemMismatches(observed: ObservedResponse, where: string, ref: string): string[] {
    if (!(observed.contentType ?? "").startsWith("application/problem+json")) {
      return [`${where}: a problem must be application/problem+json, not ${observed.contentType}`];
    }
    const out = this.schemaMismatches(observed.body, ref, where);
    try {
      const problem = JSON.parse(observed.body) as { status?: unknown; code?: unknown };
      if (problem.status !== observed.status) out.push(`${where}: problem status ${String(problem.status)} differs from the HTTP status`);
      if (typeof problem.code !== "string" || !(problem.code in errorCodes)) out.push(`${where}: code ${String(problem.code)} is not in the contract's table`);
    } catch {
      // Reported by schemaMismatches.
    }
    return out;
  }

  /** The operation lists, per status, one example per code it can answer with: the code must be among them. */
  private undocumentedCode(observed: ObservedResponse, where: string, media: { examples?: Record<string, unknown> }): string[] {
    if (!media.examples) return [];
    let code: unknown;
    try {
      code = (JSON.parse(observed.body) as { code?: unknown }).code;
    } catch {
      return [];
    }
    const documented = Object.keys(media.examples);
    return typeof code === "string" && !documented.includes(code) ? [`${where}: code ${code} is not documented for this status (documented: ${documented.join(", ")})`] : [];
  }

  private schemaMismatches(body: string, ref: string, where: string): string[] {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return [`${where}: the body is not JSON: ${body.slice(0, 120)}`];
    }
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOC_ID}${ref}` });
      this.validators.set(ref, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).slice(0, 5).map((e) => `${where}: body${e.instancePath} ${e.message ?? "is invalid"} (${e.schemaPath})`);
  }
}

function escape(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}
