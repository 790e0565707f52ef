import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./paths.js";

/**
 * A place where an unprivileged test uid can reach the checkout even when its parents are private
 * (a clone under /root): `wrap(argv)` runs argv in a private mount namespace with the checkout bound
 * at `view` and that as its working directory. Paths in argv should be under `view`.
 */
export function checkoutView(): { view: string; wrap: (argv: string[]) => string[] } {
  const dir = mkdtempSync(join(tmpdir(), "osw-view-"));
  const view = join(dir, "checkout");
  mkdirSync(view, { mode: 0o755 });
  return {
    view,
    wrap: (argv) => ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", 'chmod 755 "$3" && mount --bind "$1" "$2" && cd "$2" && shift 3 && exec "$@"', "sh", ROOT, view, dir, ...argv],
  };
}
