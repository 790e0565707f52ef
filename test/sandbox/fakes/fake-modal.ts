import type { LocalSandboxProvider } from "../../../src/sandbox/providers/local.js";
import type { ModalApi, ModalHandle } from "../../../src/sandbox/providers/modal.js";
import { shellJoin, shellQuote } from "../../../src/shared/shell-quote.js";
import { isSandboxError, type Sandbox } from "../../../src/sandbox/types.js";
import { namedError } from "./named-error.js";

/**
 * A Modal stand-in at the provider's client seam (the SDK is gRPC over HTTP/2, out of nock's reach):
 * argv exec with binary stdio, poll() → null while running, NotFoundError for unknown ids.
 */
export function fakeModalApi(local: LocalSandboxProvider): ModalApi & { terminated: Set<string>; created: Array<{ timeoutMs: number; idleTimeoutMs?: number }>; execs: string[][] } {
  const terminated = new Set<string>();
  const created: Array<{ timeoutMs: number; idleTimeoutMs?: number }> = [];
  const execs: string[][] = [];
  const wrap = (sb: Sandbox): ModalHandle => ({
    sandboxId: sb.id,
    async exec(argv, o) {
      if (terminated.has(sb.id)) throw namedError("NotFoundError", "Sandbox has terminated");
      execs.push(argv);
      // stdio is binary in the SDK: stdin is staged as a file (removed by the same command) and stdout
      // travels base64-encoded, so bytes survive the string-typed local exec untouched.
      const inFile = `${sb.workdir}/.modal-in-${Math.random().toString(36).slice(2)}`;
      if (o.stdin) await sb.upload([{ path: inFile, content: o.stdin }]);
      const inner = o.stdin ? `${shellJoin(argv)} < ${inFile}; s=$?; rm -f ${inFile}; exit $s` : `${shellJoin(argv)} < /dev/null`;
      const cmd = `bash -c ${shellQuote(`set -o pipefail; (${inner}) | base64 -w0`)}`;
      const r = await sb.exec(cmd, { cwd: o.workdir, env: o.env, timeoutMs: o.timeoutMs });
      const stdout = Buffer.from(r.stdout, "base64");
      return { exitCode: r.timedOut ? -1 : r.exitCode, stdout, stderr: Buffer.from(r.stderr, "utf8"), timedOut: r.timedOut };
    },
    poll: async () => (terminated.has(sb.id) ? 0 : null),
    async terminate() {
      terminated.add(sb.id);
      await local.destroy(sb.id);
    },
  });
  return {
    terminated,
    created,
    execs,
    async create(o) {
      created.push({ timeoutMs: o.timeoutMs, ...(o.idleTimeoutMs ? { idleTimeoutMs: o.idleTimeoutMs } : {}) });
      return wrap(await local.create({ network: !o.blockNetwork, env: o.env, labels: o.tags }));
    },
    async fromId(id) {
      try {
        return wrap(await local.connect(id));
      } catch (err) {
        throw isSandboxError(err, "not_found") ? namedError("NotFoundError", `Sandbox ${id} not found`) : err;
      }
    },
    async list() {
      return (await local.list()).map((s) => ({ sandboxId: s.id, tags: s.labels }));
    },
  };
}
