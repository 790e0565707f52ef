#!/usr/bin/env node
// `npm run test:contracts [paths…]`: runs the folders whose tests mock GitHub (or the paths given), one
// at a time, and prints how many mocked GitHub exchanges (REST calls and webhook deliveries) were checked
// against GitHub's published contract, how many had none to check against, and how many were excused
// (test/contracts/known-drift.ts, or a delivery's `offContract` reason). Not part of .ci/run: the normal
// `npm test` runs the same checks; this only counts them.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const FOLDERS = ["test/contracts", "test/github", "test/review", "test/autofix", "test/runs", "test/security", "test/integration", "test/e2e"];
const targets = process.argv.slice(2).length > 0 ? process.argv.slice(2) : FOLDERS;
const tallyFile = join(mkdtempSync(join(tmpdir(), "open-swe-contracts-")), "tally.jsonl");

let failed = false;
for (const target of targets) {
  const run = spawnSync("npx", ["vitest", "run", target], { stdio: "inherit", env: { ...process.env, CONTRACT_TALLY_FILE: tallyFile } });
  if (run.status !== 0) failed = true;
}

const sum = { validated: 0, noContract: 0, drift: 0 };
const lines = existsSync(tallyFile) ? readFileSync(tallyFile, "utf8").split("\n").filter(Boolean) : [];
for (const line of lines) {
  const t = JSON.parse(line);
  sum.validated += t.validated;
  sum.noContract += t.noContract;
  sum.drift += t.drift;
}
const total = sum.validated + sum.noContract;
const pct = total === 0 ? 0 : Math.round((sum.validated / total) * 1000) / 10;
process.stdout.write(
  `\ncontracts (github, ${lines.length} test files): ${sum.validated} exchanges validated, ${sum.noContract} with no contract (GraphQL), ` +
    `${sum.drift} excused as known drift — ${pct} % validated\n`,
);
process.exit(failed ? 1 : 0);
