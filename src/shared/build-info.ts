import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** What this process is: the version in package.json, the commit it was built from when known, Node's version. */
export interface BuildInfo {
  version: string;
  commit: string | null;
  node: string;
}

const HERE = dirname(fileURLToPath(import.meta.url));

const readJson = (path: string): unknown => {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
};

/** The nearest package.json named open-swe above this module (src/shared/ in a checkout, dist/src/shared/ built). */
function packageVersion(): string {
  for (let dir = HERE, i = 0; i < 5; i++, dir = dirname(dir)) {
    const pkg = readJson(join(dir, "package.json")) as { name?: unknown; version?: unknown } | null;
    if (pkg?.name === "open-swe" && typeof pkg.version === "string") return pkg.version;
  }
  return "unknown";
}

/** `dist/build-info.json`, written by `npm run build` (scripts/write-build-info.mjs); absent when run from src/. */
function builtCommit(): string | null {
  const file = readJson(join(HERE, "..", "..", "build-info.json")) as { commit?: unknown } | null;
  return typeof file?.commit === "string" && file.commit ? file.commit : null;
}

/** The build this process runs; `commitEnv` (OPEN_SWE_COMMIT) wins over the build-time file. */
export function readBuildInfo(commitEnv: string | undefined): BuildInfo {
  return { version: packageVersion(), commit: commitEnv?.trim() || builtCommit(), node: process.versions.node };
}

/** `open-swe 0.1.0 (commit 1a2b3c4d5e6f, node 24.1.0)`: what `open-swe --version` prints. */
export function versionLine(info: BuildInfo): string {
  return `open-swe ${info.version} (${info.commit ? `commit ${info.commit.slice(0, 12)}, ` : ""}node ${info.node})`;
}
