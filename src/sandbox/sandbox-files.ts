import { shellQuote } from "./shell-quote.js";
import { SandboxError, type Sandbox } from "./types.js";

export interface DirEntry {
  name: string;
  isDir: boolean;
}

/** File operations derived once from the three primitives (exec, upload, download), for every provider. */
export interface SandboxFiles {
  read(path: string): Promise<Uint8Array>;
  readText(path: string): Promise<string>;
  write(path: string, content: Uint8Array | string): Promise<void>;
  exists(path: string): Promise<boolean>;
  ls(path: string): Promise<DirEntry[]>;
}

export function sandboxFiles(sandbox: Sandbox): SandboxFiles {
  const read = async (path: string): Promise<Uint8Array> => {
    const [res] = await sandbox.download([path]);
    if (!res || res.content === null) {
      throw new SandboxError(res?.error === "file_not_found" ? "not_found" : "invalid", `cannot read ${path}: ${res?.error ?? "no result"}`);
    }
    return res.content;
  };
  return {
    read,
    readText: async (path) => new TextDecoder().decode(await read(path)),
    async write(path, content) {
      const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
      const [res] = await sandbox.upload([{ path, content: bytes }]);
      if (!res || res.error) throw new SandboxError("invalid", `cannot write ${path}: ${res?.error ?? "no result"}`);
    },
    async exists(path) {
      const r = await sandbox.exec(`test -e ${shellQuote(path)}`);
      return r.exitCode === 0;
    },
    async ls(path) {
      // `-p` marks directories with a trailing slash; one entry per line, dotfiles included.
      const r = await sandbox.exec(`ls -1Ap -- ${shellQuote(path)}`);
      if (r.exitCode !== 0) throw new SandboxError("not_found", `cannot list ${path}: ${r.stderr.trim()}`);
      return r.stdout
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => (l.endsWith("/") ? { name: l.slice(0, -1), isDir: true } : { name: l, isDir: false }));
    },
  };
}
