import { defineConfig } from "vitest/config";

// Every project below `extends: true`: it takes the root's test options (the timeouts; a shared
// 2-core machine running several suites at once is slow, not broken) and adds its own.
// The API suite runs twice, once per storage adapter (TEST_STORE), as CI requires.
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ["test/support/portal-build.setup.ts"],
    projects: [
      // In-process code only: no socket, no child process, no compiler over the whole tree. One
      // module graph for all its files (isolation off), so the lane is quick.
      { extends: true, test: { name: "unit", include: ["test/unit/**/*.test.ts"], isolate: false } },
      // The port contract suites, each run against every adapter: the memory and simulated ones,
      // Cosmos on the in-process Cosmos-protocol server, Service Bus and Blob storage on their stand-ins.
      { extends: true, test: { name: "contract", include: ["test/contract/**/*.test.ts"] } },
      // Adapters against real sockets (HTTP stand-ins, the local identity provider, Cosmos), child
      // processes (the deployment package, the start banner, the cold start) and checks over the
      // whole tree (the import rules, the portal's typed client, the OpenAPI lint).
      { extends: true, test: { name: "integration", include: ["test/integration/**/*.test.ts"] } },
      { extends: true, test: { name: "api-memory", include: ["test/api/**/*.test.ts"], env: { TEST_STORE: "memory" } } },
      { extends: true, test: { name: "api-cosmos", include: ["test/api/**/*.test.ts"], env: { TEST_STORE: "cosmos" } } },
      // The examples of the README and the guides in docs/, pasted in order against the built service and receiver.
      { extends: true, test: { name: "readme", include: ["test/readme/**/*.test.ts"] } },
      // The portal in a real headless Chromium (test/support/browser.ts): one file at a time, after the
      // other projects, so that browsers do not compete with them for the CPU.
      { extends: true, test: { name: "browser", include: ["test/browser/**/*.test.ts"], env: { TEST_STORE: "memory" }, maxWorkers: 1, testTimeout: 60_000, hookTimeout: 600_000 } },
      // ESLint over the whole tree (eslint.config.mjs): its own project, so the unit lane stays quick.
      { extends: true, test: { name: "lint", include: ["test/lint/**/*.test.ts"] } },
      // Generated suites (fuzz, authorization matrix): driven by the OpenAPI document and the route table.
      { extends: true, test: { name: "robustness", include: ["test/robustness/**/*.test.ts"], env: { TEST_STORE: "memory" }, testTimeout: 180_000 } },
    ],
  },
});
