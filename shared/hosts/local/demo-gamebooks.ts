import { isDeepStrictEqual } from "node:util";
import { ApiError, type FieldErrors } from "../../platform/errors/api-error";
import type { Uses } from "../../domain/operation-context";
import { approvalPolicyOf, type ApprovalMode, type PartnerApprovalSetting, type WorkspaceApprovalPolicy } from "../../domain/gamebooks/approval-policy";
import { setApprovalPolicy, setPartnerApproval } from "../../domain/gamebooks/approval-settings";
import { createPreAuthorization } from "../../domain/gamebooks/pre-authorizations";
import { changeCatalogue } from "../../domain/gamebooks/catalogue-changes";
import { rulesOf, ruleProblems } from "../../domain/gamebooks/gamebook-rule-list";
import { catalogueProblems, playbookProblems, type CataloguePlaybook, type Gamebook, type PlaybookActionKind, type PlaybookEntityType } from "../../domain/gamebooks/playbook-catalogue";
import type { PlaybookParameter } from "../../domain/gamebooks/playbook-parameters";
import type { PlaybookRuleDefinition } from "../../domain/gamebooks/playbook-rules";
import type { WorkspaceRecord } from "../../model/organizations/workspace";

import { classifications } from "../../model/incidents/incident";
import { DEMO_SEED_ACTOR, demoId, type DemoData } from "./demo-data";

/** The demo organization's gamebook world: catalogues, gamebooks, rules and approval settings. */
export interface DemoGamebookWorld {
  /** Every workspace's catalogue (`workspaceId` says whose). */
  playbooks: CataloguePlaybook[];
  gamebooks: Gamebook[];
  rules: PlaybookRuleDefinition[];
  workspacePolicies: WorkspaceApprovalPolicy[];
  partnerSettings: PartnerApprovalSetting[];
}

interface PlaybookTemplate {
  name: string;
  description: string;
  entityType: PlaybookEntityType;
  action: PlaybookActionKind;
  isAdminRequired: boolean;
  isRecommended: boolean;
  recover: string | null;
  parameters: readonly PlaybookParameter[];
}

const automation = (
  entityType: PlaybookEntityType,
  name: string,
  description: string,
  options: { admin?: boolean; recover?: string; undo?: boolean; parameters?: readonly PlaybookParameter[] } = {},
): PlaybookTemplate => ({
  name,
  description,
  entityType,
  action: "automation",
  isAdminRequired: options.admin ?? false,
  // Undo playbooks are for after a mistake, not something to suggest for an incident.
  isRecommended: !options.undo,
  recover: options.recover ?? null,
  parameters: options.parameters ?? [],
});

/** The catalogue every demo workspace has, by reference id (the automation's own names, as the vendors suggest them). */
const templates: Readonly<Record<string, PlaybookTemplate>> = {
  "disable-account": automation("User", "Disable user account", "Blocks sign-in for the account in the directory until it is reviewed.", { admin: true, recover: "enable-account" }),
  "enable-account": automation("User", "Re-enable user account", "Allows sign-in for an account that a gamebook disabled.", { admin: true, undo: true }),
  "revoke-sessions": automation("User", "Revoke user sessions", "Signs the user out of every session and revokes their refresh tokens."),
  "reset-password": automation("User", "Reset user password", "Sets a temporary password and forces a change at the next sign-in.", { admin: true }),
  "notify-owner": automation("User", "Notify the user", "E-mails the user and their manager what happened and what to do next.", {
    parameters: [{ name: "note", kind: "string", description: "An extra paragraph for the message.", required: false, maxLength: 2000 }],
  }),
  "isolate-host": automation("Host", "Isolate host", "Cuts the device off the network except for the endpoint service's channel.", {
    admin: true,
    recover: "release-host",
    parameters: [
      { name: "isolationType", kind: "enum", description: "Full, or Selective (keeps Outlook, Teams and Skype working).", required: false, values: ["Full", "Selective"], default: "Full" },
    ],
  }),
  "release-host": automation("Host", "Release host from isolation", "Reconnects a device that a gamebook isolated.", { admin: true, undo: true }),
  "collect-package": automation("Host", "Collect investigation package", "Collects logs, autoruns, running processes and memory artefacts from the device."),
  "quarantine-file": automation("File", "Quarantine file", "Stops the file's processes and quarantines it by hash on every managed device."),
  "block-ip": automation("Ip", "Block IP address", "Adds the address to the perimeter firewall's deny list.", {
    recover: "unblock-ip",
    parameters: [{ name: "expiresInHours", kind: "integer", description: "Lift the block after this many hours; permanent when absent.", required: false, min: 1, max: 8760 }],
  }),
  "unblock-ip": automation("Ip", "Unblock IP address", "Removes an address that a gamebook blocked from the deny list.", { undo: true }),
  "block-domain": automation("Domain", "Block domain", "Adds the domain to the DNS filtering block list.", { recover: "unblock-domain" }),
  "unblock-domain": automation("Domain", "Unblock domain", "Removes a domain that a gamebook blocked from the DNS block list.", { undo: true }),
  "block-url": automation("Url", "Block URL", "Adds the URL to the web proxy's block list."),
  "purge-email": automation("Mailbox", "Purge phishing email", "Removes the message, and copies of it, from every mailbox that received it."),
  "remove-inbox-rule": automation("Mailbox", "Remove inbox forwarding rule", "Deletes inbox rules that forward mail to external addresses."),
  "add-comment": {
    name: "Add incident comment",
    description: "Writes a comment on the incident.",
    entityType: "Incident",
    action: "incident.comment",
    isAdminRequired: false,
    isRecommended: true,
    recover: null,
    parameters: [{ name: "message", kind: "string", description: "The comment.", required: true, maxLength: 4000 }],
  },
  "close-incident": {
    name: "Close incident",
    description: "Closes the incident with a classification and a closing comment.",
    entityType: "Incident",
    action: "incident.close",
    isAdminRequired: false,
    isRecommended: true,
    recover: null,
    parameters: [
      { name: "classification", kind: "enum", description: "Why the incident is closed.", required: true, values: classifications },
      { name: "closingComment", kind: "string", description: "The closing comment.", required: false, maxLength: 4000 },
    ],
  },
};

