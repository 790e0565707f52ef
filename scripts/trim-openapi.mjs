// postinstall: `@octokit/openapi` (a devDependency, for the contract tests) ships eleven descriptions of GitHub's API,
// 385 MB; the tests read two of them (api.github.com.json and the newest GHES one, test/contracts/github-openapi.ts).
// The others (dereferenced copies, GHEC, older GHES) are removed once here, so an install is ~320 MB lighter. Nothing
// outside that package's generated/ folder is touched; a production install (no devDependencies) has nothing to trim.
import { readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
/** The descriptions the contract tests read: keep in step with GITHUB_DESCRIPTION and GHES_DESCRIPTION. */
const KEPT = ["api.github.com.json", "ghes-3.19.json"];
const dir = join(root, "node_modules", "@octokit", "openapi", "generated");
let names = [];
try {
  names = readdirSync(dir);
} catch {
  process.exit(0);
}
const removed = names.filter((n) => n.endsWith(".json") && !KEPT.includes(n));
for (const n of removed) rmSync(join(dir, n), { force: true });
if (removed.length > 0) process.stderr.write(`trim-openapi: kept ${KEPT.join(", ")} of @octokit/openapi; removed ${removed.length} descriptions the tests do not read\n`);
