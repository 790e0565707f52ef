import { constants, existsSync, readdirSync, readFileSync, rmdirSync, statSync } from "node:fs";
import { access, mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { errorMessage } from "../../errors.js";

export const CGROUP_CONTROLLERS = ["memory", "pids", "cpu"] as const;
export type CgroupController = (typeof CGROUP_CONTROLLERS)[number];

/** Where sandbox cgroups go: one parent directory per controller (v2: the same directory for all). */
export interface CgroupSetup {
  version: 1 | 2;
  parents: Record<CgroupController, string>;
}

export interface CgroupLimits {
  memoryBytes: number;
  pids: number;
  /** CPU cores (fractions allowed): a CFS quota of cpus × period. */
  cpus: number;
}

export type CgroupDetection = { ok: true; setup: CgroupSetup } | { ok: false; reason: string };

interface Mount {
  root: string;
  point: string;
  fstype: string;
  superOpts: string[];
}

function parseMountinfo(text: string): Mount[] {
  const out: Mount[] = [];
  for (const line of text.split("\n")) {
    const [left, right] = line.split(" - ");
    if (!left || !right) continue;
    const f = left.split(" ");
    const [fstype, , opts] = right.split(" ");
    if (!fstype || f.length < 5) continue;
    const un = (p: string) => p.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
    out.push({ root: un(f[3]!), point: un(f[4]!), fstype, superOpts: (opts ?? "").split(",") });
  }
  return out;
}

/** `/proc/self/cgroup` → controller (or "" for the v2 unified line) → this process's cgroup path. */
function ownCgroups(text: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const line of text.split("\n")) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!match) continue;
    for (const c of match[1]!.split(",")) m.set(c, match[2]!);
  }
  return m;
}

function under(mount: Mount, cgroupPath: string): string {
  const rel = mount.root !== "/" && cgroupPath.startsWith(mount.root) ? cgroupPath.slice(mount.root.length) : cgroupPath;
  return join(mount.point, rel);
}

/**
 * Finds where this worker may create sandbox cgroups. Default parent: `<own cgroup>/open-swe` in each
 * hierarchy, so the sandboxes stay inside whatever limits the worker itself runs under (a systemd
 * unit, a container); `parent` (an absolute cgroup path) overrides it. v1 controllers win on hybrid hosts.
 */
export async function detectCgroups(parent: string | undefined, procSelf = "/proc/self"): Promise<CgroupDetection> {
  let mounts: Mount[];
  let own: Map<string, string>;
  try {
    mounts = parseMountinfo(await readFile(`${procSelf}/mountinfo`, "utf8"));
    own = ownCgroups(await readFile(`${procSelf}/cgroup`, "utf8"));
  } catch (err) {
    return { ok: false, reason: `cannot read /proc: ${errorMessage(err)}` };
  }
  const v1 = (c: CgroupController) => mounts.find((m) => m.fstype === "cgroup" && m.superOpts.includes(c));
  if (CGROUP_CONTROLLERS.every((c) => v1(c) && own.has(c))) {
    const parents = Object.fromEntries(CGROUP_CONTROLLERS.map((c) => [c, parent ? under(v1(c)!, parent) : join(under(v1(c)!, own.get(c)!), "open-swe")])) as Record<CgroupController, string>;
    for (const dir of Object.values(parents)) {
      const denied = await tryMkdir(dir);
      if (denied) return { ok: false, reason: `cgroup v1: cannot create ${dir} (${denied})` };
    }
    return { ok: true, setup: { version: 1, parents } };
  }
  const v2 = mounts.find((m) => m.fstype === "cgroup2");
  if (!v2 || !own.has("")) return { ok: false, reason: "no cgroup v1 memory/pids/cpu hierarchy and no cgroup v2 mount" };
  const available = readLine(join(v2.point, "cgroup.controllers")).split(" ");
  const missing = CGROUP_CONTROLLERS.filter((c) => !available.includes(c));
  if (missing.length) return { ok: false, reason: `cgroup v2 at ${v2.point} lacks the ${missing.join(", ")} controller(s)` };
  const dir = parent ? under(v2, parent) : join(under(v2, own.get("")!), "open-swe");
  // v2 controllers reach a cgroup only when every ancestor enables them for its children, and a cgroup
  // with processes in it cannot (the "no internal processes" rule): the worker's own cgroup usually can't.
  const chain: string[] = [];
  for (let d = join(dir, ".."); d.length >= v2.point.length; d = join(d, "..")) {
    chain.unshift(d);
    if (d === v2.point) break;
  }
  const denied = await tryMkdir(dir);
  if (denied) return { ok: false, reason: `cgroup v2: cannot create ${dir} (${denied})` };
  for (const d of [...chain, dir]) {
    const enabled = readLine(join(d, "cgroup.subtree_control")).split(" ");
    const need = CGROUP_CONTROLLERS.filter((c) => !enabled.includes(c));
    if (!need.length) continue;
    try {
      await writeFile(join(d, "cgroup.subtree_control"), need.map((c) => `+${c}`).join(" "));
    } catch (err) {
      return {
        ok: false,
        reason: `cgroup v2: cannot enable ${need.join(", ")} for children of ${d} (${errorMessage(err)}); set SANDBOX_CGROUP_PARENT to a delegated cgroup without processes`,
      };
    }
  }
  return { ok: true, setup: { version: 2, parents: { memory: dir, pids: dir, cpu: dir } } };
}

