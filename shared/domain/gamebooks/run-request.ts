import { z } from "zod";
import { ApiError, type FieldErrors } from "../../platform/errors/api-error";
import type { Entity, VendorIncident } from "../../model/incidents/incident";
import { sourceSchema, sources } from "../../model/sources";
import { isEnabled, type CataloguePlaybook, type PlaybookCatalogueRecord } from "../../model/gamebooks/playbook-catalogue-record";
import { actsOn, affectedEntityName } from "./playbook-catalogue";
import { checkParameters, type ParameterValues } from "./playbook-parameters";
import { sequenceProblems } from "./run-sequence";

/** At most this many playbooks in one run. */
export const MAX_RUN_PLAYBOOKS = 50;

/**
 * The name of the contract's unnamed "detection source" field of the run body (docs/contract.md §4.1): the
 * same name the run record (docs/contract.md §2.6) and the incident (§2.4) give the incident's source.
 */
export const DETECTION_SOURCE_FIELD = "source";

const parameterValue = z.union([z.string().max(4000), z.number(), z.boolean()]);

const playbookRequest = z
  .strictObject({
    id: z.string().trim().min(1).max(256).describe("A playbook of the workspace's catalogue (the `playbookId` of a rule)."),
    sequence: z.int().describe("Its place in the run: the playbooks' sequences are exactly 1..N."),
    entityId: z
      .string()
      .trim()
      .min(1)
      .max(256)
      .describe("The incident entity it acts on (`investigationDetails.entities[].id`); for a playbook on the incident itself (add a comment, close it), the incident's own id."),
    parameters: z
      .record(z.string().min(1).max(100), parameterValue)
      .refine((p) => Object.keys(p).length <= 50, "At most 50 parameters.")
      .default({})
      .describe("The playbook's declared parameters only, each of its declared kind."),
  })
  .describe("One playbook of the run.");

/** The playbooks of a run, as the contract's run body and the portal's both take them. */
export const runPlaybooksSchema = z.array(playbookRequest).min(1).max(MAX_RUN_PLAYBOOKS).describe(`The playbooks to run, 1 to ${MAX_RUN_PLAYBOOKS}.`);

/** Whether the request asks for approval; the same in the contract's body and the portal's. */
export const isQueuedSchema = z
  .boolean()
  .default(false)
  .describe("true asks for human approval before anything runs. false never waives an approval the workspace policy or the partner setting requires.");

/** docs/contract.md §4.1 rule 1 on a body holding `playbooks`: sequences exactly 1..N, each problem at its place. */
export function checkSequences(body: { playbooks: readonly { sequence: number }[] }, ctx: z.RefinementCtx): void {
  for (const problem of sequenceProblems(body.playbooks.map((p) => p.sequence))) {
    const path = problem.path.replace(/\[(\d+)\]/g, ".$1").split(".").map((part) => (/^\d+$/.test(part) ? Number(part) : part));
    ctx.addIssue({ code: "custom", path, message: problem.message });
  }
}

/**
 * docs/contract.md §4.1 `POST /gamebooks/run`: only the documented inputs (a strict object: portal approval,
 * retry and state fields are 400 naming each), sequences exactly 1..N (rule 1).
 */
export const runGamebookBody = z
  .strictObject({
    incidentId: z.string().trim().min(1).max(256).describe("The incident, in the route's workspace at `source`."),
    incidentTitle: z.string().trim().min(1).max(1000).describe("The incident's title; must not be empty."),
    [DETECTION_SOURCE_FIELD]: sourceSchema(sources).describe(
      "The incident's detection source, SourceA to SourceG, case-insensitive. The contract leaves this property unnamed; this service calls it `source`, as the run record and the incident do.",
    ),
    playbooks: runPlaybooksSchema,
    incidentNumber: z.int().min(0).optional().describe("The vendor's incident number. The run records the incident's title and number as its source holds them."),
    isQueued: isQueuedSchema,
  })
  .superRefine(checkSequences);

export type RunGamebookRequest = z.output<typeof runGamebookBody>;

/** One playbook of a request, checked against the catalogue and the incident. */
export interface PlannedPlaybook {
  sequence: number;
  playbook: CataloguePlaybook;
  /** The incident entity it acts on; null for a playbook on the incident itself. */
  entity: Entity | null;
  parameters: ParameterValues;
}

/**
 * Checks each playbook of the request (docs/contract.md §4.1): its id is in the workspace's catalogue, its
 * `entityId` is an entity of the incident that the playbook can act on (or, for a playbook on the
 * incident, the incident's own id), its parameters are the declared ones. Every problem is reported
 * at once, at `playbooks[i].id`, `playbooks[i].entityId` or `playbooks[i].parameters.<name>`.
 */
export function planPlaybooks(request: RunGamebookRequest, catalogue: PlaybookCatalogueRecord, incident: VendorIncident): PlannedPlaybook[] {
  const playbooks = new Map(catalogue.playbooks.map((p) => [p.id, p]));
  const entities = new Map(incident.entities.map((e) => [e.id, e]));
  const errors: FieldErrors = {};
  const add = (path: string, message: string) => (errors[path] ??= []).push(message);
  const planned: PlannedPlaybook[] = [];
  request.playbooks.forEach((requested, i) => {
    const playbook = playbooks.get(requested.id);
    if (!playbook) {
      add(`playbooks[${i}].id`, `Not a playbook of this workspace's catalogue; the rules endpoint lists the playbooks for an incident title.`);
      return;
    }
    if (!isEnabled(playbook)) {
      add(`playbooks[${i}].id`, `${playbook.name} is switched off in this workspace's catalogue.`);
      return;
    }
    let entity: Entity | null = null;
    if (playbook.entityType === "Incident") {
      if (requested.entityId !== incident.id) add(`playbooks[${i}].entityId`, `${playbook.name} acts on the incident itself: send the incident's id, ${incident.id}.`);
    } else {
      entity = entities.get(requested.entityId) ?? null;
      if (!entity) add(`playbooks[${i}].entityId`, "Not an entity of the incident (see investigationDetails.entities of the incident).");
      else if (!actsOn(playbook, entity)) add(`playbooks[${i}].entityId`, `${playbook.name} acts on ${playbook.entityType} entities; this entity is ${/^[AEIOU]/.test(entity.kind) ? "an" : "a"} ${entity.kind}.`);
    }
    const parameters = checkParameters(playbook.parameters, requested.parameters);
    if (!parameters.ok) {
      for (const problem of parameters.problems) add(problem.path === "" ? `playbooks[${i}].parameters` : `playbooks[${i}].parameters.${problem.path}`, problem.message);
      return;
    }
    planned.push({ sequence: requested.sequence, playbook, entity, parameters: parameters.values });
  });
  const fields = Object.keys(errors);
  if (fields.length > 0) {
    throw new ApiError("VALIDATION_ERROR", `The request has invalid fields: ${fields.join(", ")}.`, {
      errors,
      target: fields.length === 1 ? fields[0] : undefined,
    });
  }
  return planned.sort((a, b) => a.sequence - b.sequence);
}

/** What an entity playbook addresses (the UPN, host, address, domain...), as the run shows it. */
export function affectedEntityOf(planned: PlannedPlaybook, incident: VendorIncident): string {
  return planned.entity ? affectedEntityName(planned.playbook.entityType, planned.entity) : `${incident.source} incident ${incident.number}`;
}
