import type { PlaybookParameter } from "../../model/gamebooks/playbook-catalogue-record";

/**
 * The parameters a playbook declares, and the check of what a run passes for them. A run may pass
 * only declared parameters (docs/contract.md §4.1 rule 2: only the documented inputs), each of its declared kind;
 * missing optional ones take their default.
 */
export type { PlaybookParameter };

export type ParameterValues = Record<string, string | number | boolean>;

export interface ParameterProblem {
  /** The parameter's name (the caller prefixes `playbooks[i].parameters.`); "" for the object itself. */
  path: string;
  message: string;
}

export type ParameterCheck = { ok: true; values: ParameterValues } | { ok: false; problems: ParameterProblem[] };

/** Checks `given` against `declared`; on success, the values to run with (defaults filled in). */
export function checkParameters(declared: readonly PlaybookParameter[], given: unknown): ParameterCheck {
  if (given === undefined || given === null) given = {};
  if (typeof given !== "object" || Array.isArray(given)) return { ok: false, problems: [{ path: "", message: "Must be an object." }] };
  const input = given as Record<string, unknown>;
  const problems: ParameterProblem[] = [];
  const values: ParameterValues = {};
  const known = new Set(declared.map((p) => p.name));
  for (const name of Object.keys(input)) {
    if (!known.has(name)) {
      const accepted = declared.length === 0 ? "This playbook takes no parameters." : `Accepted: ${declared.map((p) => p.name).join(", ")}.`;
      problems.push({ path: name, message: `Not a parameter of this playbook. ${accepted}` });
    }
  }
  for (const parameter of declared) {
    const value = input[parameter.name];
    if (value === undefined || value === null) {
      if (parameter.default !== undefined) values[parameter.name] = parameter.default;
      else if (parameter.required) problems.push({ path: parameter.name, message: "Required." });
      continue;
    }
    const problem = valueProblem(parameter, value);
    if (problem) problems.push({ path: parameter.name, message: problem });
    else values[parameter.name] = typeof value === "string" ? value.trim() : (value as number | boolean);
  }
  return problems.length === 0 ? { ok: true, values } : { ok: false, problems };
}

function valueProblem(parameter: PlaybookParameter, value: unknown): string | null {
  switch (parameter.kind) {
    case "string":
      if (typeof value !== "string") return "Must be a string.";
      if (parameter.required && value.trim().length === 0) return "Must not be empty.";
      return value.length > parameter.maxLength ? `At most ${parameter.maxLength} characters.` : null;
    case "enum":
      return typeof value === "string" && parameter.values.includes(value) ? null : `Must be one of ${parameter.values.join(", ")}.`;
    case "boolean":
      return typeof value === "boolean" ? null : "Must be true or false.";
    case "integer":
      if (typeof value !== "number" || !Number.isInteger(value)) return "Must be an integer.";
      return value < parameter.min || value > parameter.max ? `Must be between ${parameter.min} and ${parameter.max}.` : null;
  }
}
