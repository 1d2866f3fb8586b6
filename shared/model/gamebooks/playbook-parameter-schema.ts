import { z } from "zod";
import type { PlaybookParameter } from "./playbook-catalogue-record";

/** At most this many parameters per playbook: a run passes at most 50 (run-request.ts). */
export const MAX_PLAYBOOK_PARAMETERS = 50;
/** A run's string value is at most this long (run-request.ts). */
const MAX_STRING_LENGTH = 4000;

/**
 * The zod schema of a playbook's declared parameters, as the portal's catalogue editor and the
 * automation bridge's playbook list both carry them: names a run can send as JSON keys, each kind
 * with what it needs (a string's length limit, an enum's values, an integer's range), a default that
 * fits, and no name twice. `strict` refuses unknown fields (the portal's own input); without it they
 * are dropped (a bridge may add fields).
 */
export function playbookParametersSchema(strict: boolean) {
  const object = strict ? z.strictObject : z.object;
  const common = {
    name: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9_]{0,99}$/, "A letter, then up to 99 letters, digits or '_'.")
      .describe("What a run passes it as, in `playbooks[i].parameters`."),
    description: z.string().trim().max(1000).default(""),
    required: z.boolean().default(false),
  };
  const parameter = z
    .discriminatedUnion("kind", [
      object({ ...common, kind: z.literal("string"), maxLength: z.int().min(1).max(MAX_STRING_LENGTH).default(MAX_STRING_LENGTH), default: z.string().max(MAX_STRING_LENGTH).optional() }),
      object({ ...common, kind: z.literal("enum"), values: z.array(z.string().trim().min(1).max(200)).min(1).max(50), default: z.string().optional() }),
      object({ ...common, kind: z.literal("boolean"), default: z.boolean().optional() }),
      object({
        ...common,
        kind: z.literal("integer"),
        min: z.int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER),
        max: z.int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER),
        default: z.int().optional(),
      }),
    ])
    .superRefine((p, ctx) => {
      const problem = defaultProblem(p);
      if (problem) ctx.addIssue({ code: "custom", path: [problem.path], message: problem.message });
    });
  return z
    .array(parameter)
    .max(MAX_PLAYBOOK_PARAMETERS)
    .superRefine((list, ctx) => {
      const seen = new Set<string>();
      list.forEach((p, i) => {
        if (seen.has(p.name)) ctx.addIssue({ code: "custom", path: [i, "name"], message: `${p.name} is declared twice.` });
        seen.add(p.name);
      });
    });
}

/** What is wrong with a parameter's own declaration (its range, its values, its default), if anything. */
function defaultProblem(p: PlaybookParameter): { path: string; message: string } | null {
  switch (p.kind) {
    case "string":
      return p.default !== undefined && p.default.length > p.maxLength ? { path: "default", message: `Longer than maxLength (${p.maxLength}).` } : null;
    case "enum":
      if (new Set(p.values).size !== p.values.length) return { path: "values", message: "A value is listed twice." };
      return p.default !== undefined && !p.values.includes(p.default) ? { path: "default", message: "Must be one of values." } : null;
    case "boolean":
      return null;
    case "integer":
      if (p.min > p.max) return { path: "min", message: "Must not be greater than max." };
      return p.default !== undefined && (p.default < p.min || p.default > p.max) ? { path: "default", message: `Must be between ${p.min} and ${p.max}.` } : null;
  }
}