const gamebookTemplates: readonly { key: string; title: string; description: string; playbooks: readonly string[] }[] = [
  {
    key: "contain-account",
    title: "Contain a compromised account",
    description: "Signs the attacker out, takes the password away from them, tells the user and records it on the incident.",
    playbooks: ["revoke-sessions", "reset-password", "notify-owner", "add-comment"],
  },
  {
    key: "contain-host",
    title: "Contain an infected host",
    description: "Isolates the device, collects evidence from it and blocks the address it talked to.",
    playbooks: ["isolate-host", "collect-package", "block-ip", "add-comment"],
  },
  {
    key: "phishing-response",
    title: "Phishing response",
    description: "Purges the message, blocks the sender's domain, resets the recipient's password and closes the incident.",
    playbooks: ["purge-email", "block-domain", "reset-password", "close-incident"],
  },
];

/**
 * Rules recommending playbooks for the titles the simulated vendors raise (incident-themes.ts), one
 * pattern per theme, and one exact title, as an analyst would write them.
 */
const ruleTemplates: readonly { incidentTitle: string; playbooks: readonly string[] }[] = [
  { incidentTitle: "Phishing email with a malicious link delivered to *", playbooks: ["purge-email", "block-domain", "block-url", "reset-password"] },
  { incidentTitle: "Impossible travel activity for *", playbooks: ["revoke-sessions", "reset-password", "block-ip", "notify-owner"] },
  { incidentTitle: "Malware detected on *", playbooks: ["isolate-host", "quarantine-file", "collect-package"] },
  { incidentTitle: "Suspicious PowerShell command line on *", playbooks: ["isolate-host", "collect-package", "block-domain"] },
  { incidentTitle: "Brute force attack against *", playbooks: ["block-ip", "reset-password", "revoke-sessions"] },
  { incidentTitle: "Possible data exfiltration by *", playbooks: ["revoke-sessions", "disable-account", "block-domain", "isolate-host"] },
  { incidentTitle: "Multiple MFA requests denied by *", playbooks: ["reset-password", "revoke-sessions", "notify-owner"] },
  { incidentTitle: "Suspicious inbox forwarding rule created in *", playbooks: ["remove-inbox-rule", "revoke-sessions", "reset-password"] },
  { incidentTitle: "Lateral movement over RDP from *", playbooks: ["isolate-host", "disable-account"] },
  { incidentTitle: "Credential dumping attempt on *", playbooks: ["isolate-host", "collect-package", "reset-password"] },
  { incidentTitle: "Cryptocurrency mining activity on *", playbooks: ["isolate-host", "block-ip"] },
  { incidentTitle: "Communication with a command-and-control server from *", playbooks: ["block-ip", "block-domain", "isolate-host"] },
  { incidentTitle: "* added to a privileged group", playbooks: ["disable-account", "revoke-sessions"] },
  { incidentTitle: "Suspicious OAuth application consent by *", playbooks: ["revoke-sessions", "disable-account"] },
  { incidentTitle: "*ransomware*", playbooks: ["isolate-host", "collect-package"] },
  { incidentTitle: "Suspicious sign-in from TOR exit node", playbooks: ["revoke-sessions", "block-ip"] },
];

