import type { E2bClient, E2bHandle } from "../../../src/sandbox/providers/e2b.js";
import type { LocalSandboxProvider } from "../../../src/sandbox/providers/local.js";
import { isSandboxError, type Sandbox } from "../../../src/sandbox/types.js";
import { namedError } from "./named-error.js";

/**
 * An E2B stand-in with the SDK's contract (CommandExitError on non-zero exit, TimeoutError,
 * SandboxNotFoundError, FileNotFoundError), running commands for real in a local bubblewrap sandbox.
 */
export function fakeE2bClient(local: LocalSandboxProvider): E2bClient & { requests: string[] } {
  const requests: string[] = [];
  const wrap = (sb: Sandbox): E2bHandle => ({
    sandboxId: sb.id,
    async run(cmd, o) {
      requests.push(`run ${cmd.slice(0, 40)}`);
      const r = await sb.exec(cmd, { cwd: o.cwd, env: o.envs, timeoutMs: o.timeoutMs });
      if (r.timedOut) throw namedError("TimeoutError", "[deadline_exceeded] command timed out");
      if (r.exitCode !== 0) throw namedError("CommandExitError", `exit status ${r.exitCode}`, { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr });
      return { exitCode: 0, stdout: r.stdout, stderr: r.stderr };
    },
    async read(path) {
      const [d] = await sb.download([path]);
      if (!d?.content) throw namedError(d?.error === "file_not_found" ? "FileNotFoundError" : "SandboxError", `cannot read ${path}`);
      return d.content;
    },
    async write(path, data) {
      const [u] = await sb.upload([{ path, content: data }]);
      if (u?.error) throw namedError("SandboxError", u.error);
    },
    isRunning: () => sb.ping(),
    async setTimeout(ms) {
      requests.push(`setTimeout ${sb.id} ${ms}`);
      if (!(await sb.ping())) throw namedError("SandboxNotFoundError", "sandbox not found", { statusCode: 404 });
    },
  });
  const notFound = (err: unknown) => {
    throw isSandboxError(err, "not_found") ? namedError("SandboxNotFoundError", "sandbox not found", { statusCode: 404 }) : err;
  };
  return {
    requests,
    async create(o) {
      requests.push(`create ${o.template} net=${o.allowInternetAccess} timeout=${o.timeoutMs}`);
      return wrap(await local.create({ network: o.allowInternetAccess, env: o.envs, labels: o.metadata }));
    },
    async connect(id) {
      requests.push(`connect ${id}`);
      return wrap(await local.connect(id).catch(notFound));
    },
    async kill(id) {
      requests.push(`kill ${id}`);
      await local.destroy(id).catch(notFound);
    },
    async list() {
      return (await local.list()).map((s) => ({ sandboxId: s.id, startedAt: new Date(s.createdAt ?? 0), metadata: s.labels }));
    },
  };
}
