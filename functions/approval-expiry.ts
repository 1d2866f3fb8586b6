import { app } from "@azure/functions";
import { lazyServices } from "../shared/hosts/azure/lazy-services";

// Every minute: deny the gamebook runs whose request for approval is past its expiry, in every
// workspace. Each denial is an etag-checked commit of the run's own, so a timer that fires twice (a
// second instance, a restart) or meets a person's decision denies nothing twice. The sweep loads on
// the first tick, not at import (every cold start imports this module).
app.timer("approval-expiry", {
  schedule: "15 * * * * *",
  handler: async () => {
    const services = await lazyServices();
    const { expireApprovals } = await import("../shared/domain/gamebooks/approval-expiry.js");
    const result = await expireApprovals(services);
    if (result.expired.length > 0 || result.failed > 0) {
      services.logger.info("approval requests expired", { expired: result.expired.length, skipped: result.skipped, failed: result.failed });
    }
  },
});
