import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { sources } from "../../shared/model/sources";
import { seedDemoAdministration } from "../../shared/hosts/local/demo-administration";
import { seedDemoData, type SeedResult } from "../../shared/hosts/local/demo-data";
import { seedDemoGamebooks } from "../../shared/hosts/local/demo-gamebooks";
import { createLocalServices } from "../../shared/hosts/local/local-services";
import { loadConfig } from "../../shared/platform/config/config";
import type { Services } from "../../shared/domain/services";

/*
 * The demo figures the README and the guides state in words — how many workspaces, people, service
 * accounts, webhooks, customers, playbooks, gamebooks and vendor sources `npm start` gives — against
 * the demo as the code builds it: seeded as the local host seeds it (shared/hosts/local/main.ts), on
 * the memory store, with the default DEMO_SEED. Each figure must be stated somewhere, and every
 * statement of it must be the count.
 */

const root = join(__dirname, "../..");
const DOCUMENTS = ["README.md", "docs/api.md", "docs/portal.md", "docs/operating.md", "docs/development.md"];
const text = DOCUMENTS.map((file) => readFileSync(join(root, file), "utf8").replace(/\s+/g, " ")).join("\n");

const WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];
const NUMBER = `(${WORDS.join("|")}|\\d+)`;
const valueOf = (figure: string) => (WORDS.includes(figure.toLowerCase()) ? WORDS.indexOf(figure.toLowerCase()) : Number(figure));

/** Every figure a document states for `what`: the number word or digits the pattern's NUMBER captures. */
function stated(pattern: string): number[] {
  return [...text.matchAll(new RegExp(pattern.replace("NUMBER", NUMBER), "gi"))].map((m) => valueOf(m[1]!));
}

let services: Services;
let seeded: SeedResult;
let accountIds: string[];
beforeAll(async () => {
  const config = loadConfig({
    SECRET_HASH_KEY: randomBytes(32).toString("base64"),
    PAGE_TOKEN_KEY: randomBytes(32).toString("base64"),
    WEBHOOK_SECRETS_KEY: randomBytes(32).toString("base64"),
  });
  ({ services } = createLocalServices(config, { logger: { debug() {}, info() {}, warn() {}, error() {} } as never }));
  seeded = await seedDemoData(services);
  await seedDemoGamebooks(services, seeded.data);
  await seedDemoAdministration(services, seeded.data);
  accountIds = [seeded.data.provider.id, ...seeded.data.customers.map((c) => c.id)];
});

/** The demo's catalogues, one per workspace that has one: their playbook and gamebook counts. */
async function catalogues(): Promise<{ playbooks: number; gamebooks: number }[]> {
  const all = await Promise.all((await services.stores.workspaces.listAll()).map((w) => services.stores.playbookCatalogues.get(w.id)));
  return all.filter((c) => c !== undefined).map((c) => ({ playbooks: c.playbooks.length, gamebooks: c.gamebooks.length }));
}

/** The one value every catalogue has for a count; fails when they differ, since the docs state one. */
const same = (values: number[]) => {
  expect(new Set(values).size, `catalogues differ: ${values.join(", ")}`).toBe(1);
  return values[0]!;
};

const FIGURES: { what: string; pattern: string; count: () => Promise<number> }[] = [
  { what: "workspaces", pattern: "\\bNUMBER workspaces \\(and \\w+ offboarded", count: async () => (await services.stores.workspaces.listAll()).length },
  { what: "offboarded workspaces", pattern: "workspaces \\(and NUMBER offboarded", count: async () => (await services.stores.workspaces.listOffboarded(accountIds)).length },
  { what: "customers", pattern: "\\bNUMBER customers\\b", count: async () => seeded.data.customers.length },
  { what: "people", pattern: "\\bNUMBER people\\b", count: async () => (await services.stores.users.list(accountIds, {}, { limit: 1000 })).items.length },
  {
    what: "service accounts besides the admin",
    pattern: "\\bNUMBER more service accounts\\b",
    count: async () => (await services.stores.serviceAccounts.list(accountIds, { limit: 1000 })).items.filter((a) => a.id !== seeded.admin.clientId).length,
  },
  { what: "webhooks", pattern: "\\bNUMBER webhooks (?:with|in)\\b", count: async () => (await services.stores.webhooks.listByAccounts(accountIds)).length },
  { what: "playbooks per catalogue", pattern: "\\bcatalogue of NUMBER playbooks\\b", count: async () => same((await catalogues()).map((c) => c.playbooks)) },
  { what: "gamebooks per catalogue", pattern: "\\bNUMBER gamebooks\\b", count: async () => same((await catalogues()).map((c) => c.gamebooks)) },
  { what: "vendor sources", pattern: "\\bNUMBER vendor sources\\b", count: async () => sources.length },
];

describe("the demo figures in the README and the guides", () => {
  it.each(FIGURES)("state the number of $what the demo has", async ({ pattern, count }) => {
    const figures = stated(pattern);
    expect(figures.length, `no document states it (${pattern})`).toBeGreaterThan(0);
    const actual = await count();
    expect(figures).toEqual(figures.map(() => actual));
  });
});
