import { constants } from "node:fs";
import { lchown, mkdir, open, readlink, realpath, type FileHandle } from "node:fs/promises";
import { dirname, posix } from "node:path";
import type { HostIdentity } from "../host-identity.js";
import type { DownloadResult, FileErrorCode, UploadFile, UploadResult } from "../types.js";

/**
 * Host-side file transfer into a local sandbox's workspace. The sandbox can plant symlinks, so every
 * opened descriptor is checked against the workspace's real path after opening (race-free for what
 * was actually opened), and only regular files are read.
 */
export class LocalWorkspaceFiles {
  private realRoot: string | undefined;

  constructor(
    private readonly hostWorkspace: string,
    private readonly workdir: string,
    /** A root worker writes as root: what it creates is handed to the sandbox's host user. */
    private readonly owner?: HostIdentity,
  ) {}

  /** Maps a sandbox path under `workdir` to its host path, or undefined when it is outside. */
  hostPath(sandboxPath: string): string | undefined {
    const abs = posix.normalize(posix.isAbsolute(sandboxPath) ? sandboxPath : posix.join(this.workdir, sandboxPath));
    if (abs === this.workdir) return this.hostWorkspace;
    if (!abs.startsWith(`${this.workdir}/`)) return undefined;
    return this.hostWorkspace + abs.slice(this.workdir.length);
  }

  async upload(files: UploadFile[]): Promise<UploadResult[]> {
    const results: UploadResult[] = [];
    for (const f of files) {
      const error = await this.writeOne(f).catch((e: unknown) => errorCode(e));
      results.push(error ? { path: f.path, error } : { path: f.path });
    }
    return results;
  }

  async download(paths: string[]): Promise<DownloadResult[]> {
    const results: DownloadResult[] = [];
    for (const path of paths) {
      try {
        results.push({ path, content: await this.readOne(path) });
      } catch (e) {
        results.push({ path, content: null, error: errorCode(e) });
      }
    }
    return results;
  }

  private async root(): Promise<string> {
    this.realRoot ??= await realpath(this.hostWorkspace);
    return this.realRoot;
  }

  private async inside(fh: FileHandle): Promise<boolean> {
    const real = await readlink(`/proc/self/fd/${fh.fd}`);
    const root = await this.root();
    return real === root || real.startsWith(`${root}/`);
  }

  private async readOne(path: string): Promise<Uint8Array> {
    const host = this.hostPath(path);
    if (!host) throw codeError("invalid_path");
    const fh = await open(host, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      if (!(await this.inside(fh))) throw codeError("permission_denied");
      const st = await fh.stat();
      if (st.isDirectory()) throw codeError("is_directory");
      if (!st.isFile()) throw codeError("permission_denied");
      return new Uint8Array(await fh.readFile());
    } finally {
      await fh.close();
    }
  }

  private async writeOne(f: UploadFile): Promise<FileErrorCode | undefined> {
    const host = this.hostPath(f.path);
    if (!host || host === this.hostWorkspace) return "invalid_path";
    const parent = dirname(host);
    if (!(await this.ancestorInside(parent))) return "permission_denied";
    const created = await mkdir(parent, { recursive: true });
    if (created && this.owner?.drop) {
      for (let d = parent; d.length >= created.length; d = dirname(d)) await lchown(d, this.owner.uid, this.owner.gid);
    }
    const fh = await open(host, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
    try {
      if (!(await this.inside(fh))) return "permission_denied";
      if (this.owner?.drop) {
        const st = await fh.stat();
        // A file with other links (a git object shared with the mirror) never changes hands.
        if (st.nlink === 1 && st.uid !== this.owner.uid) await fh.chown(this.owner.uid, this.owner.gid);
      }
      await fh.truncate(0);
      await fh.writeFile(f.content);
      return undefined;
    } finally {
      await fh.close();
    }
  }

  /** The deepest existing ancestor of `dir` must resolve inside the workspace before mkdir -p runs. */
  private async ancestorInside(dir: string): Promise<boolean> {
    const root = await this.root();
    for (let d = dir; ; d = dirname(d)) {
      try {
        const real = await realpath(d);
        return real === root || real.startsWith(`${root}/`);
      } catch {
        if (d === dirname(d)) return false;
      }
    }
  }
}

function codeError(code: FileErrorCode): Error & { fileCode: FileErrorCode } {
  return Object.assign(new Error(code), { fileCode: code });
}

function errorCode(e: unknown): FileErrorCode {
  if (e && typeof e === "object") {
    if ("fileCode" in e) return (e as { fileCode: FileErrorCode }).fileCode;
    const code = (e as { code?: string }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return "file_not_found";
    if (code === "EISDIR") return "is_directory";
  }
  return "permission_denied";
}
