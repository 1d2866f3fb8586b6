import { serviceActor, type Actor } from "../../platform/actor";
import type { Uses } from "../../domain/operation-context";
import { derivedGuid } from "../../platform/ids/derived-guid";
import { ensureAdminAccount, type AdminAccountResult } from "../../domain/organizations/admin-account";
import { switchIntegrations } from "../../domain/organizations/integration-switches";
import { slaPolicyOf } from "../../domain/incidents/sla-policy";
import { setSlaPolicy } from "../../domain/incidents/sla-settings";
import { demoSlaPolicy } from "../../api/examples/incident-examples";
import { isDeepStrictEqual } from "node:util";

import type { AccountRecord } from "../../model/organizations/account";
import type { UserRecord } from "../../model/organizations/user";
import type { WorkspaceRole } from "../../model/organizations/roles";
import type { WorkspaceRecord } from "../../model/organizations/workspace";

/**
 * A GUID derived from the seed and a name, so that every start with the same DEMO_SEED gives the same
 * ids (RFC 9562 version 8: "custom", here SHA-256 based).
 */
export function demoId(seed: string, name: string): string {
  return derivedGuid(`${seed}/${name}`);
}

/**
 * Who the demo seed acts as when it changes what operators change in the portal (the catalogue, the
 * approval settings, integrations): the same operations, checks and audit events, under this name.
 */
export const DEMO_SEED_ACTOR: Actor = serviceActor("portal", "Demo seed");

export interface DemoData {
  provider: AccountRecord;
  customers: AccountRecord[];
  workspaces: WorkspaceRecord[];
  users: UserRecord[];
}

/** The demo's own workspaces; those beyond them are added for benchmarks. */
const NAMED_WORKSPACES = 5;

/** The demo organization; `workspaceCount` above five adds workspaces (for benchmarks), alternating customers. */
export function buildDemoData(seed: string, now: Date, workspaceCount = 5): DemoData {
  const id = (name: string) => demoId(seed, name);
  const stamp = now.toISOString();
  const provider: AccountRecord = { id: id("account/provider"), name: "Contoso Managed Security", kind: "ServiceProvider", managedByAccountId: null };
  const customers: AccountRecord[] = [
    { id: id("account/fabrikam"), name: "Fabrikam Retail", kind: "Customer", managedByAccountId: provider.id },
    { id: id("account/northwind"), name: "Northwind Health", kind: "Customer", managedByAccountId: provider.id },
  ];
  const [fabrikam, northwind] = customers as [AccountRecord, AccountRecord];
  const workspace = (key: string, name: string, account: AccountRecord): WorkspaceRecord => ({
    id: id(`workspace/${key}`),
    name,
    tenantId: id(`tenant/${account.id}`),
    accountId: account.id,
  });
  const workspaces = [
    workspace("fabrikam-prod", "fabrikam-sentinel-prod", fabrikam),
    workspace("fabrikam-stores", "fabrikam-sentinel-stores", fabrikam),
    workspace("northwind-prod", "northwind-sentinel-prod", northwind),
    workspace("northwind-clinics", "northwind-sentinel-clinics", northwind),
    workspace("contoso-soc", "contoso-soc-internal", provider),
  ];
  for (let n = workspaces.length + 1; n <= workspaceCount; n++) {
    const customer = n % 2 === 0 ? fabrikam : northwind;
    const key = `${customer === fabrikam ? "fabrikam" : "northwind"}-${String(n).padStart(3, "0")}`;
    workspaces.push(workspace(key, `${key}-sentinel`, customer));
  }
  const user = (key: string, displayName: string, email: string, account: AccountRecord, role: UserRecord["organizationalRole"]): UserRecord => ({
    id: id(`user/${key}`),
    accountId: account.id,
    displayName,
    email,
    tenantId: id(`tenant/${account.id}`),
    organizationalRole: role,
    isActive: true,
    createdAt: stamp,
    lastModifiedAt: stamp,
  });
  // The provider's people sign in to the portal through the local identity provider
  // (identity-provider/demo-people.ts): Jonas owns every workspace (he approves runs), Li is an
  // analyst on each, and Sam is registered but signs in without MFA; Priya, of Northwind Health, owns
  // Northwind's workspaces.
  const everyWorkspace = (role: WorkspaceRole) => workspaces.map((w) => ({ workspaceId: w.id, role }));
  const users = [
    user("amira", "Amira Haddad", "amira.haddad@contoso-mssp.example", provider, "Admin"),
    { ...user("jonas", "Jonas Becker", "jonas.becker@contoso-mssp.example", provider, "WorkspaceAdmin"), workspaceAssignments: everyWorkspace("Owner") },
    { ...user("li", "Li Wei", "li.wei@contoso-mssp.example", provider, "Member"), workspaceAssignments: everyWorkspace("Analyst") },
    user("sam", "Sam Okafor", "sam.okafor@contoso-mssp.example", provider, "Member"),
    user("maria", "María García", "maria.garcia@fabrikam.example", fabrikam, "UserAdmin"),
    user("tom", "Tom O'Neill", "tom.oneill@fabrikam.example", fabrikam, "Member"),
    // Northwind's own Owner of its workspaces: the customer's side of a two-sided approval.
    {
      ...user("priya", "Priya Natarajan", "priya.natarajan@northwind.example", northwind, "Member"),
      workspaceAssignments: workspaces.filter((w) => w.accountId === northwind.id).map((w) => ({ workspaceId: w.id, role: "Owner" as const })),
    },
  ];
  return { provider, customers, workspaces, users };
}

