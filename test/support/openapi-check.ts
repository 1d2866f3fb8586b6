import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { errorCodes } from "../../shared/platform/errors/api-error";

/* eslint-disable @typescript-eslint/no-explicit-any */
type OpenApiDocument = { paths: Record<string, Record<string, any>>; components?: unknown };

export interface ObservedResponse {
  method: string;
  /** Path and query as requested, e.g. `/api/v2/users?role=Admin`. */
  url: string;
  status: number;
  contentType: string | null;
  body: string;
}

const DOC_ID = "openapi";
const METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options"]);

/**
 * Checks answers against the served OpenAPI document: the status must be documented for the
 * operation, the media type must be one it lists, and the body must match its schema. An answer of
 * no documented operation (an unknown path or method) must be a problem document. Returns the
 * mismatches; empty when the answer is as documented.
 */
export class OpenApiResponseCheck {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: { path: string; segments: string[]; literals: number }[];

  constructor(private readonly doc: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema(doc as object, DOC_ID);
    this.templates = Object.keys(doc.paths)
      .map((path) => {
        const segments = path.split("/").filter(Boolean);
        return { path, segments, literals: segments.filter((s) => !s.startsWith("{")).length };
      })
      .sort((a, b) => b.literals - a.literals);
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
      if (observed.status >= 400 && observed.status < 500) return this.problemMismatches(observed, where, "#/components/schemas/Problem");
      return [`${where}: no documented operation, yet the answer is not a 4xx problem`];
    }
    const responses = operation.responses as Record<string, any>;
    const key = [String(observed.status), `${String(observed.status)[0]}XX`, "default"].find((k) => responses[k] !== undefined);
    if (!key) return [`${where}: status ${observed.status} is not documented for ${observed.method.toUpperCase()} ${template} (documented: ${Object.keys(responses).join(", ")})`];
    const content = responses[key].content as Record<string, { schema?: unknown }> | undefined;
    if (!content) {
      if (observed.status === 204 && observed.body.length > 0) return [`${where}: documented without a body, yet one was sent`];
      return [];
    }
    const mediaType = (observed.contentType ?? "").split(";")[0]!.trim().toLowerCase();
    if (!(mediaType in content)) return [`${where}: Content-Type ${observed.contentType} is not among ${Object.keys(content).join(", ")}`];
    const pointer = `/paths/${escape(template!)}/${method}/responses/${key}/content/${escape(mediaType)}/schema`;
    if (mediaType === "application/problem+json") {
      return [...this.problemMismatches(observed, where, `#${pointer}`), ...this.undocumentedCode(observed, where, content[mediaType] as { examples?: Record<string, unknown> })];
    }
    if (!content[mediaType]?.schema || !mediaType.endsWith("json")) return [];
    return this.schemaMismatches(observed.body, `#${pointer}`, where);
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
