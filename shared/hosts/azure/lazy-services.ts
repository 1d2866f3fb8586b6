import type { Services } from "../../domain/services";

/**
 * The process's services for a function module, with the composition root (configuration, stores,
 * queues, adapters) loaded on the first invocation rather than when the module is imported: the
 * Functions worker imports every function module at each cold start.
 */
export async function lazyServices(): Promise<Services> {
  const { getServices } = await import("../composition.js");
  return getServices();
}
