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
    reporters: ["default", "./test/helpers/count-reporter.ts"],
  },
});
