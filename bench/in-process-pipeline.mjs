// One build's request pipeline in this process (no socket), as the in-process benches drive it:
// createPipeline over the whole route table, on the local host's services (memory stores) with the
// demo data, rate limits out of the way. `root` is the folder holding the build's dist/ (this
// checkout by default; a pinned older build in a git worktree, say).
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** The build's pipeline, its services and the demo's admin service account (id and secret). */
export async function inProcessPipeline({ root = new URL("..", import.meta.url).pathname, localOptions } = {}) {
  const dist = `${root.replace(/\/$/, "")}/dist/shared/`;
  const { loadConfig } = require(dist + "platform/config/config.js");
  const { createLocalServices } = require(dist + "hosts/local/local-services.js");
  const { seedDemoData } = require(dist + "hosts/local/demo-data.js");
  const { createPipeline } = require(dist + "platform/http/pipeline.js");
  const { allRoutes } = require(dist + "api/route-groups.js");
  const config = loadConfig({
    LOG_LEVEL: "warn",
    RATE_LIMIT_BURST: "100000000",
    RATE_LIMIT_PER_SECOND: "100000000",
    RECONCILE_INTERVAL_MS: "0",
    LOCAL_ADMIN_CLIENT_SECRET: "soms_" + "b".repeat(43),
  });
  const { services } = createLocalServices(config, localOptions);
  const { admin } = await seedDemoData(services);
  return { handle: createPipeline(allRoutes(), services), services, admin };
}