async function tryMkdir(dir: string): Promise<string | undefined> {
  try {
    if (!existsSync(dir)) {
      await mkdir(dir, { recursive: true });
      remember(dir);
    }
    // Made by someone else (a root worker before us): we must be able to create the sandboxes' cgroups in it.
    await access(dir, constants.W_OK | constants.X_OK);
    return undefined;
  } catch (err) {
    return errorMessage(err);
  }
}

function readLine(path: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return "";
  }
}

/** One sandbox's cgroup directories (distinct per controller on v1). */
export function sandboxCgroupDirs(setup: CgroupSetup, id: string): string[] {
  return [...new Set(CGROUP_CONTROLLERS.map((c) => join(setup.parents[c], id)))];
}

/** Cgroup directories this process made; empty ones are removed when it exits (a cgroup with children can't be). */
const made = new Set<string>();
let exitHook = false;

function removeMadeOnExit(): void {
  // Children first, then the parents they sit in; a busy cgroup (a sandbox still running) stays.
  for (const d of [...made].sort((a, b) => b.length - a.length)) {
    try {
      rmdirSync(d);
    } catch {
      // busy or gone
    }
  }
}

function remember(dir: string): void {
  made.add(dir);
  if (!exitHook) {
    exitHook = true;
    process.once("exit", removeMadeOnExit);
  }
}

const RACE_CODES = new Set(["ENOENT", "ENODEV"]);

/**
 * Creates the sandbox's cgroups (idempotent) and writes its limits when they are new. Another
 * process's sweep (`sweepIdleCgroups`, `removeEmptyParents`) may remove a just-made cgroup, or its
 * empty parent, before the limits are written: then it is made again and every limit rewritten.
 */
export async function ensureSandboxCgroup(setup: CgroupSetup, id: string, limits: CgroupLimits): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await ensureOnce(setup, id, limits, attempt > 1);
      return;
    } catch (err) {
      if (attempt >= 8 || !RACE_CODES.has((err as NodeJS.ErrnoException).code ?? "")) throw err;
    }
  }
}

