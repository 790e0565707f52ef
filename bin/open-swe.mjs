#!/usr/bin/env node
// Runs the fastest form available: the compiled dist/ when it is up to date with the sources (always
// in the image, which ships dist/ only), else the TypeScript sources through tsx. `web`/`worker`/`all`
// say which in their start-up line.
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chooseEntry } from "./choose-entry.mjs";

const entry = chooseEntry(join(dirname(fileURLToPath(import.meta.url)), ".."));
if (entry.form === "tsx") {
  // tsx is a devDependency: a production install (the image, `npm ci --omit=dev`) runs dist/ only.
  const tsx = await import("tsx/esm/api").catch(() => undefined);
  if (!tsx) {
    process.stderr.write(`open-swe: ${entry.reason} and tsx is not installed (a production install runs dist/ only): run \`npm run build\` in a full install\n`);
    process.exit(1);
  }
  tsx.register();
}
await import(pathToFileURL(entry.file).href);
