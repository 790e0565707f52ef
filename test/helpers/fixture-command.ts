import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";
import { ROOT, TSX_LOADER } from "./paths.js";

const SRC = join(ROOT, "src");
const OUT = join(ROOT, "node_modules", ".cache", "open-swe-fixtures");

let distIsCurrent: Promise<boolean> | undefined;

/** bin/open-swe.mjs's own question: is dist/ at least as new as every source? */
function currentDist(): Promise<boolean> {
  distIsCurrent ??= (import(pathToFileURL(join(ROOT, "bin/choose-entry.mjs")).href) as Promise<{ chooseEntry(root: string): { form: string } }>).then(
    ({ chooseEntry }) => chooseEntry(ROOT).form === "dist",
  );
  return distIsCurrent;
}

/** The fixture's imports of src/ point at the compiled dist/src/ (left as imports: one copy of each module). */
const srcToDist: Plugin = {
  name: "src-to-dist",
  setup(build) {
    build.onResolve({ filter: /^\./ }, (args) => {
      const path = join(args.resolveDir, args.path);
      return path.startsWith(`${SRC}/`) ? { path: join(ROOT, "dist", relative(ROOT, path)), external: true } : undefined;
    });
  },
};

/**
 * The node arguments that run a TypeScript fixture (test/fixtures/…) as a process. While dist/ is current
 * (npm test's pretest builds it) the fixture and the test helpers it imports are bundled into one file whose
 * imports of src/ load dist/ — the app's code as `npm start` runs it, without tsx compiling its whole graph in
 * every process (seconds of CPU each); packages stay imports. Else the fixture runs through tsx.
 */
export async function fixtureArgs(fixture: string): Promise<string[]> {
  if (!(await currentDist())) return ["--import", TSX_LOADER, fixture];
  const { outputFiles } = await build({ entryPoints: [fixture], bundle: true, platform: "node", format: "esm", target: "node20", packages: "external", plugins: [srcToDist], write: false });
  const code = outputFiles[0]!.contents;
  // Named by content: forks bundling the same fixture at once write the same file (renamed into place whole).
  const out = join(OUT, `${basename(fixture).replace(/\.m?ts$/, "")}-${createHash("sha256").update(code).digest("hex").slice(0, 16)}.mjs`);
  if (!existsSync(out)) {
    mkdirSync(OUT, { recursive: true });
    const tmp = `${out}.${process.pid}.tmp`;
    writeFileSync(tmp, code);
    renameSync(tmp, out);
  }
  return [out];
}
