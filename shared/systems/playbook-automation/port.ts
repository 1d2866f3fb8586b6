import { ApiError } from "../../platform/errors/api-error";
import type { Source } from "../../model/sources";
import type { ActionParameter, AutomationEntityType } from "../../model/gamebooks/playbook-catalogue-record";

/**
 * The port to the automation backend that carries out playbook steps against an entity (disable a
 * user, isolate a host, block an address...): Logic Apps, Cortex XSOAR, StackStorm or the like.
 * Adapters: the simulated automation (local default) and the HTTP bridge of docs/playbook-bridge.md.
 *
 * Steps that act on the incident itself (add a comment, close it) never come here: they go through
 * the service's own incident paths, so that their events and vendor writes are the usual ones.
 *
 * A step that ran and failed (the account is synchronised from on-premises, the host is offline) is a
 * result with status `Failed`, not an error. Errors are ApiErrors about reaching the backend
 * (UPSTREAM_ERROR, TIMEOUT, RATE_LIMITED...) or about the request (VALIDATION_ERROR, CONFLICT):
 * the step's outcome is then unknown, and asking again with the same `stepId` is safe.
 */
export interface PlaybookActions {
  /** False when the deployment has no automation backend: `execute` answers EXTENSION_NOT_ENABLED. */
  readonly enabled: boolean;
  /**
   * Runs one step and resolves with its outcome once it has finished. Idempotent on `stepId`: a step
   * already started is never started again; its recorded (or still running) execution is awaited.
   * The same `stepId` with another playbook or entity is CONFLICT.
   */
  execute(request: PlaybookStepRequest, signal?: AbortSignal): Promise<PlaybookStepResult>;
  /**
   * The actions the backend offers a workspace, by reference id: what an operator imports into the
   * workspace's playbook catalogue. A backend may offer each workspace its own (Logic Apps in the
   * workspace's resource group, say).
   */
  listPlaybooks(workspaceId: string, signal?: AbortSignal): Promise<AutomationPlaybook[]>;
}

/** One action the automation backend offers. */
export interface AutomationPlaybook {
  /** The automation's own name for the action, the same in every workspace (`reset-password`). */
  referenceId: string;
  name: string;
  description: string;
  entityType: AutomationEntityType;
  /** The backend's advice that running it needs an administrator. */
  isAdminRequired: boolean;
  parameters: ActionParameter[];
}

export interface PlaybookStepRequest {
  workspaceId: string;
  incident: {
    source: Source;
    id: string;
    /** The vendor's human-facing number, when known. */
    number: number | null;
    title: string;
  };
  playbook: {
    /** The workspace catalogue's playbook id. */
    id: string;
    /** The automation's own name for the action, the same in every workspace (e.g. `reset-password`). */
    referenceId: string;
    name: string;
  };
  entity: {
    /** The incident's entity id. */
    id: string;
    type: AutomationEntityType;
    /** What the action addresses: the UPN, host name, address, domain, URL, mailbox or file name. */
    name: string;
  };
  /** The step's parameters, already checked against the playbook's declared parameters. */
  parameters: Record<string, string | number | boolean>;
  runId: string;
  /** The idempotency key: one per playbook of one run (`playbookStepId(runId, sequence)`). */
  stepId: string;
}

export const stepOutcomes = ["Succeeded", "Failed"] as const;
export type StepOutcome = (typeof stepOutcomes)[number];

export interface PlaybookStepResult {
  status: StepOutcome;
  /** Why the step failed, in words an analyst can act on; null when it succeeded. */
  errorMessage: string | null;
  /** What the action did or produced (rule name, package URL, messages removed...). */
  output: Record<string, string | number | boolean | null>;
  /** How long the action ran in the backend, in milliseconds. */
  durationMs: number;
}

/** The name of the integration in messages: what an operator configures (docs/operating.md, PLAYBOOK_AUTOMATION_*). */
export const AUTOMATION_SYSTEM = "Playbook automation";

/**
 * The port where the deployment has no automation backend: every step is 400 EXTENSION_NOT_ENABLED
 * naming the integration, so a run is refused rather than left waiting for a backend that is not there.
 */
export function disabledPlaybookActions(): PlaybookActions {
  return {
    enabled: false,
    async execute() {
      throw new ApiError(
        "EXTENSION_NOT_ENABLED",
        `The ${AUTOMATION_SYSTEM.toLowerCase()} integration is not enabled for this deployment: playbooks that act on users, hosts, addresses, domains, URLs, mailboxes or files cannot run.`,
        { target: "playbooks" },
      );
    },
    async listPlaybooks() {
      throw new ApiError("EXTENSION_NOT_ENABLED", `The ${AUTOMATION_SYSTEM.toLowerCase()} integration is not enabled for this deployment: there is no backend to import playbooks from.`, {
        target: "playbookAutomation",
      });
    },
  };
}
