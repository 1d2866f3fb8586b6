import { defineConfig } from "vitest/config";

// The API suite runs twice, once per storage adapter (TEST_STORE), as CI requires.
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { test: { name: "unit", include: ["test/unit/**/*.test.ts", "test/contract/**/*.test.ts"] } },
      { test: { name: "api-memory", include: ["test/api/**/*.test.ts"], env: { TEST_STORE: "memory" } } },
      { test: { name: "api-cosmos", include: ["test/api/**/*.test.ts"], env: { TEST_STORE: "cosmos" } } },
    ],
  },
});
