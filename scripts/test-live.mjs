#!/usr/bin/env node
// `npm run test:live`: the real-vendor suites (test/live/suites.json), each run only when the credentials
// it needs are set in the environment; prints what ran, what was skipped and why. Run it before upgrading
// a vendor package or a contract package (README "Before an upgrade"). Not part of .ci/run: CI has no keys
// and no network. Exit 1 when a suite that ran failed; skipped suites do not fail the run.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

const suites = JSON.parse(readFileSync(new URL("../test/live/suites.json", import.meta.url), "utf8"));
const results = [];
for (const suite of suites) {
  const missing = suite.needs.filter((k) => !process.env[k]);
  if (missing.length > 0) {
    results.push({ name: suite.name, outcome: "skipped", why: `${missing.join(", ")} not set` });
    continue;
  }
  const args = ["vitest", "run", ...suite.files, ...(suite.filter ? ["-t", suite.filter] : [])];
  const run = spawnSync("npx", args, { stdio: "inherit", env: { ...process.env, OPEN_SWE_TEST_LIVE: "1" } });
  results.push({ name: suite.name, outcome: run.status === 0 ? "passed" : "FAILED", why: run.status === 0 ? "" : `exit ${run.status ?? run.signal}` });
}
process.stdout.write("\nlive vendor suites:\n");
for (const r of results) process.stdout.write(`  ${r.outcome.padEnd(8)} ${r.name}${r.why ? ` — ${r.why}` : ""}\n`);
const ran = results.filter((r) => r.outcome !== "skipped").length;
process.stdout.write(`${ran} of ${results.length} suites ran; ${results.length - ran} skipped (their keys are not set)\n`);
process.exit(results.some((r) => r.outcome === "FAILED") ? 1 : 0);
