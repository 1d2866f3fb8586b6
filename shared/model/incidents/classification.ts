import { classifications, type Classification } from "./incident";

/**
 * Vendors spell close reasons their own way; events carry the four canonical values (docs/contract.md §6.5).
 * Keys are lower-case with separators removed.
 */
const synonyms = new Map<string, Classification>(Object.entries({
  truepositive: "TruePositive",
  tp: "TruePositive",
  malicious: "TruePositive",
  confirmed: "TruePositive",
  benignpositive: "BenignPositive",
  benign: "BenignPositive",
  informationalexpectedactivity: "BenignPositive",
  expectedactivity: "BenignPositive",
  falsepositive: "FalsePositive",
  fp: "FalsePositive",
  incorrectalertlogic: "FalsePositive",
  inaccuratedata: "FalsePositive",
  undetermined: "Undetermined",
  unknown: "Undetermined",
  other: "Undetermined",
  notset: "Undetermined",
} satisfies Record<string, Classification>));

/** The canonical classification for a vendor's value; anything unrecognised is Undetermined. */
export function normalizeClassification(value: string | null | undefined): Classification {
  if (!value) return "Undetermined";
  if ((classifications as readonly string[]).includes(value)) return value as Classification;
  // A Map, not an object: the vendor's value must not find `constructor` or `toString`.
  return synonyms.get(value.toLowerCase().replace(/[\s_-]/g, "")) ?? "Undetermined";
}
