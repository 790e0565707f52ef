#!/usr/bin/env node
// Runs the fastest form available: the compiled dist/ when it is up to date with the sources (always
// in the image, which ships dist/ only), else the TypeScript sources through tsx. `web`/`worker`/`all`
// say which in their start-up line.
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chooseEntry } from "./choose-entry.mjs";

const entry = chooseEntry(join(dirname(fileURLToPath(import.meta.url)), ".."));
if (entry.form === "tsx") {
  const { register } = await import("tsx/esm/api");
  register();
}
await import(pathToFileURL(entry.file).href);
