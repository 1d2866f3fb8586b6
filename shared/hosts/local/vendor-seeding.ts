import { isApiError } from "../../platform/errors/api-error";
import type { Uses } from "../../domain/operation-context";

/**
 * Runs a step of the demo's seeding that reads the vendors. When a vendor fails it (a bridged source
 * that is down, slow or throttling: the service's upstream problems), the step is skipped and logged
 * with what it would have seeded, so that the local host starts whatever the bridged vendors do. Any
 * other error is a fault of the seeding itself and still stops the start.
 */
export async function seedUnlessVendorsFail<T>(ctx: Uses<"logger">, what: string, step: () => Promise<T>): Promise<T | undefined> {
  try {
    return await step();
  } catch (error) {
    if (!isApiError(error)) throw error;
    ctx.logger.warn("demo seeding skipped: a vendor failed", { skipped: what, code: error.code, error: error.message });
    return undefined;
  }
}
