import { describe, expect, it } from "vitest";
import { normalizeClassification } from "../../shared/model/incidents/classification";

describe("normalizeClassification", () => {
  it("keeps the four canonical values and maps vendors' spellings onto them", () => {
    const cases: [string | null | undefined, string][] = [
      ["TruePositive", "TruePositive"],
      ["true_positive", "TruePositive"],
      ["True Positive", "TruePositive"],
      ["Malicious", "TruePositive"],
      ["BenignPositive", "BenignPositive"],
      ["InformationalExpectedActivity", "BenignPositive"],
      ["benign", "BenignPositive"],
      ["FalsePositive", "FalsePositive"],
      ["false-positive", "FalsePositive"],
      ["IncorrectAlertLogic", "FalsePositive"],
      ["Undetermined", "Undetermined"],
      ["Other", "Undetermined"],
      ["something new", "Undetermined"],
      ["", "Undetermined"],
      [null, "Undetermined"],
      [undefined, "Undetermined"],
    ];
    for (const [input, expected] of cases) expect([input, normalizeClassification(input)]).toEqual([input, expected]);
  });
});
