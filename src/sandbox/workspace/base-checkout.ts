import { lutimes, mkdir, realpath, utimes } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { buildAtomically } from "./build-atomically.js";
import { hostGit } from "./host-git.js";
import { BOT_IDENTITY } from "./identity.js";

/**
 * A read-only checkout of one commit, shared by every workspace at that commit (overlay lower layer).
 * Objects are hard links into the mirror (`clone --local`), so the checkout is self-contained inside
 * a sandbox; its origin points at the public URL, which carries no credential. Each use touches its
 * mtime: the sandbox sweep removes checkouts no sandbox mounts and none asked for within the grace.
 */
export function ensureBaseCheckout(opts: { mirrorRoot: string; mirror: string; sha: string; publicUrl: string }): Promise<string> {
  const dir = join(opts.mirrorRoot, "bases", basename(opts.mirror, ".git"), opts.sha);
  return buildAtomically(
    dir,
    join(dir, ".git"),
    async (tmp) => {
      await mkdir(join(dir, ".."), { recursive: true });
      await hostGit(["clone", "--local", "--no-checkout", "--quiet", opts.mirror, tmp]);
      await hostGit(["-C", tmp, "checkout", "--quiet", "--detach", opts.sha]);
      await hostGit(["-C", tmp, "remote", "set-url", "origin", opts.publicUrl]);
      await hostGit(["-C", tmp, "config", "user.name", BOT_IDENTITY.name]);
      await hostGit(["-C", tmp, "config", "user.email", BOT_IDENTITY.email]);
      await settleIndex(tmp);
    },
    () => markUsed(dir),
  );
}

/** The sandbox sweep removes a shared checkout only when no sandbox mounts it and its mtime is old. */
async function markUsed(dir: string): Promise<void> {
  const now = new Date();
  await utimes(dir, now, now);
}

/**
 * Files written in the same second as the index are "racily clean" and git re-hashes them on every
 * status in every workspace built on this base. Back-date them and refresh once, here. `lutimes`: a
 * symlink in the repository is touched itself, never what it points at (any path on the host).
 */
async function settleIndex(dir: string): Promise<void> {
  const past = new Date(Date.now() - 60_000);
  const files = (await hostGit(["-C", dir, "ls-files", "-z"])).split("\0").filter(Boolean);
  const root = await realpath(dir);
  const plainDir = new Map<string, Promise<boolean>>();
  // Git never checks a file out beneath a symlink, but an index entry could still name one: only
  // touch files whose directory resolves to itself.
  const isPlain = (d: string) => {
    let known = plainDir.get(d);
    if (!known)
      plainDir.set(
        d,
        (known =
          d === "."
            ? Promise.resolve(true)
            : realpath(join(dir, d)).then(
                (r) => r === join(root, d),
                () => false,
              )),
      );
    return known;
  };
  for (const f of files) {
    if (await isPlain(dirname(f))) await lutimes(join(dir, f), past, past).catch(() => undefined);
  }
  await hostGit(["-C", dir, "update-index", "-q", "--really-refresh"]).catch(() => undefined);
}
