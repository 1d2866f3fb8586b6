import type { Entity, VendorIncident } from "../../model/incidents/incident";
import { actsOn } from "./playbook-catalogue";
import { isEnabled, type CataloguePlaybook } from "../../model/gamebooks/playbook-catalogue-record";

/**
 * The playbooks a vendor recommends for an incident (`gamebookCatalog.recommended`), as the
 * workspace can run them. Vendors name an action by the automation's own name (`disable-account`),
 * which a workspace's catalogue keeps as a playbook's `referenceId`; a run names the playbook by its
 * id in that catalogue. So each recommendation is given under the catalogue's id, with the entity it
 * acts on, and `POST …/gamebooks/run` takes it as it is. A recommendation the workspace cannot run
 * (no playbook of its catalogue has that reference id, the playbook is switched off, or the incident
 * has no entity it acts on) is listed under `unavailable`, with the reason, instead.
 */

export type UnavailableReason = "NotInCatalogue" | "SwitchedOff" | "NoEntity";

export interface RecommendedPlaybook {
  /** The playbook's id in the workspace's catalogue: what a run names as `playbooks[i].id`. */
  id: string;
  /** The automation's own name for the action, as the vendor recommended it. */
  referenceId: string;
  name: string;
  description: string;
  entityType: string;
  /** The incident entity it acts on (the incident's own id for a playbook on the incident): a run's `playbooks[i].entityId`. */
  entityId: string;
  isAdminRequired: boolean;
}

export interface UnavailableRecommendation {
  referenceId: string;
  name: string | null;
  reason: UnavailableReason;
}

/**
 * The incident's `gamebookCatalog` with `recommended` made runnable in the workspace. A catalogue
 * whose `recommended` is not a list of entries with an `id` (a vendor's own shape) is returned as
 * it is; so are its other fields.
 */
export function runnableGamebookCatalog(
  gamebookCatalog: Record<string, unknown>,
  playbooks: readonly CataloguePlaybook[],
  incident: Pick<VendorIncident, "id" | "entities">,
): Record<string, unknown> {
  const given = gamebookCatalog.recommended;
  if (!Array.isArray(given)) return gamebookCatalog;
  const entries = given.filter((e): e is Record<string, unknown> => typeof e === "object" && e !== null && typeof (e as { id?: unknown }).id === "string");
  if (entries.length !== given.length) return gamebookCatalog;
  const recommended: RecommendedPlaybook[] = [];
  const unavailable: UnavailableRecommendation[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const named = entry.id as string;
    // By reference id (the vendors' way); a recommendation that already names a catalogue id is taken too.
    const playbook = playbooks.find((p) => p.referenceId === named) ?? playbooks.find((p) => p.id === named);
    const vendorName = typeof entry.name === "string" ? entry.name : null;
    if (!playbook) {
      unavailable.push({ referenceId: named, name: vendorName, reason: "NotInCatalogue" });
      continue;
    }
    if (seen.has(playbook.id)) continue;
    seen.add(playbook.id);
    if (!isEnabled(playbook)) {
      unavailable.push({ referenceId: playbook.referenceId, name: playbook.name, reason: "SwitchedOff" });
      continue;
    }
    const entityId = entityFor(playbook, incident, typeof entry.entityId === "string" ? entry.entityId : null);
    if (entityId === null) {
      unavailable.push({ referenceId: playbook.referenceId, name: playbook.name, reason: "NoEntity" });
      continue;
    }
    recommended.push({
      id: playbook.id,
      referenceId: playbook.referenceId,
      name: playbook.name,
      description: playbook.description,
      entityType: playbook.entityType,
      entityId,
      isAdminRequired: playbook.isAdminRequired,
    });
  }
  return { ...gamebookCatalog, recommended, unavailable };
}

/** The entity the vendor named when the playbook acts on it, else the incident's first entity it acts on; the incident itself for an incident playbook. */
function entityFor(playbook: CataloguePlaybook, incident: Pick<VendorIncident, "id" | "entities">, named: string | null): string | null {
  if (playbook.entityType === "Incident") return incident.id;
  const fits = (e: Entity) => actsOn(playbook, e);
  const chosen = incident.entities.find((e) => e.id === named && fits(e)) ?? incident.entities.find(fits);
  return chosen?.id ?? null;
}
