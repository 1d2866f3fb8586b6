import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBootstrap } from "../../scripts/bootstrap";
import { loadConfig } from "../../shared/platform/config/config";
import { startLocalServer } from "../../shared/hosts/local/local-server";
import { silentLogger } from "../../shared/platform/logger";
import { allRoutes } from "../../shared/api/route-groups";
import { createServices } from "../../shared/hosts/composition";
import { startCosmosServer, type CosmosServer } from "../support/cosmos-server";

let cosmos: CosmosServer;
let env: Record<string, string>;
beforeAll(async () => {
  cosmos = await startCosmosServer();
  env = {
    STORE: "cosmos",
    COSMOS_ENDPOINT: cosmos.endpoint,
    COSMOS_KEY: cosmos.key,
    COSMOS_DATABASE: "bootstrap-test",
    COSMOS_TRUST_SELF_SIGNED: "true",
    SECRET_HASH_KEY: randomBytes(32).toString("base64"),
    PAGE_TOKEN_KEY: randomBytes(32).toString("base64"),
    WEBHOOK_SECRETS_KEY: randomBytes(32).toString("base64"),
  };
});
afterAll(async () => cosmos?.close());

describe("bootstrap", () => {
  it("creates the first admin in Cosmos, prints its secret once, and the secret authenticates against the service", async () => {
    const lines: string[] = [];
    const out = await runBootstrap(["--account-name", "Contoso"], env, (l) => lines.push(l));
    expect(lines.join("\n")).toContain(out.clientSecret);
    expect(lines.filter((l) => l.includes(out.clientSecret))).toHaveLength(1);

    const services = createServices(loadConfig(env), { logger: silentLogger });
    const server = await startLocalServer(services, allRoutes(), 0);
    try {
      const res = await fetch(`${server.url}/api/v2/service-accounts/${out.clientId}`, {
        headers: { authorization: `Basic ${Buffer.from(`${out.clientId}:${out.clientSecret}`).toString("base64")}` },
      });
      expect(res.status).toBe(200);
      const data = ((await res.json()) as { data: Record<string, unknown> }).data;
      expect(data).toMatchObject({ accountId: out.accountId, organizationalRole: "Admin", isPlatformManaged: true });
      const stored = await services.stores.serviceAccounts.get(out.clientId);
      expect(JSON.stringify(stored)).not.toContain(out.clientSecret);
    } finally {
      await server.close();
    }
  });

  it("refuses a second admin for the same account unless forced, and a missing account without a name", async () => {
    const first = await runBootstrap(["--account-name", "Fabrikam"], env, () => {});
    await expect(runBootstrap(["--account-id", first.accountId], env, () => {})).rejects.toThrow(/already has a platform-managed admin/);
    const forced = await runBootstrap(["--account-id", first.accountId, "--force"], env, () => {});
    expect(forced.clientId).not.toBe(first.clientId);
    await expect(runBootstrap([], env, () => {})).rejects.toThrow(/--account-name/);
    await expect(runBootstrap(["--account-name", "x"], { ...env, STORE: "memory" }, () => {})).rejects.toThrow(/STORE=cosmos/);
  });
});
