import { accessSync, constants, realpathSync } from "node:fs";
import { join } from "node:path";

const found = new Map<string, string | undefined>();

/**
 * The real absolute path of `name` on `path` (a PATH value), or undefined; remembered per process.
 * Symlinks are resolved: the file is run by a user who may not be able to search the PATH entry.
 */
export function findExecutable(name: string, path: string): string | undefined {
  const key = `${name}\0${path}`;
  if (found.has(key)) return found.get(key);
  let hit: string | undefined;
  for (const dir of path.split(":").filter(Boolean)) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      hit = realpathSync(join(dir, name));
      break;
    } catch {
      // next
    }
  }
  found.set(key, hit);
  return hit;
}
