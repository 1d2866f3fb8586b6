import { z } from "zod";
import { playbookParametersSchema } from "../../../model/gamebooks/playbook-parameter-schema";
import { automationEntityTypes } from "../../../model/gamebooks/playbook-catalogue-record";

/**
 * What an automation bridge may answer (docs/playbook-bridge.md). Unknown fields are stripped: a
 * bridge may add fields without breaking us, and nothing undocumented reaches the service.
 */

export const bridgeStepStatuses = ["Queued", "Running", "Succeeded", "Failed"] as const;
export type BridgeStepStatus = (typeof bridgeStepStatuses)[number];

/** UTC only ("Z"), normalised to milliseconds, as the vendor bridge's timestamps are. */
const timestamp = z.iso
  .datetime()
  .transform((value) => new Date(value))
  .refine((date) => !Number.isNaN(date.getTime()), "Not a valid instant.")
  .transform((date) => date.toISOString());

/** Flat details only: they are shown to analysts and stored with the run, never interpreted. */
const outputValue = z.union([z.string().max(4000), z.number(), z.boolean(), z.null()]);

export const bridgeStepSchema = z
  .object({
    stepId: z.string().min(1),
    status: z.enum(bridgeStepStatuses),
    errorMessage: z.string().max(4000).nullable(),
    output: z.record(z.string(), outputValue).refine((o) => Object.keys(o).length <= 100, "At most 100 output fields."),
    startedAt: timestamp.nullable(),
    finishedAt: timestamp.nullable(),
  })
  .superRefine((step, ctx) => {
    if (step.status === "Failed" && !step.errorMessage?.trim()) {
      ctx.addIssue({ code: "custom", path: ["errorMessage"], message: "A failed step must say why." });
    }
    if (step.startedAt !== null && step.finishedAt !== null && step.finishedAt < step.startedAt) {
      ctx.addIssue({ code: "custom", path: ["finishedAt"], message: "A step cannot finish before it starts." });
    }
  });

export type BridgeStep = z.output<typeof bridgeStepSchema>;

/** One action of the bridge's playbook list (`GET /playbooks`); parameters as the catalogue declares them. */
const bridgePlaybookSchema = z.object({
  referenceId: z.string().trim().min(1).max(100),
  name: z.string().trim().min(1).max(200),
  description: z.string().trim().max(2000),
  entityType: z.enum(automationEntityTypes),
  isAdminRequired: z.boolean(),
  parameters: playbookParametersSchema(false),
});

/** The bridge's answer to `GET /playbooks?workspaceId=…`: each reference id once. */
export const bridgePlaybookListSchema = z.object({
  playbooks: z
    .array(bridgePlaybookSchema)
    .max(1000)
    .superRefine((list, ctx) => {
      const seen = new Set<string>();
      list.forEach((p, i) => {
        if (seen.has(p.referenceId)) ctx.addIssue({ code: "custom", path: [i, "referenceId"], message: `${p.referenceId} is listed twice.` });
        seen.add(p.referenceId);
      });
    }),
});
