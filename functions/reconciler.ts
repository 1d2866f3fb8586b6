import { app } from "@azure/functions";
import { reconcile } from "../shared/reconciler/reconciler";
import { getServices } from "../shared/composition";

// Every minute: poll the vendors by last-modified window, ingest new incidents, detect console
// closes, and sweep the outbox. Overlapping runs (lease loss, several instances) are safe.
app.timer("reconciler", {
  schedule: "30 * * * * *",
  // The pass logs its summary ("reconciler pass", its counts as fields); a throw fails the invocation.
  handler: async () => {
    await reconcile(getServices());
  },
});
