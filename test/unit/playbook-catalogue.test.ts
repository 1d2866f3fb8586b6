import { describe, expect, it } from "vitest";
import { actsOn, affectedEntityName, catalogueProblems, sentinelEntitiesFor, type CataloguePlaybook, type Gamebook } from "../../shared/domain/gamebooks/playbook-catalogue";
import { checkParameters, type PlaybookParameter } from "../../shared/domain/gamebooks/playbook-parameters";
import { matchingRules, ruleMatches, type PlaybookRuleDefinition } from "../../shared/domain/gamebooks/playbook-rules";

const ws = "ws-1";

function playbook(id: string, extra: Partial<CataloguePlaybook> = {}): CataloguePlaybook {
  return {
    id,
    workspaceId: ws,
    referenceId: id,
    name: `Playbook ${id}`,
    description: `Does ${id}.`,
    entityType: "User",
    action: "automation",
    isAdminRequired: false,
    isRecommended: true,
    recoverPlaybookId: null,
    parameters: [],
    ...extra,
  };
}

describe("playbooks and incident entities", () => {
  it("acts on the entity kinds of its entity type: User on accounts, Domain and Url on URLs", () => {
    expect(actsOn({ entityType: "User" }, { kind: "Account" })).toBe(true);
    expect(actsOn({ entityType: "User" }, { kind: "Mailbox" })).toBe(false);
    expect(actsOn({ entityType: "Domain" }, { kind: "Url" })).toBe(true);
    expect(actsOn({ entityType: "Url" }, { kind: "Url" })).toBe(true);
    expect(actsOn({ entityType: "Host" }, { kind: "Ip" })).toBe(false);
    expect(actsOn({ entityType: "Incident" }, { kind: "Account" })).toBe(false);
  });

  it("lists the incident entity kinds of each entity type (docs/contract.md §2.7 sentinelEntities)", () => {
    expect(sentinelEntitiesFor("User")).toEqual(["Account"]);
    expect(sentinelEntitiesFor("Domain")).toEqual(["Url"]);
    expect(sentinelEntitiesFor("Incident")).toEqual([]);
  });

  it("addresses a Domain playbook to the URL's domain, and others to the entity's name", () => {
    const url = { name: "https://Login-Secure.example/signin?id=1", properties: { url: "https://Login-Secure.example/signin?id=1", domain: "Login-Secure.example" } };
    expect(affectedEntityName("Domain", url)).toBe("login-secure.example");
    expect(affectedEntityName("Domain", { ...url, properties: {} })).toBe("login-secure.example");
    expect(affectedEntityName("Url", url)).toBe(url.name);
    expect(affectedEntityName("User", { name: "ann@contoso.example", properties: {} })).toBe("ann@contoso.example");
  });
});

describe("catalogueProblems", () => {
  it("finds nothing wrong with a sound catalogue", () => {
    const playbooks = [playbook("disable", { recoverPlaybookId: "enable" }), playbook("enable"), playbook("comment", { entityType: "Incident", action: "incident.comment" })];
    const gamebooks: Gamebook[] = [{ id: "g", workspaceId: ws, title: "G", description: "", playbooks: [{ playbookId: "comment", sequence: 2 }, { playbookId: "disable", sequence: 1 }] }];
    expect(catalogueProblems(playbooks, gamebooks)).toEqual([]);
  });

  it("names duplicate ids, broken undo playbooks, misfit actions and bad gamebooks", () => {
    const playbooks = [
      playbook("a", { recoverPlaybookId: "missing" }),
      playbook("b", { recoverPlaybookId: "host", entityType: "User" }),
      playbook("host", { entityType: "Host" }),
      playbook("host", { entityType: "Host" }),
      playbook("comment", { entityType: "User", action: "incident.comment" }),
      playbook("isolate", { entityType: "Incident", action: "automation" }),
    ];
    const gamebooks: Gamebook[] = [{ id: "g", workspaceId: ws, title: "G", description: "", playbooks: [{ playbookId: "a", sequence: 1 }, { playbookId: "nope", sequence: 3 }] }];
    expect(catalogueProblems(playbooks, gamebooks)).toEqual([
      "Playbook id host is used twice.",
      "Playbook a: its recover playbook is not in the catalogue.",
      "Playbook b: its recover playbook acts on Host.",
      "Playbook comment: action incident.comment does not fit entity type User.",
      "Playbook isolate: action automation does not fit entity type Incident.",
      'Gamebook "G": sequences are not 1..N.',
      'Gamebook "G": playbook nope is not in the catalogue.',
    ]);
  });
});

