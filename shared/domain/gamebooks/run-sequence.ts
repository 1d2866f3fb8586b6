import { derivedGuid } from "../../platform/ids/derived-guid";

export interface SequenceProblem {
  /** `playbooks[i].sequence`, or `playbooks` for what belongs to no one entry (the missing numbers). */
  path: string;
  message: string;
}

/**
 * docs/contract.md §4.1 rule 1: the playbooks' `sequence` values must be exactly 1..N, unique, without gaps.
 * Every offending entry is named: a repeat (each occurrence after the first) or a number outside
 * 1..N; the numbers left out are reported on `playbooks`. Empty when the sequences are sound.
 */
export function sequenceProblems(sequences: readonly number[]): SequenceProblem[] {
  const n = sequences.length;
  const problems: SequenceProblem[] = [];
  const seen = new Set<number>();
  sequences.forEach((sequence, i) => {
    const path = `playbooks[${i}].sequence`;
    if (!Number.isInteger(sequence) || sequence < 1 || sequence > n) {
      problems.push({ path, message: `Must be between 1 and ${n}, the number of playbooks.` });
    } else if (seen.has(sequence)) {
      problems.push({ path, message: `Sequence ${sequence} is used more than once.` });
    }
    seen.add(sequence);
  });
  const missing = Array.from({ length: n }, (_, i) => i + 1).filter((s) => !seen.has(s));
  if (missing.length > 0) problems.push({ path: "playbooks", message: `Sequences must be exactly 1..${n}; missing: ${missing.join(", ")}.` });
  return problems;
}

/**
 * The idempotency key of one playbook of one run, handed to the automation backend: the same run
 * and sequence always give the same key, so a redelivered step is recognised, never run twice.
 */
export function playbookStepId(runId: string, sequence: number): string {
  return derivedGuid(`gamebook-step\n${runId}/${sequence}`);
}
