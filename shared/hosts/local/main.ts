import { ConfigError, loadConfig } from "../../platform/config/config";
import { createLocalServices } from "./local-services";
import { allRoutes } from "../../api/route-groups";
import { ensureContainers } from "../../platform/store/cosmos/containers";
import { createCosmosClient } from "../../platform/store/cosmos/cosmos-client";
import { seedDemoAdministration } from "./demo-administration";
import { seedDemoData } from "./demo-data";
import { seedDemoGamebookRuns } from "./demo-gamebook-runs";
import { seedUnlessVendorsFail } from "./vendor-seeding";
import { seedDemoGamebooks } from "./demo-gamebooks";
import { startLocalServer } from "./local-server";
import { localControlRoutes } from "./local-controls";
import { startBanner } from "./start-banner";
import { signInBannerLines, startLocalSignIn } from "./local-sign-in";
import { expireApprovals } from "../../domain/gamebooks/approval-expiry";

const OUTBOX_SWEEP_INTERVAL_MS = 60_000;
/** As often as the Azure timer: a request is denied within a minute of its expiry. */
const APPROVAL_EXPIRY_INTERVAL_MS = 60_000;

/** `npm start`: the API on the embedded default (or Cosmos when configured), with demo data. */
async function main(): Promise<void> {
  // The local identity provider listens next to the API (PORT + 1, LOCAL_IDENTITY_PROVIDER_PORT): a
  // fixed port keeps its issuer, and so the sessions' sign-in, the same across restarts.
  const port = Number(process.env.PORT ?? 7071);
  const idpPort = Number(process.env.LOCAL_IDENTITY_PROVIDER_PORT ?? (port === 0 ? 0 : port + 1));
  const signIn = await startLocalSignIn(process.env, idpPort);
  const config = loadConfig({ ...process.env, ...signIn?.env });
  if (config.store === "cosmos" && config.cosmos.key) {
    // Key auth can create containers; in Azure, Bicep creates them and managed identity only uses them.
    await ensureContainers(createCosmosClient(config.cosmos), config.cosmos.database);
  }
  const { services, simulated } = createLocalServices(config);
  const { admin, data } = await seedDemoData(services);
  await seedDemoGamebooks(services, data);
  await seedDemoAdministration(services, data);
  // On a durable store, workspaces onboarded in an earlier run: the simulated vendors hold them too.
  for (const workspace of await services.stores.workspaces.listAll()) simulated.vendors.addWorkspace(workspace);
  await seedUnlessVendorsFail(services, "the demo's gamebook runs", () => seedDemoGamebookRuns(services, data.workspaces));
  // The first pass sets each workspace's baseline: the demo incidents are there already, and only
  // incidents that appear from now on are "new" (incident.created.v1).
  await seedUnlessVendorsFail(services, "the reconciler's first pass", () => services.reconciler.runPass());
  const { url, close } = await startLocalServer(services, allRoutes(), config.port, config.host, localControlRoutes(simulated));

  const base = `${url}/api/v2`;
  const lines = startBanner({ url, store: config.store, data, admin, adminSecretFromEnv: config.localAdmin.clientSecret !== undefined });
  lines.splice(lines.length - 1, 0, ...signInBannerLines(url, signIn));
  process.stdout.write(lines.join("\n") + "\n");
  if (config.webhooks.allowPrivateTargets) {
    services.logger.warn("WEBHOOK_ALLOW_PRIVATE_TARGETS is on: webhooks may target loopback and private addresses. For local testing only.");
  }
  // Events are published right after each commit; the sweep picks up any a crash left behind.
  const sweep = () => void services.events.outbox.sweep().catch((error: unknown) => services.logger.warn("outbox sweep failed", { error: String(error) }));
  sweep();
  setInterval(sweep, OUTBOX_SWEEP_INTERVAL_MS).unref();
  // Requests for approval nobody decided in time are denied on a timer, off the request path. One
  // sweep at a time; one overlapping a sweep run from /_local is harmless (etag-checked commits).
  let expiring = false;
  setInterval(() => {
    if (expiring) return;
    expiring = true;
    expireApprovals(services)
      .then((result) => {
        if (result.expired.length > 0) services.logger.info("approval requests expired", { expired: result.expired.length, skipped: result.skipped, failed: result.failed });
      })
      .catch((error: unknown) => services.logger.warn("approval expiry failed", { error: String(error) }))
      .finally(() => (expiring = false));
  }, APPROVAL_EXPIRY_INTERVAL_MS).unref();
  if (config.reconcileIntervalMs > 0) {
    // One pass at a time from this timer; one that overlaps a pass started by /_local/reconcile is
    // harmless (etag-checked commits, deterministic event ids).
    let running = false;
    setInterval(() => {
      if (running) return;
      running = true;
      services.reconciler
        .runPass()
        .catch((error: unknown) => services.logger.error("reconciler pass failed", { error: String(error) }))
        .finally(() => (running = false));
    }, config.reconcileIntervalMs).unref();
  }
  services.logger.info("listening", { url: base, store: config.store });

  const stop = (signal: string) => {
    services.logger.info("stopping", { signal });
    void Promise.all([close(), signIn?.provider.close()]).then(() => process.exit(0));
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
}

main().catch((error: unknown) => {
  process.stderr.write((error instanceof ConfigError ? error.message : String((error as Error)?.stack ?? error)) + "\n");
  process.exit(1);
});
