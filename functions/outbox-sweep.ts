import { app } from "@azure/functions";
import { lazyServices } from "../shared/hosts/azure/lazy-services";

// Events are published right after their commit; this republishes any that a crash between commit
// and publish left in the outbox, and sequences audit trails whose events are stored but still wait
// for their sequence. Duplicates are dropped by message id and sequencing is conditional, so
// overlapping runs are safe.
app.timer("outbox-sweep", {
  schedule: "0 * * * * *",
  // One line per run, whatever it found: the alert on a silent sweep and the workbook's outbox backlog
  // read it (records waiting: committed but not yet carried out, found over the run).
  handler: async () => {
    const services = await lazyServices();
    const { waiting, carriedOut } = await services.events.outbox.sweepAndCount();
    services.logger.info("outbox swept", { waiting, carriedOut });
  },
});
