// `npm start`'s prestart: compile dist/ when a source changed since the last build (or there is none),
// so the app runs as compiled JavaScript rather than through tsx. Without the compiler (a production
// install without devDependencies) it leaves the choice to bin/open-swe.mjs.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chooseEntry } from "./choose-entry.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const entry = chooseEntry(root);
if (entry.form === "tsx" && existsSync(join(root, "node_modules", ".bin", "tsc"))) {
  process.stderr.write(`open-swe: building dist/ (${entry.reason})\n`);
  const r = spawnSync(join(root, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
  if (r.status !== 0) process.stderr.write("open-swe: the build failed; starting from the TypeScript sources\n");
  else if (existsSync(join(root, "scripts", "write-build-info.mjs"))) spawnSync(process.execPath, [join(root, "scripts", "write-build-info.mjs")], { cwd: root, stdio: "inherit" });
}