/**
 * The demo gamebook world, deterministic from the seed: every workspace has the same catalogue (under
 * its own ids), the three gamebooks and the rules. Approval: `northwind-sentinel-clinics` approves
 * every run itself, and the provider approves runs with admin-required playbooks for Northwind
 * Health's workspaces; Fabrikam's and the provider's own workspaces dispatch at once.
 */
export function buildDemoGamebooks(seed: string, demo: Pick<DemoData, "provider" | "customers" | "workspaces">): DemoGamebookWorld {
  const world: DemoGamebookWorld = { playbooks: [], gamebooks: [], rules: [], workspacePolicies: [], partnerSettings: [] };
  for (const workspace of demo.workspaces) {
    const playbookId = (reference: string) => demoId(seed, `playbook/${workspace.id}/${reference}`);
    for (const [referenceId, t] of Object.entries(templates)) {
      world.playbooks.push({
        id: playbookId(referenceId),
        workspaceId: workspace.id,
        referenceId,
        name: t.name,
        description: t.description,
        entityType: t.entityType,
        action: t.action,
        isAdminRequired: t.isAdminRequired,
        isRecommended: t.isRecommended,
        recoverPlaybookId: t.recover === null ? null : playbookId(t.recover),
        parameters: t.parameters,
      });
    }
    for (const g of gamebookTemplates) {
      world.gamebooks.push({
        id: demoId(seed, `gamebook/${workspace.id}/${g.key}`),
        workspaceId: workspace.id,
        title: g.title,
        description: g.description,
        playbooks: g.playbooks.map((reference, i) => ({ playbookId: playbookId(reference), sequence: i + 1 })),
      });
    }
    for (const rule of ruleTemplates) {
      for (const reference of rule.playbooks) world.rules.push({ workspaceId: workspace.id, incidentTitle: rule.incidentTitle, playbookId: playbookId(reference) });
    }
  }
  const clinics = demo.workspaces.find((w) => w.name === "northwind-sentinel-clinics");
  if (clinics) world.workspacePolicies.push({ workspaceId: clinics.id, mode: "AllRuns" satisfies ApprovalMode });
  const northwind = demo.customers.find((c) => c.name === "Northwind Health");
  if (northwind) world.partnerSettings.push({ providerAccountId: demo.provider.id, mode: "AdminRequiredPlaybooks", accountIds: [northwind.id] });
  return world;
}

/**
 * Writes the demo gamebook world through the operations operators use in the portal, as the demo seed
 * (DEMO_SEED_ACTOR): each workspace's catalogue, checked as the portal checks playbooks and rules, the
 * clinics workspace's approval policy and the provider's partner setting, each audited. Each is made
 * the demo's where it differs and left alone where it is already, so a restart on a durable store
 * writes nothing twice and brings back what an example or a person changed.
 */
export async function seedDemoGamebooks(services: Uses<"config" | "events" | "now" | "stores">, demo: Pick<DemoData, "provider" | "customers" | "workspaces">): Promise<DemoGamebookWorld> {
  const world = buildDemoGamebooks(services.config.demoSeed, demo);
  const ctx = { ...services, actor: DEMO_SEED_ACTOR };
  // Grouped once: picking each workspace's part out of the whole world made a start with 10,000
  // workspaces quadratic (25 s of 71 at 3,000).
  const catalogues = new Map(demo.workspaces.map((w) => [w.id, { playbooks: [] as DemoGamebookWorld["playbooks"], gamebooks: [] as DemoGamebookWorld["gamebooks"], rules: [] as DemoGamebookWorld["rules"] }]));
  for (const p of world.playbooks) catalogues.get(p.workspaceId)?.playbooks.push(p);
  for (const g of world.gamebooks) catalogues.get(g.workspaceId)?.gamebooks.push(g);
  for (const r of world.rules) catalogues.get(r.workspaceId)?.rules.push(r);
  for (const workspace of demo.workspaces) await seedCatalogue(ctx, workspace, catalogues.get(workspace.id)!);
  for (const policy of world.workspacePolicies) {
    const workspace = await services.stores.workspaces.get(policy.workspaceId);
    const wanted = approvalPolicyOf({ gamebookApproval: policy.mode });
    if (workspace && !isDeepStrictEqual(approvalPolicyOf(workspace), wanted)) await setApprovalPolicy(ctx, workspace, wanted);
  }
  for (const setting of world.partnerSettings) {
    const stored = (await services.stores.accounts.get(setting.providerAccountId))?.partnerApproval;
    const same = stored?.mode === setting.mode && isDeepStrictEqual([...stored.accountIds], [...setting.accountIds]);
    if (!same) await setPartnerApproval(ctx, setting.providerAccountId, setting);
  }
  await seedPreAuthorization(ctx, demo);
  return world;
}

