import type { VendorIncident } from "../../../model/incidents/incident";
import { actsOn, affectedEntityName } from "../../../domain/gamebooks/playbook-catalogue";
import { isEnabled, type CataloguePlaybook, type PlaybookCatalogueRecord, type PlaybookEntityType, type PlaybookParameter } from "../../../model/gamebooks/playbook-catalogue-record";
import { ruleMatches } from "../../../domain/gamebooks/playbook-rules";
import { runnableGamebookCatalog, type RecommendedPlaybook, type UnavailableRecommendation } from "../../../domain/gamebooks/recommended-playbooks";

/**
 * What can run on an incident, as a person choosing a playbook sees it (Splunk SOAR's and Cortex
 * XSOAR's "run playbook" on a case): the workspace catalogue's playbooks and gamebooks that are
 * switched on, recommended first — by the workspace's rules matching the incident's title (most
 * specific first) and by the vendor — each playbook with the incident's entities it can act on, its
 * declared parameters and its undo playbook. A run names them as given (`playbooks[i].id`,
 * `entityId`).
 */
export interface IncidentPlaybookOffer {
  playbooks: OfferedPlaybook[];
  gamebooks: OfferedGamebook[];
  /** The vendor's recommendations the workspace cannot run, with why (`recommended-playbooks.ts`). */
  unavailable: UnavailableRecommendation[];
}

export interface OfferedPlaybook {
  id: string;
  referenceId: string;
  name: string;
  description: string;
  entityType: PlaybookEntityType;
  isAdminRequired: boolean;
  recommended: boolean;
  /** The rule patterns that recommend it for this title, most specific first; whether the vendor does. */
  recommendedBy: { rules: string[]; vendor: boolean };
  /** What it can act on here: the incident's entities of its kind, or the incident itself for an incident playbook. Empty: nothing here fits it. */
  entities: OfferedEntity[];
  parameters: PlaybookParameter[];
  /** The playbook that undoes it, when the catalogue names one. */
  undoPlaybook: { id: string; name: string } | null;
}

export interface OfferedEntity {
  entityId: string;
  /** The incident entity's kind, or `Incident`. */
  kind: string;
  /** What the playbook would address: the UPN, host name, address, the domain of a URL, or the incident. */
  name: string;
}

export interface OfferedGamebook {
  id: string;
  title: string;
  description: string;
  recommended: boolean;
  /** In running order. */
  playbooks: { sequence: number; playbookId: string; name: string; entityType: PlaybookEntityType }[];
  /** False when a playbook of it has nothing to act on here; `reason` says which. */
  runnable: boolean;
  reason: string | null;
}

export function incidentPlaybookOffer(catalogue: PlaybookCatalogueRecord, incident: Pick<VendorIncident, "id" | "source" | "number" | "title" | "entities" | "gamebookCatalog">): IncidentPlaybookOffer {
  const enabled = catalogue.playbooks.filter(isEnabled);
  const byId = new Map(catalogue.playbooks.map((p) => [p.id, p]));
  const rulesFor = new Map<string, string[]>();
  for (const match of ruleMatches(catalogue.rules, catalogue.playbooks, incident.title)) {
    rulesFor.set(match.playbook.id, [...(rulesFor.get(match.playbook.id) ?? []), match.definition.incidentTitle]);
  }
  const vendor = runnableGamebookCatalog(incident.gamebookCatalog, catalogue.playbooks, incident);
  const vendorIds = new Set(Array.isArray(vendor.recommended) ? (vendor.recommended as RecommendedPlaybook[]).map((r) => r.id) : []);
  const unavailable = Array.isArray(vendor.unavailable) ? (vendor.unavailable as UnavailableRecommendation[]) : [];

  // Recommended first: by rule in the rules' order, then the vendor's, then the rest in the catalogue's order.
  const rank = (p: CataloguePlaybook) => {
    const ruled = [...rulesFor.keys()].indexOf(p.id);
    return ruled >= 0 ? ruled : vendorIds.has(p.id) ? rulesFor.size : rulesFor.size + 1;
  };
  const playbooks = enabled
    .map((p, i) => ({ p, i, rank: rank(p) }))
    .sort((a, b) => a.rank - b.rank || a.i - b.i)
    .map(({ p }): OfferedPlaybook => {
      const undo = p.recoverPlaybookId === null ? undefined : byId.get(p.recoverPlaybookId);
      const rules = rulesFor.get(p.id) ?? [];
      return {
        id: p.id,
        referenceId: p.referenceId,
        name: p.name,
        description: p.description,
        entityType: p.entityType,
        isAdminRequired: p.isAdminRequired,
        recommended: rules.length > 0 || vendorIds.has(p.id),
        recommendedBy: { rules, vendor: vendorIds.has(p.id) },
        entities: entitiesFor(p, incident),
        parameters: p.parameters.map((x) => ({ ...x })),
        undoPlaybook: undo && isEnabled(undo) ? { id: undo.id, name: undo.name } : null,
      };
    });

  const offered = new Map(playbooks.map((p) => [p.id, p]));
  const gamebooks = catalogue.gamebooks
    .filter((g) => g.playbooks.every((step) => offered.has(step.playbookId)))
    .map((g, i): OfferedGamebook & { i: number } => {
      const steps = [...g.playbooks].sort((a, b) => a.sequence - b.sequence).map((step) => ({ step, playbook: offered.get(step.playbookId)! }));
      const stranded = steps.filter(({ playbook }) => playbook.entities.length === 0).map(({ playbook }) => playbook.name);
      return {
        i,
        id: g.id,
        title: g.title,
        description: g.description,
        recommended: steps.some(({ playbook }) => playbook.recommended),
        playbooks: steps.map(({ step, playbook }) => ({ sequence: step.sequence, playbookId: playbook.id, name: playbook.name, entityType: playbook.entityType })),
        runnable: stranded.length === 0,
        reason: stranded.length === 0 ? null : `The incident has nothing ${stranded.join(", ")} can act on.`,
      };
    })
    .sort((a, b) => Number(b.recommended) - Number(a.recommended) || a.i - b.i)
    .map(({ i: _i, ...g }) => g);

  return { playbooks, gamebooks, unavailable };
}

function entitiesFor(playbook: CataloguePlaybook, incident: Pick<VendorIncident, "id" | "source" | "number" | "entities">): OfferedEntity[] {
  if (playbook.entityType === "Incident") return [{ entityId: incident.id, kind: "Incident", name: `${incident.source} incident ${incident.number}` }];
  return incident.entities.filter((e) => actsOn(playbook, e)).map((e) => ({ entityId: e.id, kind: e.kind, name: affectedEntityName(playbook.entityType, e) }));
}
