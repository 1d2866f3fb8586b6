import { errorCodes } from "../../../shared/platform/errors/api-error";
import type { OpenApiResponseCheck } from "../openapi-check";
import { rawExchange } from "../raw-http";
import { materialize, type Plan } from "./cases";

export interface Answer {
  status: number;
  contentType: string | null;
  body: string;
  /** Answered by the HTTP layer before any operation was chosen (raw cases, 408/417/431). */
  protocolLevel: boolean;
}

export type Outcome = { kind: "answer"; answer: Answer } | { kind: "dropped"; detail: string };

/** Statuses only the HTTP layer answers, before a route is matched: checked as problems, not per operation. */
const PROTOCOL_STATUSES = new Set([408, 417, 431]);

export async function send(origin: string, plan: Plan): Promise<Outcome> {
  if (plan.kind === "raw") {
    const outcome = await rawExchange(origin, materialize(plan.payload), 10_000);
    if (outcome.kind !== "answered") return { kind: "dropped", detail: `${outcome.kind}: ${outcome.kind === "dropped" ? (outcome.error ?? "closed") : ""} after ${JSON.stringify(outcome.received.slice(0, 80))}` };
    const { response } = outcome;
    return { kind: "answer", answer: { status: response.status, contentType: response.headers["content-type"] ?? null, body: response.body, protocolLevel: true } };
  }
  try {
    const res = await fetch(origin + plan.target, {
      method: plan.method,
      headers: plan.headers,
      body: plan.body === undefined ? undefined : new Uint8Array(materialize(plan.body)),
      signal: AbortSignal.timeout(30_000),
      // The service's own answer is judged: a redirect (a sign-in step) is not followed.
      redirect: "manual",
    });
    const body = await res.text();
    return { kind: "answer", answer: { status: res.status, contentType: res.headers.get("content-type"), body, protocolLevel: PROTOCOL_STATUSES.has(res.status) } };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return { kind: "dropped", detail: `${(error as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ""}` };
  }
}

export type Verdict = "ok" | "5xx" | "dropped" | "non-problem-4xx" | "undocumented" | "unexpected-status";

/**
 * What the contract demands of every answer: a 2xx, or a 4xx problem document whose `code` is in the
 * table and whose `status` is the HTTP status; never a 5xx, never a dropped connection. Answers of
 * an operation must also be as the OpenAPI document says.
 */
export function judge(plan: Plan, outcome: Outcome, contract: OpenApiResponseCheck): { verdict: Verdict; detail?: string } {
  if (outcome.kind === "dropped") return { verdict: "dropped", detail: outcome.detail };
  const { answer } = outcome;
  if (answer.status >= 500) return { verdict: "5xx", detail: `${answer.status} ${answer.body.slice(0, 300)}` };
  // A redirect is a sign-in step's answer, checked against the document like any other.
  if (answer.status < 200 || (answer.status >= 300 && answer.status < 400 && answer.status !== 303)) return { verdict: "unexpected-status", detail: String(answer.status) };
  const isHead = plan.kind === "http" && plan.method === "HEAD";
  if (answer.status >= 400) {
    const problem = problemMismatch(answer, isHead);
    if (problem) return { verdict: "non-problem-4xx", detail: `${answer.status}: ${problem}` };
  }
  if (plan.kind === "http" && !answer.protocolLevel && !isHead) {
    const mismatches = contract.check({ method: plan.method, url: plan.target, status: answer.status, contentType: answer.contentType, body: answer.body });
    if (mismatches.length > 0) return { verdict: "undocumented", detail: mismatches.join("; ") };
  }
  return { verdict: "ok" };
}

function problemMismatch(answer: Answer, isHead: boolean): string | undefined {
  if (!answer.contentType?.startsWith("application/problem+json")) return `Content-Type ${answer.contentType}`;
  if (isHead) return undefined;
  let problem: { status?: unknown; code?: unknown };
  try {
    problem = JSON.parse(answer.body) as typeof problem;
  } catch {
    return `body is not JSON: ${answer.body.slice(0, 100)}`;
  }
  if (typeof problem.code !== "string" || !(problem.code in errorCodes)) return `code ${String(problem.code)} is not in the contract's table`;
  if (problem.status !== answer.status) return `problem status ${String(problem.status)}`;
  return undefined;
}
