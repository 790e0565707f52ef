// Which form of the app bin/open-swe.mjs runs: the compiled dist/ when it is at least as new as
// everything it was built from, else the TypeScript sources through tsx. Kept apart (no imports of
// ours) so `prestart` and the tests can ask the same question.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** What `npm run build` compiles (tsconfig.build.json `include`) and the settings it compiles them with. */
const SOURCE_DIRS = ["src", "jobs", "bench"];
const SOURCE_FILES = ["tsconfig.json", "tsconfig.build.json"];

const mtime = (path) => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
};

/** The first source (file or directory: a deletion or rename changes its directory) changed after `since`. */
function changedSince(root, since) {
  for (const file of SOURCE_FILES) if ((mtime(join(root, file)) ?? 0) > since) return file;
  for (const dir of SOURCE_DIRS) {
    const top = join(root, dir);
    if (!existsSync(top)) continue;
    if ((mtime(top) ?? 0) > since) return dir;
    for (const e of readdirSync(top, { recursive: true, withFileTypes: true })) {
      if (!e.isDirectory() && !e.name.endsWith(".ts")) continue;
      const path = join(e.parentPath ?? e.path, e.name);
      if ((mtime(path) ?? 0) > since) return relative(root, path);
    }
  }
  return undefined;
}

/**
 * `{ form: "dist", file }` or `{ form: "tsx", file, reason }`. A tree without src/ (the image) is dist;
 * a checkout runs dist/ only when dist/src/cli.js is newer than every source, so an old build never
 * shadows an edit.
 */
export function chooseEntry(root) {
  const source = join(root, "src", "cli.ts");
  const built = join(root, "dist", "src", "cli.js");
  if (!existsSync(source)) return { form: "dist", file: built };
  const builtAt = mtime(built);
  if (builtAt === undefined) return { form: "tsx", file: source, reason: "dist/ is not built" };
  const changed = changedSince(root, builtAt);
  if (changed) return { form: "tsx", file: source, reason: `${changed} changed since the last build` };
  return { form: "dist", file: built };
}
