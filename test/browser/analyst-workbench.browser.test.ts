import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestHost } from "../support/test-host";
import { startHttpsReceiver, type HttpsReceiver, type ReceivedRequest } from "../support/https-receiver";
import { waitFor } from "../support/wait-for";
import { factsAbout } from "../../shared/systems/playbook-automation/simulated/step-outcomes";
import type { VendorIncident } from "../../shared/model/incidents/incident";
import { checkAccessibility, demoPerson, newPage, NO_PROBLEMS, pageProblems, screenshot, signInInBrowser, startPortal, type Browser, type Page, type Portal } from "../support/browser";

/**
 * An analyst's day on one incident, end to end in Chromium, with a webhook receiver listening: Li Wei
 * (Analyst) opens an incident, assigns it to herself, puts it on hold (the SLA clock pauses), comments,
 * runs two playbooks on the account they act on (the workspace makes every run wait), Jonas Becker
 * (Owner) approves, Li sees each step's outcome, retries the run of the step that failed, and closes
 * the incident with a classification. The receiver gets each event the contract names for these
 * actions, in the order they happened, each once, every one naming the portal as its origin.
 */

let receiver: HttpsReceiver;
let portal: Portal;
let browser: Browser;
let host: TestHost;
let origin: string;
let clinics: string;
let incident: VendorIncident;
let webhookUrl: string;
let li: Page;
let jonas: Page;

/** What the webhook subscribes to: every event a person's work on an incident causes. */
const EVENT_TYPES = ["incident.assignee.changed.v1", "incident.status.changed.v1", "incident.comment.added.v1", "gamebook.run.v1", "incident.closed.v1"];

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  portal = await startPortal({ webhookCa: receiver.certificate, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", SIMULATED_PLAYBOOK_DELAY_MS: "2" } });
  ({ browser, host, origin } = portal);
  // The demo workspace whose approval policy makes every run wait for a person's decision.
  clinics = host.demo.workspaces.find((w) => w.name === "northwind-sentinel-clinics")!.id;
  incident = incidentWithSyncedAccount();
  webhookUrl = receiver.url("/workbench", "127.0.0.1");
  const created = await host.call("POST", "/webhooks", { body: { name: "SOC integration", url: webhookUrl, eventTypes: EVENT_TYPES } });
  expect(created.status).toBe(201);

  li = await newPage(browser, { width: 1280 });
  await signInInBrowser(li, origin, demoPerson("li").oid, { returnTo: "/portal/incidents" });
  jonas = await newPage(browser, { width: 1280 });
  await signInInBrowser(jonas, origin, demoPerson("jonas").oid, { returnTo: "/portal/approvals" });
}, 600_000);

afterAll(async () => {
  await portal?.close();
  await receiver?.close();
});

/**
 * A new incident whose account is synchronised from on-premises in the simulated tenant, so that
 * revoking its sessions succeeds and resetting its password is refused, as Microsoft Graph refuses it.
 */
function incidentWithSyncedAccount(): VendorIncident {
  const seed = host.services.config.demoSeed;
  for (let i = 0; i < 500; i++) {
    const candidate = host.simulated.vendors.createIncident("SourceA", clinics, { title: "Impossible travel activity for a clinic manager", severity: "High" });
    const account = candidate.entities.find((e) => e.kind === "Account");
    if (account && factsAbout(seed, { workspaceId: clinics, entity: { id: account.id, type: "User", name: account.name } }).onPremisesSynced) return candidate;
  }
  throw new Error("No incident with an on-premises account in 500 tries");
}

const delivered = (): ReceivedRequest[] => receiver.requests.filter((r) => webhookUrl.endsWith(r.url));
const envelopes = () => delivered().map((r) => JSON.parse(r.body) as { id: string; type: string; data: Record<string, unknown> });
const ofIncident = () => envelopes().filter((e) => e.data.incidentId === incident.id);

/** Waits until the receiver holds `count` deliveries about the incident. */
async function receivedCount(count: number): Promise<void> {
  await waitFor(() => ofIncident().length >= count, `${count} deliveries about the incident`, 20_000);
}

