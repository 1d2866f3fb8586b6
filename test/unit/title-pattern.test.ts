import { describe, expect, it } from "vitest";
import { normaliseTitle, patternProblem, patternSpecificity, titleMatch, titleMatches } from "../../shared/domain/gamebooks/title-pattern";

describe("titleMatches", () => {
  it("matches a pattern without wildcard only against the whole title, in any letter case", () => {
    expect(titleMatches("Suspicious sign-in from TOR exit node", "suspicious SIGN-IN from tor exit node")).toBe(true);
    expect(titleMatches("Suspicious sign-in from TOR exit node", "Suspicious sign-in from TOR exit node (2)")).toBe(false);
    expect(titleMatches("Suspicious sign-in", "Suspicious sign-in from TOR exit node")).toBe(false);
  });

  it.each([
    ["Impossible travel activity for *", "Impossible travel activity for ann@contoso.com", true],
    // Titles are trimmed, so the space the pattern needs before its wildcard is gone.
    ["Impossible travel activity for *", "Impossible travel activity for ", false],
    ["Impossible travel activity for *", "Impossible travel activity", false],
    ["* added to a privileged group", "svc-backup@fabrikam.example added to a privileged group", true],
    ["* added to a privileged group", "svc-backup added to a privileged group today", false],
    ["*ransomware*", "Ransomware behaviour detected on FAB-SRV-0001", true],
    ["*ransomware*", "Possible RANSOMWARE", true],
    ["*ransomware*", "Ransom note found", false],
    ["Malware * on *", "Malware detected on FAB-WS-0042", true],
    ["Malware * on *", "Malware detected at FAB-WS-0042", false],
    ["*", "anything at all", true],
    ["*", "", true],
    ["a*a", "a", false],
    ["a*a", "aa", true],
    ["ab*ba", "aba", false],
    ["*x*x*", "x", false],
    ["*x*x*", "axbxc", true],
  ])("%j against %j → %s", (pattern, title, expected) => {
    expect(titleMatches(pattern, title)).toBe(expected);
  });

  it("treats regular-expression characters literally", () => {
    expect(titleMatches("Alert (high) [x]. + ? $ ^ |", "alert (HIGH) [x]. + ? $ ^ |")).toBe(true);
    expect(titleMatches("a.c", "abc")).toBe(false);
    expect(titleMatches("Is this a phish?", "Is this a phish!")).toBe(false);
  });

  it("ignores outer whitespace and reads inner whitespace runs as one space, on both sides", () => {
    expect(titleMatches("  Malware detected on *", "Malware\tdetected   on\nHOST-1  ")).toBe(true);
    expect(titleMatches("Malware  detected on *", "Malware detected on HOST-1")).toBe(true);
    expect(titleMatches("Malwaredetected on *", "Malware detected on HOST-1")).toBe(false);
  });

  it("matches non-ASCII titles case-insensitively and regardless of Unicode composition", () => {
    const composed = "Connexion suspecte pour Élodie Müller";
    const decomposed = composed.normalize("NFD");
    expect(decomposed).not.toBe(composed);
    expect(titleMatches("connexion suspecte pour élodie *", decomposed)).toBe(true);
    expect(titleMatches("Вход с нового устройства *", "ВХОД С НОВОГО УСТРОЙСТВА для ивана")).toBe(true);
    expect(titleMatches("Доступ/запрос *", "Доступ/запрос 1/2")).toBe(true);
  });

  it("stays fast on patterns that would make a backtracking matcher explode", () => {
    const pattern = `${"*a".repeat(40)}*b`;
    const title = "a".repeat(20_000);
    const started = performance.now();
    expect(titleMatches(pattern, title)).toBe(false);
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe("titleMatch", () => {
  it.each([
    ["Impossible travel activity for *", "Impossible Travel Activity for Ann@Contoso.com", ["Ann@Contoso.com"]],
    ["Malware * on *", "Malware  detected on FAB-WS-0042", ["detected", "FAB-WS-0042"]],
    ["*ransomware*", "Possible RANSOMWARE", ["Possible ", ""]],
    ["a**b", "axyb", ["", "xy"]],
    ["Suspicious sign-in from TOR exit node", "suspicious sign-in from tor exit node", []],
  ])("%j against %j covers %j with its wildcards, in the title's own letter case", (pattern, title, wildcards) => {
    expect(titleMatch(pattern, title)).toEqual({ wildcards });
  });

  it("is null exactly when titleMatches is false", () => {
    expect(titleMatch("Malware * on *", "Malware detected at FAB-WS-0042")).toBeNull();
    expect(titleMatches("Malware * on *", "Malware detected at FAB-WS-0042")).toBe(false);
  });

  it("reports lower case when folding the case changes the title's length", () => {
    expect(titleMatch("login by *", "Login by İSMAIL")).toEqual({ wildcards: ["i̇smail"] });
  });
});

describe("title pattern helpers", () => {
  it("normalises to NFC, trims, collapses whitespace and lower-cases", () => {
    expect(normaliseTitle("  Élodie\u00a0 MÜLLER \n")).toBe("élodie müller");
  });

  it("ranks patterns by their literal characters, so that the specific come first", () => {
    expect(patternSpecificity("Malware detected on *")).toBeGreaterThan(patternSpecificity("*malware*"));
    expect(patternSpecificity("*")).toBe(0);
  });

  it("refuses empty and over-long patterns", () => {
    expect(patternProblem("   ")).toMatch(/empty/);
    expect(patternProblem("x".repeat(501))).toMatch(/500/);
    expect(patternProblem("*")).toBeNull();
  });
});
