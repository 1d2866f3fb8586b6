import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServices } from "../../shared/hosts/composition";
import { loadConfig } from "../../shared/platform/config/config";
import { ApiError } from "../../shared/platform/errors/api-error";
import { createLocalServices } from "../../shared/hosts/local/local-services";
import type { PlaybookStepRequest } from "../../shared/systems/playbook-automation/port";

// Which automation backend each composition uses: the bridge when configured; otherwise disabled in
// Azure and simulated on the local host.

let server: Server;
let bridgeUrl: string;
const received: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    req.resume();
    const stepId = decodeURIComponent(req.url!.split("/").pop()!);
    res.writeHead(201, { "content-type": "application/json" });
    res.end(JSON.stringify({ stepId, status: "Succeeded", errorMessage: null, output: { via: "bridge" }, startedAt: null, finishedAt: null }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  bridgeUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/automation`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const step: PlaybookStepRequest = {
  workspaceId: "ws-1",
  incident: { source: "SourceA", id: "INC-1", number: 1, title: "Brute force attack against ann@contoso.example" },
  playbook: { id: "pb-1", referenceId: "block-ip", name: "Block IP address" },
  entity: { id: "e1", type: "Ip", name: "203.0.113.7" },
  parameters: {},
  runId: "run-1",
  stepId: "step-1",
};

describe("playbook actions in the compositions", () => {
  it("are disabled in Azure without a bridge: a step is 400 EXTENSION_NOT_ENABLED naming the automation integration", async () => {
    const actions = createServices(loadConfig({})).playbookActions;
    expect(actions.enabled).toBe(false);
    const error = await actions.execute(step).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: "EXTENSION_NOT_ENABLED", status: 400, target: "playbooks" });
    expect((error as ApiError).message).toMatch(/^The playbook automation integration is not enabled for this deployment/);
  });

  it("go to the bridge in Azure when PLAYBOOK_AUTOMATION_URL is set", async () => {
    const actions = createServices(loadConfig({ PLAYBOOK_AUTOMATION_URL: bridgeUrl })).playbookActions;
    expect(actions.enabled).toBe(true);
    expect(await actions.execute(step)).toMatchObject({ status: "Succeeded", output: { via: "bridge" } });
    expect(received.at(-1)).toBe("PUT /automation/steps/step-1");
  });

  it("are simulated on the local host, whose console sees the steps", async () => {
    const { services, simulated } = createLocalServices(loadConfig({ SIMULATED_PLAYBOOK_DELAY_MS: "0" }));
    expect(services.playbookActions.enabled).toBe(true);
    const result = await services.playbookActions.execute(step);
    expect(result.status).toBe("Succeeded");
    expect(result.output).toEqual({ firewall: "perimeter", ruleName: "SOC-Block-203.0.113.7" });
    expect(simulated.automation.executions().map((e) => e.stepId)).toEqual(["step-1"]);
  });

  it("go to the bridge on the local host too when one is configured", async () => {
    const before = received.length;
    const { services, simulated } = createLocalServices(loadConfig({ PLAYBOOK_AUTOMATION_URL: bridgeUrl }));
    expect(await services.playbookActions.execute({ ...step, stepId: "step-2" })).toMatchObject({ output: { via: "bridge" } });
    expect(received.length).toBe(before + 1);
    expect(simulated.automation.executions()).toEqual([]);
  });
});

describe("playbook automation configuration", () => {
  it("has defaults, and no bridge unless a URL is given", () => {
    const config = loadConfig({});
    expect(config.playbookAutomation).toBeUndefined();
    expect(config.simulatedPlaybookDelayMs).toBe(100);
    expect(loadConfig({ PLAYBOOK_AUTOMATION_URL: "https://automation.example/bridge", PLAYBOOK_AUTOMATION_AUTH_HEADER: "Bearer x" }).playbookAutomation).toEqual({
      baseUrl: "https://automation.example/bridge",
      authHeader: "Bearer x",
      timeoutMs: 10_000,
      pollIntervalMs: 2_000,
      stepWaitMs: 240_000,
    });
  });

  it("refuses a URL that is not http(s) and intervals that are not positive, naming the setting", () => {
    expect(() => loadConfig({ PLAYBOOK_AUTOMATION_URL: "ftp://automation.example" })).toThrow(/PLAYBOOK_AUTOMATION_URL/);
    expect(() => loadConfig({ PLAYBOOK_AUTOMATION_POLL_MS: "0" })).toThrow(/PLAYBOOK_AUTOMATION_POLL_MS/);
    expect(() => loadConfig({ SIMULATED_PLAYBOOK_DELAY_MS: "-1" })).toThrow(/SIMULATED_PLAYBOOK_DELAY_MS/);
  });
});
