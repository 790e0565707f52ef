import { defineConfig } from "vitest/config";

// `npm run mutate` (StrykerJS) runs only the table tests of the pure decision modules: no Redis, no
// servers, so each mutant is judged in milliseconds. Not part of `npm test` or CI.
export default defineConfig({
  test: {
    include: [
      "test/github/command.test.ts",
      "test/github/decisions.test.ts",
      "test/review/reconcile-findings.test.ts",
      "test/review/finding-identity.test.ts",
      "test/review/verdict-decision.test.ts",
      "test/review/budget.test.ts",
      "test/review/diff.test.ts",
      "test/autofix/decide.test.ts",
      "test/runs/run-prompt-parts.test.ts",
      "test/config/pr-conventions.test.ts",
    ],
    // No setup-each: it chdirs at load, which Stryker's worker threads refuse ("No tests were found").
    // These table tests need no network guard or Redis.
    setupFiles: [],
    pool: "forks",
  },
});
