import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The real-vendor suites run only through `npm run test:live` (scripts/test-live.mjs).
    exclude: process.env.OPEN_SWE_TEST_LIVE === "1" ? ["node_modules/**"] : ["node_modules/**", "test/live/**"],
    globalSetup: ["test/helpers/global-setup.ts"],
    setupFiles: ["test/helpers/setup-each.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Vitest's default on 2 cores is one fork; most files wait on real processes (Redis, git, bwrap, Chromium), so two
    // forks keep both cores busy and the suite about halves.
    maxWorkers: 2,
    reporters: ["default", "./test/helpers/count-reporter.ts"],
  },
});
