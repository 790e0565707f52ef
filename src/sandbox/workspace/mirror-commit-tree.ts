import type { CommitTree, TreeEntry } from "../../shared/commit-tree.js";
import { hostGit, hostGitBytes } from "./host-git.js";

/**
 * Listings by mirror and full commit id: a commit's tree never changes, so a warm thread's next run
 * lists nothing again. Keyed by the mirror's path (one per repository), never shared across repositories.
 */
const listings = new Map<string, TreeEntry[]>();
const LISTINGS_KEPT = 256;
const FULL_OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

async function lsTree(mirror: string, commit: string, dirs: readonly string[]): Promise<TreeEntry[]> {
  const key = `${mirror}\0${commit}\0${dirs.join("\0")}`;
  const known = listings.get(key);
  if (known) return known;
  const entries = await listTree(mirror, commit, dirs);
  if (FULL_OID.test(commit)) {
    if (listings.size >= LISTINGS_KEPT) listings.delete(listings.keys().next().value!);
    listings.set(key, entries);
  }
  return entries;
}

/** `git ls-tree -r -l -z` of the given directories at a commit in the host mirror (never a sandbox). */
async function listTree(mirror: string, commit: string, dirs: readonly string[]): Promise<TreeEntry[]> {
  const out = await hostGit(["-C", mirror, "ls-tree", "-r", "-l", "-z", "--full-tree", commit, "--", ...dirs.map((d) => `${d}/`)]);
  const entries: TreeEntry[] = [];
  for (const rec of out.split("\0")) {
    const tab = rec.indexOf("\t");
    if (tab < 0) continue;
    const [mode = "", , oid = "", size = "0"] = rec.slice(0, tab).split(/\s+/);
    entries.push({ mode, oid, size: Number(size) || 0, path: rec.slice(tab + 1) });
  }
  return entries;
}

/** Many blobs in one `git cat-file --batch` (not a process per file): oid → text. */
async function readBlobs(mirror: string, oids: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const unique = [...new Set(oids)];
  if (unique.length === 0) return out;
  const raw = await hostGitBytes(["-C", mirror, "cat-file", "--batch"], { stdin: Buffer.from(`${unique.join("\n")}\n`) });
  let at = 0;
  while (at < raw.length) {
    const nl = raw.indexOf(10, at);
    if (nl < 0) break;
    const [oid = "", type = "", size = ""] = raw.subarray(at, nl).toString("latin1").split(" ");
    if (type === "missing" || size === "") {
      at = nl + 1;
      continue;
    }
    const n = Number(size);
    out.set(oid, raw.subarray(nl + 1, nl + 1 + n).toString("utf8"));
    at = nl + 1 + n + 1;
  }
  return out;
}

/** The host mirror at one commit, read with host git (`ls-tree`, one `cat-file --batch`). */
export function mirrorCommitTree(mirror: string, commit: string): CommitTree {
  return { list: (dirs) => lsTree(mirror, commit, dirs), read: (oids) => readBlobs(mirror, oids) };
}
