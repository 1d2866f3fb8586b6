import { app } from "@azure/functions";
import { lazyServices } from "../shared/hosts/azure/lazy-services";

// Events are published right after their commit; this republishes any that a crash between commit
// and publish left in the outbox. Duplicates are dropped by message id, so overlapping runs are safe.
app.timer("outbox-sweep", {
  schedule: "0 * * * * *",
  // The relay logs what it carried out ("outbox sweep carried out records", with its count).
  handler: async () => {
    await (await lazyServices()).events.outbox.sweep();
  },
});
