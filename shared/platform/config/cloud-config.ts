import { z } from "zod";
import { subscriptionMapSchema, type SubscriptionMap } from "./subscription-access";

/** The settings of cloud-resource lookups, part of the one configuration schema (`config.ts`). */
export const cloudEnv = {
  /** `azure`: Azure Resource Manager; `disabled`: no lookups. Unset: disabled in Azure, simulated on the local host. */
  CLOUD_INVENTORY: z.enum(["azure", "disabled"]).optional(),
  CLOUD_SUBSCRIPTIONS: subscriptionMapSchema.optional(),
  CLOUD_ARM_ENDPOINT: z.url({ protocol: /^https$/ }).default("https://management.azure.com"),
  CLOUD_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
};

type CloudEnv = z.output<z.ZodObject<typeof cloudEnv>>;

export interface CloudConfig {
  inventory?: "azure" | "disabled";
  /** Account id → the subscription ids that account may see; unset: none (or, locally, the simulated estate's own). */
  subscriptions?: SubscriptionMap;
  armEndpoint: string;
  /** Deadline of one lookup, every ARM page and call included. */
  timeoutMs: number;
}

/** With Azure Resource Manager, who may see which subscription must be said: nobody sees all by default. */
export function checkCloudEnv(env: CloudEnv, ctx: z.RefinementCtx): void {
  if (env.CLOUD_INVENTORY === "azure" && !env.CLOUD_SUBSCRIPTIONS) {
    ctx.addIssue({ code: "custom", path: ["CLOUD_SUBSCRIPTIONS"], message: "required when CLOUD_INVENTORY=azure" });
  }
}

export function cloudConfigOf(env: CloudEnv): CloudConfig {
  return {
    inventory: env.CLOUD_INVENTORY,
    subscriptions: env.CLOUD_SUBSCRIPTIONS,
    armEndpoint: env.CLOUD_ARM_ENDPOINT.replace(/\/+$/, ""),
    timeoutMs: env.CLOUD_TIMEOUT_MS,
  };
}