/**
 * A standing pre-authorization in the provider's own workspace (contoso-soc-internal): its SOC lead
 * lets host isolation run without asking for half a year, so that the pre-authorization examples
 * have one to read and revoke. Recorded once; a start finds it and writes nothing.
 */
async function seedPreAuthorization(ctx: Uses<"actor" | "config" | "events" | "now" | "stores">, demo: Pick<DemoData, "provider" | "workspaces">): Promise<void> {
  const workspace = demo.workspaces.find((w) => w.name === "contoso-soc-internal");
  const stored = workspace && (await ctx.stores.workspaces.get(workspace.id));
  if (!stored) return;
  const seed = ctx.config.demoSeed;
  const id = demoId(seed, `pre-authorization/${stored.id}/isolate-host`);
  if ((stored.preAuthorizations ?? []).some((p) => p.id === id)) return;
  const playbookId = demoId(seed, `playbook/${stored.id}/isolate-host`);
  const jonas = { userId: demoId(seed, "user/jonas"), name: "Jonas Becker" };
  const endsAt = new Date(ctx.now().getTime() + 182 * 86_400_000).toISOString();
  await createPreAuthorization(ctx, stored, { playbookIds: [playbookId], endsAt, note: "Isolate our own hosts without asking: the SOC's own devices." }, jonas, id);
}

/** JSON as stored, so that what the store gives back compares equal to what was written. */
const asStored = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/**
 * Makes the workspace's catalogue the demo's, whole (playbooks, gamebooks, rules), in one change of
 * the catalogue with its audit event: each playbook checked as the portal checks one, the rules as its
 * rules page checks them, and the whole as every catalogue change is. Nothing is written when the
 * catalogue is the demo's already.
 */
async function seedCatalogue(
  ctx: Uses<"actor" | "events" | "now" | "stores">,
  workspace: WorkspaceRecord,
  { playbooks, gamebooks, rules }: Pick<DemoGamebookWorld, "playbooks" | "gamebooks" | "rules">,
): Promise<void> {
  const errors: FieldErrors = Object.create(null) as FieldErrors;
  playbooks.forEach((playbook, i) => {
    for (const problem of playbookProblems(playbook, playbooks.filter((p) => p.id !== playbook.id))) (errors[`playbooks[${i}].${problem.path}`] ??= []).push(problem.message);
  });
  Object.assign(errors, ruleProblems(rulesOf(rules), { playbooks }));
  const whole = catalogueProblems(playbooks, gamebooks);
  if (whole.length > 0) errors.catalogue = whole;
  if (Object.keys(errors).length > 0) throw new ApiError("VALIDATION_ERROR", `The demo catalogue of ${workspace.name} has problems: ${JSON.stringify(errors)}`, { errors });
  await changeCatalogue(ctx, workspace, undefined, (draft) => {
    const created = draft.updatedAt === "";
    if (isDeepStrictEqual(asStored({ p: draft.playbooks, g: draft.gamebooks, r: draft.rules }), asStored({ p: playbooks, g: gamebooks, r: rules }))) return null;
    draft.playbooks = playbooks;
    draft.gamebooks = gamebooks;
    draft.rules = rules;
    // Its own activity: not an import, nor one playbook's or the rules' change, but the whole catalogue made the demo's.
    return {
      activityType: "DemoCatalogue",
      activityAction: created ? "Create" : "Update",
      targetResourceType: "Workspace",
      targetResourceId: workspace.id,
      targetResourceName: workspace.name,
      metadata: { demo: { playbooks: playbooks.length, gamebooks: gamebooks.length, rules: rulesOf(rules).length } },
    };
  });
}
