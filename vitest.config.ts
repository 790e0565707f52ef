import { defineConfig } from "vitest/config";
import { LongestFirstSequencer } from "./test/helpers/longest-first-sequencer.js";

/**
 * Files that share one module graph per fork (`isolate: false`): each fork loads the node_modules graph
 * (LangChain, Probot, BullMQ, ajv, …) once instead of once per file, which was most of their time. Each
 * file still gets its own working directory, nock state and contract tally (test/helpers/setup-each.ts
 * runs again per file; in a shared fork it also zeroes the app's metrics registry, one per process). A folder
 * moves here only after it passed with `--no-isolate`. e2e, integration and security start the app in process
 * (each file ~5 s of imports when isolated); dashboard (browser navigation raced in a shared fork under load),
 * sandbox (the worker's spawner is one per process) and faults stay in `isolated`.
 */
const SHARED = [
  "test/agent/**",
  "test/approvals/**",
  "test/architecture/**",
  "test/autofix/**",
  "test/config/**",
  "test/contracts/**",
  "test/e2e/**",
  "test/github/**",
  "test/http/**",
  "test/integration/**",
  "test/mcp/**",
  "test/net/**",
  "test/operator/**",
  "test/queue/**",
  "test/review/**",
  "test/runs/**",
  "test/security/**",
  "test/setup/**",
  "test/shared/**",
  "test/sources/**",
  "test/store/**",
  "test/threads/**",
  "test/worker/**",
  "test/*.test.ts",
].map((dir) => (dir.endsWith("**") ? `${dir}/*.test.ts` : dir));

// The real-vendor suites run only through `npm run test:live` (scripts/test-live.mjs).
// `npm run test:fast` (OPEN_SWE_TEST_FAST=1) leaves out the slow multi-process fault tests: a projects config ignores
// the CLI's --exclude, so the choice is made here.
const exclude = ["node_modules/**", ...(process.env.OPEN_SWE_TEST_LIVE === "1" ? [] : ["test/live/**"]), ...(process.env.OPEN_SWE_TEST_FAST === "1" ? ["test/**/*.slow.test.ts"] : [])];

export default defineConfig({
  test: {
    globalSetup: ["test/helpers/global-setup.ts"],
    setupFiles: ["test/helpers/setup-each.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Vitest's default on 2 cores is one fork; most files wait on real processes (Redis, git, bwrap, Chromium): with two
    // forks the cores were still ~40 % idle, a third fills the waits. Past that the suite's own CPU bounds it, and more
    // forks only crowd the files whose locks and liveness keys last 1.5 s.
    maxWorkers: 3,
    reporters: ["default", "./test/helpers/count-reporter.ts"],
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      { extends: true, test: { name: "shared", include: SHARED, exclude, isolate: false, env: { OPEN_SWE_TEST_SHARED: "1" } } },
      { extends: true, test: { name: "isolated", include: ["test/**/*.test.ts"], exclude: [...exclude, ...SHARED] } },
    ],
  },
});