async function ensureOnce(setup: CgroupSetup, id: string, limits: CgroupLimits, rewrite: boolean): Promise<void> {
  const dir = (c: CgroupController) => join(setup.parents[c], id);
  const created = new Set<CgroupController>(rewrite ? CGROUP_CONTROLLERS : []);
  for (const c of CGROUP_CONTROLLERS) {
    if (existsSync(dir(c))) continue;
    // The parent goes away with the last sandbox (so nothing is left in the worker's cgroup): one mkdir
    // makes both, leaving no moment in which another process could remove the empty parent.
    const first = await mkdir(dir(c), { recursive: true });
    if (first !== undefined && first !== dir(c)) remember(setup.parents[c]);
    // v2: the child's controllers are the parent's subtree_control (idempotent, so written every time).
    if (setup.version === 2 && first !== undefined) await writeFile(join(setup.parents[c], "cgroup.subtree_control"), CGROUP_CONTROLLERS.map((x) => `+${x}`).join(" "));
    remember(dir(c));
    created.add(c);
  }
  if (created.size === 0) return;
  const period = 100_000;
  const quota = Math.max(1000, Math.round(limits.cpus * period));
  const writes: Array<[CgroupController, string, string]> =
    setup.version === 1
      ? [
          ["memory", "memory.limit_in_bytes", String(limits.memoryBytes)],
          ["memory", "memory.memsw.limit_in_bytes", String(limits.memoryBytes)],
          ["pids", "pids.max", String(limits.pids)],
          ["cpu", "cpu.cfs_period_us", String(period)],
          ["cpu", "cpu.cfs_quota_us", String(quota)],
        ]
      : [
          ["memory", "memory.max", String(limits.memoryBytes)],
          ["memory", "memory.swap.max", "0"],
          ["pids", "pids.max", String(limits.pids)],
          ["cpu", "cpu.max", `${quota} ${period}`],
        ];
  for (const [c, file, value] of writes) {
    const path = join(dir(c), file);
    // memsw / swap.max only exist with swap accounting: without swap there is nothing to cap.
    if (!created.has(c) || (/memsw|swap/.test(file) && !existsSync(path))) continue;
    await writeFile(path, value);
  }
}

export interface CgroupCounters {
  oomKills: number;
  pidsRefused: number;
}

function counter(text: string, key: string): number {
  const m = new RegExp(`^${key} (\\d+)$`, "m").exec(text);
  return m ? Number(m[1]) : 0;
}

/** How often the kernel OOM-killed in, or refused a fork to, this sandbox so far. */
export function readCgroupCounters(setup: CgroupSetup, id: string): CgroupCounters {
  const mem = readLine(join(setup.parents.memory, id, setup.version === 1 ? "memory.oom_control" : "memory.events"));
  const pids = readLine(join(setup.parents.pids, id, "pids.events"));
  return { oomKills: counter(mem, "oom_kill"), pidsRefused: counter(pids, "max") };
}

/** Kills whatever is left in the sandbox's cgroups and removes them; missing cgroups are fine. */
export async function removeSandboxCgroup(setup: CgroupSetup, id: string): Promise<void> {
  for (const dir of sandboxCgroupDirs(setup, id)) {
    if (!existsSync(dir)) continue;
    for (let attempt = 0; attempt < 50; attempt++) {
      const pids = readLine(join(dir, "cgroup.procs")).split("\n").filter(Boolean).map(Number);
      for (const pid of pids) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // exited meanwhile
        }
      }
      try {
        await rmdir(dir);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") break;
        if ((err as NodeJS.ErrnoException).code !== "EBUSY" || attempt === 49) throw err;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  }
  removeEmptyParents(setup);
}

/** Removes the parents when no sandbox cgroup is left in them (a parent with children refuses). */
function removeEmptyParents(setup: CgroupSetup): void {
  for (const parent of new Set(Object.values(setup.parents))) {
    try {
      rmdirSync(parent);
    } catch {
      // other sandboxes' cgroups are still there
    }
  }
}

/** Younger cgroups are left alone: another worker may have just made one and not yet written its limits or moved a process in. */
export const SWEEP_MIN_AGE_MS = 60_000;

/**
 * Removes sandbox cgroups with no process in them (left by sandboxes never destroyed, or a worker
 * that was killed). Always safe: the next exec of a live sandbox creates its cgroup again.
 */
export function sweepIdleCgroups(setup: CgroupSetup, now = Date.now()): void {
  for (const parent of new Set(Object.values(setup.parents))) {
    let names: string[];
    try {
      names = readdirSync(parent, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name);
    } catch {
      continue;
    }
    for (const n of names.filter((x) => /^local-[0-9a-f]{16}$/.test(x))) {
      try {
        if (now - statSync(join(parent, n)).mtimeMs < SWEEP_MIN_AGE_MS) continue;
        rmdirSync(join(parent, n));
      } catch {
        // running
      }
    }
  }
  removeEmptyParents(setup);
}
