import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** The checkout. Tests run in a temporary working directory (setup-each), so paths into it are absolute. */
export const ROOT = resolve(import.meta.dirname, "../..");

/** `node --import <this> file.ts` runs TypeScript from any working directory. */
export const TSX_LOADER = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
