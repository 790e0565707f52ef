#!/usr/bin/env node
// In a checkout (src/ present) run the TypeScript sources through tsx, so an old build never shadows
// them; in a built image (dist/ only, as the Dockerfile ships) run the compiled code.
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, join } from "node:path";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "src", "cli.ts");
if (existsSync(source)) {
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(source).href);
} else {
  await import(pathToFileURL(join(root, "dist", "src", "cli.js")).href);
}
