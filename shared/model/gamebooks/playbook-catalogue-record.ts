/** What an automation step can act on; `User` is the contract's value for a directory account. */
export const automationEntityTypes = ["User", "Host", "Ip", "Domain", "Url", "Mailbox", "File", "Process"] as const;
export type AutomationEntityType = (typeof automationEntityTypes)[number];

/**
 * A parameter an action takes, as the backend declares it; a catalogue playbook declares the same
 * (a run may pass only these, each of its kind).
 */
export type ActionParameter =
  | { name: string; kind: "string"; description: string; required: boolean; maxLength: number; default?: string }
  | { name: string; kind: "enum"; description: string; required: boolean; values: readonly string[]; default?: string }
  | { name: string; kind: "boolean"; description: string; required: boolean; default?: boolean }
  | { name: string; kind: "integer"; description: string; required: boolean; min: number; max: number; default?: number };

/** docs/contract.md §2.6 `entityType`: the automation entity types, plus `Incident` for actions on the incident. */
export const playbookEntityTypes = [...automationEntityTypes, "Incident"] as const;

export type PlaybookEntityType = (typeof playbookEntityTypes)[number];

/**
 * Who carries a playbook out. `automation` steps go to the playbook-action port; the two incident
 * actions go through the service's own incident paths (a comment is `incident.comment.added.v1`, a
 * close the status events), so that a gamebook's changes look like every other change.
 */
export const playbookActionKinds = ["automation", "incident.comment", "incident.close"] as const;

export type PlaybookActionKind = (typeof playbookActionKinds)[number];

/**
 * The parameters a playbook declares; a run may pass only these, each of its kind
 * (`gamebooks/playbook-parameters.ts` checks them). The automation backend declares its actions'
 * parameters the same way, so an imported playbook keeps them as they are.
 */
export type PlaybookParameter = ActionParameter;

export interface CataloguePlaybook {
  /** Unique in the workspace; what a run names as `playbooks[i].id`. */
  id: string;
  workspaceId: string;
  /** The automation's own name for the action, the same in every workspace (`reset-password`). */
  referenceId: string;
  name: string;
  description: string;
  entityType: PlaybookEntityType;
  action: PlaybookActionKind;
  /** Running it needs an administrator: it can trigger an approval (approval-policy.ts). */
  isAdminRequired: boolean;
  /** Offered first to analysts; undo playbooks are not. */
  isRecommended: boolean;
  /** The playbook that undoes this one (release an isolated host), in the same workspace; null when none. */
  recoverPlaybookId: string | null;
  /** What a run may pass in `parameters`; anything else is refused. */
  parameters: readonly PlaybookParameter[];
  /**
   * False takes it out of runs and recommendations while keeping its place in the catalogue (its
   * rules and gamebooks stay). Absent means enabled: catalogues written before the switch existed.
   */
  enabled?: boolean;
}

/** Whether runs may use the playbook and rules recommend it. */
export function isEnabled(playbook: Pick<CataloguePlaybook, "enabled">): boolean {
  return playbook.enabled !== false;
}

export interface Gamebook {
  id: string;
  workspaceId: string;
  title: string;
  description: string;
  /** In running order: sequences 1..N. */
  playbooks: readonly { playbookId: string; sequence: number }[];
}

/** A stored rule: "for incidents titled like this, recommend that playbook" (title-pattern.ts). */
export interface PlaybookRuleDefinition {
  workspaceId: string;
  /** A title pattern: exact and case-insensitive, `*` for any run of characters. */
  incidentTitle: string;
  playbookId: string;
  /**
   * An automation rule: on a new incident whose title matches, the service runs the playbook by
   * itself (`auto-run.ts`), still subject to approval. Absent on rules that only recommend.
   */
  autoRun?: boolean;
}

/** One workspace's playbooks, gamebooks and rules: one small document, read whole by every run. */
export interface PlaybookCatalogueRecord {
  /** Always `playbook-catalogue`: one per workspace partition. */
  id: string;
  workspaceId: string;
  playbooks: CataloguePlaybook[];
  gamebooks: Gamebook[];
  rules: PlaybookRuleDefinition[];
  updatedAt: string;
}

export const PLAYBOOK_CATALOGUE_ID = "playbook-catalogue";