export interface SeedResult {
  data: DemoData;
  admin: AdminAccountResult;
}

/** Writes the demo organization (idempotently: the same ids every time) and its admin service account. */
export async function seedDemoData(services: Uses<"auth" | "config" | "events" | "now" | "stores">): Promise<SeedResult> {
  const { stores, config } = services;
  const data = buildDemoData(config.demoSeed, services.now(), config.demoWorkspaces);
  // The records as the demo has them, keeping the approval settings stored on them: those are changed
  // through their operations (demo-gamebooks.ts), which then find nothing to change on a restart.
  for (const account of [data.provider, ...data.customers]) {
    const partnerApproval = (await stores.accounts.get(account.id))?.partnerApproval;
    await stores.accounts.upsert(partnerApproval ? { ...account, partnerApproval } : account);
  }
  for (const workspace of data.workspaces) {
    const stored = (await stores.workspaces.read(workspace.id))?.value;
    await stores.workspaces.upsert({
      ...workspace,
      ...(stored?.gamebookApproval ? { gamebookApproval: stored.gamebookApproval } : {}),
      ...(stored?.slaPolicy ? { slaPolicy: stored.slaPolicy } : {}),
      ...(stored?.preAuthorizations ? { preAuthorizations: stored.preAuthorizations } : {}),
    });
  }
  // The named demo workspaces' SLA targets, set as a WorkspaceAdmin sets them (audited), where they differ.
  for (const workspace of data.workspaces.slice(0, NAMED_WORKSPACES)) {
    const stored = await stores.workspaces.get(workspace.id);
    if (stored && !isDeepStrictEqual(slaPolicyOf(stored), demoSlaPolicy)) await setSlaPolicy({ ...services, actor: DEMO_SEED_ACTOR }, workspace, demoSlaPolicy);
  }
  for (const user of data.users) {
    const existing = await stores.users.find([user.accountId], user.id);
    if (existing) await stores.users.replace({ ...user, createdAt: existing.value.createdAt }, existing.etag);
    else await stores.users.create(user);
  }
  // One demo workspace starts without ticketing, so that EXTENSION_NOT_ENABLED can be seen locally
  // until a WorkspaceAdmin switches it on in the portal. Switched as the portal does (audited), and
  // only while the workspace has no switches stored: a setting changed since is kept.
  const withoutTicketing = data.workspaces[3];
  if (withoutTicketing && !(await stores.integrations.get(withoutTicketing.id))) {
    await switchIntegrations({ ...services, actor: DEMO_SEED_ACTOR }, withoutTicketing, { ticketing: false });
  }
  const admin = await ensureAdminAccount(services, {
    accountId: data.provider.id,
    name: "Local admin",
    workspaceIds: data.workspaces.map((w) => w.id),
    clientId: config.localAdmin.clientId ?? demoId(config.demoSeed, "service-account/local-admin"),
    clientSecret: config.localAdmin.clientSecret,
  });
  return { data, admin };
}
