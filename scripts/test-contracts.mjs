#!/usr/bin/env node
// `npm run test:contracts [paths…]`: runs the folders whose tests mock a vendor (or the paths given), one
// at a time, and prints per vendor how many mocked exchanges were checked against the vendor's published
// contract, how many had none to check against, and how many were excused (test/contracts/known-drift.ts,
// a delivery's `offContract` reason). Not part of .ci/run: the normal `npm test` runs the same checks;
// this only counts them. Vendors that count through `countContract` (the sandbox SDK suites) appear too.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const FOLDERS = ["test/contracts", "test/github", "test/review", "test/autofix", "test/runs", "test/sources", "test/approvals", "test/security", "test/integration", "test/e2e", "test/sandbox"];
/** How each vendor's exchanges are checked; a vendor missing here is printed with "counted by its suite". */
const HOW = {
  github: "@octokit/openapi: request and response at run time",
  "github-ghes": "@octokit/openapi's newest GHES description (ghes-3.19): request and response at run time",
  "github-webhooks": "@octokit/openapi-webhooks: each delivery at run time",
  slack: "@slack/web-api response types: at compile time (npm run typecheck)",
  linear: "Linear's schema from @linear/sdk: query, variables, answer at run time",
  jira: "jira.js models: at compile time (npm run typecheck)",
  confluence: "confluence.js v1 models: at compile time (npm run typecheck)",
  e2b: "the SDK's OpenAPI paths (compile time) and envd's protobufs (run time), exchanges of the conformance suite",
  daytona: "operations of the SDK's generated OpenAPI clients, at run time",
  modal: "Modal's protobuf service definitions the SDK bundles, over gRPC at run time",
};
const targets = process.argv.slice(2).length > 0 ? process.argv.slice(2) : FOLDERS;
const tallyFile = join(mkdtempSync(join(tmpdir(), "open-swe-contracts-")), "tally.jsonl");

let failed = false;
for (const target of targets) {
  const run = spawnSync("npx", ["vitest", "run", target], { stdio: "inherit", env: { ...process.env, CONTRACT_TALLY_FILE: tallyFile } });
  if (run.status !== 0) failed = true;
}

const sums = new Map(Object.keys(HOW).map((v) => [v, { validated: 0, noContract: 0, drift: 0, files: new Set() }]));
const lines = existsSync(tallyFile) ? readFileSync(tallyFile, "utf8").split("\n").filter(Boolean) : [];
for (const line of lines) {
  const t = JSON.parse(line);
  const sum = sums.get(t.vendor) ?? { validated: 0, noContract: 0, drift: 0, files: new Set() };
  sum.validated += t.validated;
  sum.noContract += t.noContract;
  sum.drift += t.drift;
  sum.files.add(t.file);
  sums.set(t.vendor, sum);
}
process.stdout.write("\ncontracts: mocked vendor exchanges, per vendor\n");
for (const [vendor, s] of sums) {
  const total = s.validated + s.noContract;
  const pct = total === 0 ? "—" : `${Math.round((s.validated / total) * 1000) / 10} %`;
  process.stdout.write(
    `  ${vendor.padEnd(16)} ${String(s.validated).padStart(5)} validated, ${String(s.noContract).padStart(4)} with no contract, ${String(s.drift).padStart(3)} excused` +
      ` — ${pct} validated (${s.files.size} test files; ${HOW[vendor] ?? "counted by its suite"})\n`,
  );
}
process.exit(failed ? 1 : 0);
