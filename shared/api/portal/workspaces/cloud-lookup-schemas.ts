import { z } from "zod";
import { validationReasons } from "../../../domain/cloud/cloud-lookups";
import { securityInstanceView } from "../../schemas/cloud-schemas";
import { EXAMPLE_WORKSPACE_ID, EXAMPLE_WORKSPACE_NAME } from "../../../platform/http/examples";

/** Why a security instance cannot be onboarded: the cloud's own reasons, and one of the service's. */
export const onboardingReasons = [...validationReasons, "AlreadyOnboarded"] as const;
export type OnboardingReason = (typeof onboardingReasons)[number];

// The local host's answers for the default DEMO_SEED: Fabrikam's development instance, which no
// workspace serves yet, and its production instance, which is the demo's fabrikam-sentinel-prod.
const DEV_INSTANCE = {
  id: "50f2a17c-d7ab-859d-a9e2-7c789f0c71f2",
  name: "fabrikam-sentinel-dev",
  azureId: "/subscriptions/f01e08e1-ea70-8008-9ea0-c50f1da40530/resourceGroups/rg-fabrikam-dev-par/providers/Microsoft.OperationalInsights/workspaces/fabrikam-sentinel-dev",
  location: "francecentral",
};

export const instanceCheckView = z
  .object({
    valid: z.boolean().describe("True when the workspace can be onboarded from this security instance now."),
    reason: z
      .enum(onboardingReasons)
      .nullable()
      .describe(
        "Why not: `WorkspaceNotFound` (no Log Analytics workspace of that name in the group), `NotOnboarded` (it exists without the security solution), " +
          "`AlreadyOnboarded` (a workspace of the service has the instance's id, onboarded now or offboarded since). Null when valid.",
      ),
    detail: z.string().nullable().describe("The reason in a sentence, for the person; null when valid."),
    instance: securityInstanceView
      .nullable()
      .describe("The security instance: its `id` is the `workspaceId` the workspace gets when onboarded from it. Null when there is none of that name."),
  })
  .describe("Whether a security instance can be onboarded as a workspace of this service.")
  .meta({
    examples: [
      { valid: true, reason: null, detail: null, instance: DEV_INSTANCE },
      { valid: false, reason: "NotOnboarded", detail: "log-fabrikam-soc-staging exists, but the security solution is not onboarded on it: onboard it in the cloud first.", instance: null },
      {
        valid: false,
        reason: "AlreadyOnboarded",
        detail: `${EXAMPLE_WORKSPACE_NAME} is already onboarded as ${EXAMPLE_WORKSPACE_NAME}.`,
        instance: {
          id: EXAMPLE_WORKSPACE_ID,
          name: EXAMPLE_WORKSPACE_NAME,
          azureId: `/subscriptions/45b7d4ce-07da-8954-b2fc-619b876709f7/resourceGroups/rg-fabrikam-security-par/providers/Microsoft.OperationalInsights/workspaces/${EXAMPLE_WORKSPACE_NAME}`,
          location: "francecentral",
        },
      },
    ],
  });
