import type { DemoData } from "./demo-data";
import { LOCAL_CONTROLS_PREFIX } from "./local-server";

export interface StartBannerInput {
  /** `http://host:port` of the local host. */
  url: string;
  store: "memory" | "cosmos";
  data: DemoData;
  admin: { clientId: string; clientSecret: string };
  /** The admin secret came from LOCAL_ADMIN_CLIENT_SECRET: the person knows it, and it is not echoed. */
  adminSecretFromEnv: boolean;
}

/**
 * What `npm start` prints once listening: where everything is, the admin credential as lines to
 * paste into a shell (so the examples of the README and the guides work as written after a plain `npm start`), and what
 * a restart keeps.
 */
export function startBanner(input: StartBannerInput): string[] {
  const { url, store, data, admin } = input;
  const base = `${url}/api/v2`;
  const workspaces = data.workspaces.map((w) => `${w.name} ${w.id}`);
  const shownWorkspaces = [...workspaces.slice(0, 5), ...(workspaces.length > 5 ? [`(+${workspaces.length - 5} more)`] : [])];
  return [
    "",
    `Security Operations Management API v2 — listening on ${base} (store: ${store})`,
    `  Reference: ${base}/docs    OpenAPI: ${base}/openapi.json`,
    `  Local controls (act in the simulated vendors and ITSM, run the timers now): ${url}${LOCAL_CONTROLS_PREFIX}/ lists them all`,
    `  Demo organization: ${data.provider.name} managing ${data.customers.map((c) => c.name).join(" and ")}; ${data.workspaces.length} workspaces`,
    ...(input.adminSecretFromEnv
      ? [
          "  Admin service account (every scope, Owner on every workspace), fixed by LOCAL_ADMIN_CLIENT_ID/LOCAL_ADMIN_CLIENT_SECRET:",
          `    export ID=${admin.clientId} SECRET=<the LOCAL_ADMIN_CLIENT_SECRET you set>`,
        ]
      : [
          "  Admin service account (every scope, Owner on every workspace); paste into your shell to use it:",
          `    export ID=${admin.clientId} SECRET=${admin.clientSecret}`,
          "  (a new secret on every start: set LOCAL_ADMIN_CLIENT_ID and LOCAL_ADMIN_CLIENT_SECRET to keep one)",
        ]),
    `  Try: curl -u "$ID:$SECRET" ${base}/service-accounts/$ID`,
    `  Workspaces: ${shownWorkspaces.join("\n              ")}`,
    store === "memory"
      ? "  Nothing is kept across a restart: the embedded store starts over (webhooks, service accounts, audit) and so do the simulated vendors (incidents created, closed or deleted under /_local)."
      : "  Cosmos DB keeps webhooks, service accounts and audit across restarts; the simulated vendors start over (incidents created, closed or deleted under /_local).",
    "",
  ];
}