const text = (page: Page, selector: string) => page.$eval(selector, (el) => (el as unknown as { innerText: string }).innerText);
const attribute = (page: Page, name: string, value: string) => page.waitForFunction((a, v) => document.querySelector(`[${a}]`)?.getAttribute(a) === v, {}, name, value);
const runCard = (runId: string) => `article.run[data-run-id="${runId}"]`;
const form = (id: string) => `[data-incident-actions] form[data-action-form="${id}"]`;

async function optionValue(label: string): Promise<string> {
  return li.$$eval('form[data-run-form] select[name="choice"] option', (els, wanted) => els.find((el) => (el.textContent ?? "").includes(wanted))!.getAttribute("value")!, label);
}

describe("an analyst works an incident from first look to close, a receiver listening", () => {
  let runId: string;

  it("Li opens the incident and assigns it to herself", async () => {
    await li.goto(`${origin}/portal/incidents/${clinics}/SourceA/${encodeURIComponent(incident.id)}`, { waitUntil: "load" });
    await li.waitForSelector('[data-action="assign-me"]');
    await li.click('[data-action="assign-me"]');
    await attribute(li, "data-assignee", "li.wei@contoso-mssp.example");
    await receivedCount(1);
  });

  it("puts it on hold: the SLA clock shows paused", async () => {
    await li.select(`${form("status")} select[name="status"]`, "OnHold");
    await li.click('[data-action="status"]');
    await attribute(li, "data-service-status", "OnHold");
    await attribute(li, "data-sla-state", "Paused");
    expect(await text(li, "[data-sla-state]")).toContain("Paused");
    await receivedCount(2);
  });

  it("comments", async () => {
    await li.type(`${form("comment")} textarea[name="message"]`, "The clinic manager was at home: the sign-in from abroad was not them.");
    await li.click('[data-action="comment"]');
    await li.waitForFunction(() => [...document.querySelectorAll(".comments .comment-text")].some((p) => p.textContent?.includes("was not them")));
    await receivedCount(3);
  });

  it("runs two playbooks on the account; the page says the run will wait, and it waits", async () => {
    await li.click("button[data-open-run-form]");
    await li.waitForSelector('form[data-run-form] select[name="choice"]');
    await li.select('form[data-run-form] select[name="choice"]', await optionValue("Revoke user sessions"));
    await li.click("form[data-run-form] .run-form-add button");
    await li.select('form[data-run-form] select[name="choice"]', await optionValue("Reset user password"));
    await li.click("form[data-run-form] .run-form-add button");
    const account = incident.entities.find((e) => e.kind === "Account")!;
    for (const i of [0, 1]) {
      await li.waitForSelector(`form[data-run-form] select[name="playbooks[${i}].entityId"]`);
      await li.select(`form[data-run-form] select[name="playbooks[${i}].entityId"]`, account.id);
    }
    await li.click("form[data-run-form] button[data-preview-run]");
    await li.waitForSelector('[data-preview][data-awaits="true"]');
    expect(await text(li, "[data-preview]")).toContain("This run will wait for approval");
    await li.click("form[data-run-form] button[data-submit-run]");
    await li.waitForFunction(() => !document.querySelector("form[data-run-form]"));
    runId = await li.$eval("section.incident-runs article.run", (el) => el.getAttribute("data-run-id")!);
    expect(await text(li, runCard(runId))).toContain("Waiting for approval");
    const run = (await host.services.stores.gamebookRuns.get(clinics, runId))!.value;
    expect(run.playbooks.map((p) => [p.name, p.entityId])).toEqual([
      ["Revoke user sessions", account.id],
      ["Reset user password", account.id],
    ]);
    // Nothing runs, and no gamebook.run.v1 goes out, while the run waits.
    expect(host.simulated.automation.executions().filter((e) => e.runId === runId)).toEqual([]);
  });

  it("Jonas approves it; Li sees every step's outcome on the incident page", async () => {
    await jonas.goto(`${origin}/portal/approvals`, { waitUntil: "load" });
    const card = `article.approval[data-run-id="${runId}"]`;
    await jonas.waitForSelector(card);
    await jonas.type(`${card} input[name="comment"]`, "Go ahead: the customer's on-call agrees.");
    await jonas.click(`${card} button[type="submit"]`);
    await jonas.waitForFunction((sel) => document.querySelector(sel)?.getAttribute("data-awaiting") === "false", {}, card);
    await receivedCount(4);

    // The page follows a run that has not ended until it ends.
    await li.waitForFunction((sel) => document.querySelector(sel)?.getAttribute("data-status") === "PartiallySucceeded", { timeout: 30_000 }, runCard(runId));
    expect(await li.$eval(`${runCard(runId)} tr[data-step="1"]`, (el) => el.getAttribute("data-step-status"))).toBe("Succeeded");
    expect(await li.$eval(`${runCard(runId)} tr[data-step="2"]`, (el) => el.getAttribute("data-step-status"))).toBe("Failed");
    const shown = await text(li, runCard(runId));
    expect(shown).toContain("Jonas Becker");
    expect(shown).toContain("synchronised from on-premises");
    await screenshot(li, "workbench-run-outcome");
    await checkAccessibility(li, "workbench-run-outcome");
  });

  it("retries the run of the failed step: a new run of that step alone, waiting for approval again", async () => {
    await li.click(`${runCard(runId)} button[data-action="retry"]`);
    await li.waitForSelector(`${runCard(runId)} button[data-confirm-action="retry"]`);
    await li.click(`${runCard(runId)} button[data-confirm-action="retry"]`);
    await li.waitForFunction((id) => document.querySelector("section.incident-runs article.run")?.getAttribute("data-run-id") !== id, {}, runId);
    const retryId = await li.$eval("section.incident-runs article.run", (el) => el.getAttribute("data-run-id")!);
    const retry = (await host.services.stores.gamebookRuns.get(clinics, retryId))!.value;
    expect([retry.isRetryGamebook, retry.retryOf?.runId, retry.playbooks.map((p) => p.name), retry.status, retry.isQueued]).toEqual([
      true,
      runId,
      ["Reset user password"],
      "Pending",
      true,
    ]);
  });

  it("closes the incident with a classification; the clock stops", async () => {
    await li.select(`${form("close")} select[name="classification"]`, "TruePositive");
    await li.type(`${form("close")} textarea[name="closingComment"]`, "Sessions revoked; the password is reset on-premises by the identity team.");
    await li.click('[data-action="close"]');
    await attribute(li, "data-closed-as", "TruePositive");
    await attribute(li, "data-sla-state", "Stopped");
    await receivedCount(6);
    expect(pageProblems(li)).toEqual(NO_PROBLEMS);
    expect(pageProblems(jonas)).toEqual(NO_PROBLEMS);
  });

  it("the receiver got every event of these actions, in order, each once, each naming the portal", async () => {
    // Nothing more arrives: a quiet spell after the last expected delivery.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const events = ofIncident();
    const origins = events.map((e) => {
      const by = (e.data.changedBy ?? e.data.closedBy ?? e.data.addedBy ?? e.data.triggeredBy) as { origin: string; name: string | null };
      return [e.type, by.origin, by.name];
    });
    expect(origins).toEqual([
      ["incident.assignee.changed.v1", "portal", "Li Wei"],
      ["incident.status.changed.v1", "portal", "Li Wei"],
      ["incident.comment.added.v1", "portal", "Li Wei"],
      ["gamebook.run.v1", "portal", "Li Wei"],
      ["incident.status.changed.v1", "portal", "Li Wei"],
      ["incident.closed.v1", "portal", "Li Wei"],
    ]);
    expect([events[1]!.data.serviceStatus, events[4]!.data.status, events[5]!.data.classification]).toEqual(["OnHold", "Closed", "TruePositive"]);
    // Each once: no event id twice (a retried delivery would reuse its id).
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect((events[3]!.data as { runId: string }).runId).toBe(runId);
  });
});
