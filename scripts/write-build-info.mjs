// `npm run build`'s last step: dist/build-info.json records the commit the build was made from —
// OPEN_SWE_COMMIT (the Dockerfile's build argument), else the checkout's HEAD — so `open-swe --version`,
// the start-up lines and /metrics can say it where there is no .git (the image). Unknown: no file.
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const file = join(root, "dist", "build-info.json");

function headCommit() {
  try {
    return execFileSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "";
  }
}

const commit = process.env.OPEN_SWE_COMMIT?.trim() || headCommit();
if (commit) writeFileSync(file, `${JSON.stringify({ commit })}\n`);
else rmSync(file, { force: true });
