import { defineConfig } from "vitest/config";

// Inline projects of this vitest do not inherit the root's test options: each is given the
// timeouts (a shared 2-core machine running several suites at once is slow, not broken).
const timeouts = { testTimeout: 30_000, hookTimeout: 60_000 };

// The API suite runs twice, once per storage adapter (TEST_STORE), as CI requires.
export default defineConfig({
  test: {
    ...timeouts,
    globalSetup: ["test/support/portal-build.setup.ts"],
    projects: [
      { test: { name: "unit", include: ["test/unit/**/*.test.ts", "test/contract/**/*.test.ts"], ...timeouts } },
      { test: { name: "api-memory", include: ["test/api/**/*.test.ts"], env: { TEST_STORE: "memory" }, ...timeouts } },
      { test: { name: "api-cosmos", include: ["test/api/**/*.test.ts"], env: { TEST_STORE: "cosmos" }, ...timeouts } },
      // Generated suites (fuzz, authorization matrix): driven by the OpenAPI document and the route table.
      // The examples of the README and the guides in docs/, pasted in order against the built service and receiver.
      { test: { name: "readme", include: ["test/readme/**/*.test.ts"], ...timeouts } },
      // The portal in a real headless Chromium (test/support/browser.ts): one file at a time, after the
      // other projects, so that browsers do not compete with them for the CPU.
      { test: { name: "browser", include: ["test/browser/**/*.test.ts"], env: { TEST_STORE: "memory" }, maxWorkers: 1, testTimeout: 60_000, hookTimeout: 600_000 } },
      // ESLint over the whole tree (eslint.config.mjs): its own project, so the unit lane stays quick.
      { test: { name: "lint", include: ["test/lint/**/*.test.ts"], ...timeouts } },
      { test: { name: "robustness", include: ["test/robustness/**/*.test.ts"], env: { TEST_STORE: "memory" }, testTimeout: 180_000 } },
    ],
  },
});