describe("checkParameters", () => {
  const declared: PlaybookParameter[] = [
    { name: "message", kind: "string", description: "", required: true, maxLength: 10 },
    { name: "isolationType", kind: "enum", description: "", required: false, values: ["Full", "Selective"], default: "Full" },
    { name: "notify", kind: "boolean", description: "", required: false },
    { name: "hours", kind: "integer", description: "", required: false, min: 1, max: 24 },
  ];

  it("accepts declared values, trims strings and fills in defaults", () => {
    expect(checkParameters(declared, { message: "  hello ", notify: true, hours: 24 })).toEqual({
      ok: true,
      values: { message: "hello", isolationType: "Full", notify: true, hours: 24 },
    });
  });

  it("names every unknown, missing or ill-typed parameter", () => {
    const result = checkParameters(declared, { message: "x".repeat(11), isolationType: "Partial", notify: "yes", hours: 1.5, approvedBy: "me" });
    expect(result).toEqual({
      ok: false,
      problems: [
        { path: "approvedBy", message: "Not a parameter of this playbook. Accepted: message, isolationType, notify, hours." },
        { path: "message", message: "At most 10 characters." },
        { path: "isolationType", message: "Must be one of Full, Selective." },
        { path: "notify", message: "Must be true or false." },
        { path: "hours", message: "Must be an integer." },
      ],
    });
    expect(checkParameters(declared, {})).toEqual({ ok: false, problems: [{ path: "message", message: "Required." }] });
    expect(checkParameters(declared, { message: "   " })).toEqual({ ok: false, problems: [{ path: "message", message: "Must not be empty." }] });
    expect(checkParameters(declared, { message: "a", hours: 0 })).toMatchObject({ ok: false, problems: [{ path: "hours", message: "Must be between 1 and 24." }] });
  });

  it("takes no parameters for a playbook that declares none, and reads a missing object as empty", () => {
    expect(checkParameters([], undefined)).toEqual({ ok: true, values: {} });
    expect(checkParameters([], { x: 1 })).toEqual({ ok: false, problems: [{ path: "x", message: "Not a parameter of this playbook. This playbook takes no parameters." }] });
    expect(checkParameters([], [1])).toEqual({ ok: false, problems: [{ path: "", message: "Must be an object." }] });
  });
});

describe("matchingRules", () => {
  const catalogue = [
    playbook("revoke", { name: "Revoke user sessions" }),
    playbook("isolate", { entityType: "Host", isAdminRequired: true, recoverPlaybookId: "release" }),
    playbook("release", { entityType: "Host" }),
    { ...playbook("elsewhere"), workspaceId: "ws-2" },
  ];
  const rules: PlaybookRuleDefinition[] = [
    { workspaceId: ws, incidentTitle: "*malware*", playbookId: "isolate" },
    { workspaceId: ws, incidentTitle: "Malware detected on *", playbookId: "revoke" },
    { workspaceId: ws, incidentTitle: "Impossible travel activity for *", playbookId: "revoke" },
    { workspaceId: ws, incidentTitle: "Malware detected on *", playbookId: "gone" },
    { workspaceId: ws, incidentTitle: "*", playbookId: "elsewhere" },
  ];

  it("returns the matching rules as docs/contract.md §2.7 rules, most specific pattern first", () => {
    expect(matchingRules(rules, catalogue, "MALWARE detected on FAB-WS-0042")).toEqual([
      {
        playbookId: "revoke",
        playbookName: "Revoke user sessions",
        playbookDescription: "Does revoke.",
        incidentTitle: "Malware detected on *",
        entity: "User",
        sentinelEntities: ["Account"],
        recoverPlaybookId: "",
        isAdminRequired: false,
      },
      {
        playbookId: "isolate",
        playbookName: "Playbook isolate",
        playbookDescription: "Does isolate.",
        incidentTitle: "*malware*",
        entity: "Host",
        sentinelEntities: ["Host"],
        recoverPlaybookId: "release",
        isAdminRequired: true,
      },
    ]);
  });

  it("skips rules whose playbook is not in the workspace's catalogue, and finds none for an unmatched title", () => {
    expect(matchingRules(rules, catalogue, "Impossible travel activity for ann@contoso.example").map((r) => r.playbookId)).toEqual(["revoke"]);
    expect(matchingRules(rules, catalogue, "Something else entirely")).toEqual([]);
  });

  it("recommends no playbook that is switched off", () => {
    const off = catalogue.map((p) => (p.id === "isolate" ? { ...p, enabled: false } : p));
    expect(matchingRules(rules, off, "MALWARE detected on FAB-WS-0042").map((r) => r.playbookId)).toEqual(["revoke"]);
  });

  it("says why each rule matched: its place among the stored rules and what each wildcard covered, in the order matchingRules gives", () => {
    const title = "  MALWARE detected   on FAB-WS-0042";
    const matches = ruleMatches(rules, catalogue, title);
    expect(matches.map((m) => [m.index, m.playbook.id, m.match.wildcards])).toEqual([
      [1, "revoke", ["FAB-WS-0042"]],
      [0, "isolate", ["", " detected on FAB-WS-0042"]],
    ]);
    expect(matches.map((m) => m.playbook.id)).toEqual(matchingRules(rules, catalogue, title).map((r) => r.playbookId));
  });
});
