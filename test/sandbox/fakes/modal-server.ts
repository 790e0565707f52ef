import { randomBytes } from "node:crypto";
import { createServer, ServerError, Status, type CallContext } from "nice-grpc";
import type { LocalSandboxProvider } from "../../../src/sandbox/providers/local.js";
import { shellJoin } from "../../../src/shared/shell-quote.js";
import type { Sandbox } from "../../../src/sandbox/types.js";
import { shippedModalDefinitions } from "./modal-definitions.js";

const TOKEN_ID = "ak-test";
const TOKEN_SECRET = "as-test";
// GenericResult.status values in Modal's api.proto.
const SUCCESS = 1;
const TERMINATED = 3;

interface Exec {
  sb: Sandbox;
  argv: string[];
  workdir?: string;
  env: Record<string, string>;
  timeoutMs?: number;
  stdin: Buffer[];
  result?: Promise<{ code: number; stdout: Buffer; stderr: Buffer }>;
  abort: AbortController;
}

export interface ModalServer {
  /** For `MODAL_SERVER_URL`: plain HTTP/2 on loopback (the SDK uses no TLS for a localhost server). */
  serverUrl: string;
  tokenId: string;
  tokenSecret: string;
  /** Every RPC the SDK made, `Service/Method`. */
  calls: string[];
  /** RPCs of Modal's protocol the fake does not serve (answered UNIMPLEMENTED): a test expects none. */
  unserved: string[];
  close(): Promise<void>;
}

type SecretSource = { secretId?: string; env?: { contents: Record<string, string> } };

/** Env passed inline (`SecretSource.env`, how the SDK sends `env`); a stored secret this fake does not hold. */
function inlineEnv(sources: SecretSource[]): Record<string, string> {
  if (sources.some((s) => s.secretId)) throw new ServerError(Status.NOT_FOUND, "no stored secrets in the test's Modal");
  return Object.assign({}, ...sources.map((s) => s.env?.contents ?? {}));
}

function jwt(): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${part({ alg: "none", typ: "JWT" })}.${part({ exp: Math.floor(Date.now() / 1000) + 3600 })}.`;
}

/**
 * Modal on loopback, so the real `modal` SDK runs end to end over gRPC (HTTP/2, nice-grpc — the SDK's own
 * transport): the control plane (`modal.client.ModalClient`) and the task command router the SDK dials for
 * exec, both served from the service definitions the SDK bundles (`modal-definitions.ts`), so every
 * request and reply is encoded by Modal's generated protobuf code. Commands run in a local sandbox.
 */
export async function startModalServer(local: LocalSandboxProvider): Promise<ModalServer> {
  const defs = shippedModalDefinitions();
  const calls: string[] = [];
  const unserved: string[] = [];
  const apps = new Map<string, string>();
  const sandboxes = new Map<string, { appId: string; tags: Record<string, string>; createdAt: number; terminated: boolean }>();
  const execs = new Map<string, Exec>();
  const routerAccess = () => ({ jwt: jwt(), url: `https://127.0.0.1:${routerPort}` });

  const authed = (method: string, ctx: CallContext, router = false) => {
    calls.push(`${router ? "TaskCommandRouter" : "ModalClient"}/${method}`);
    if (router) {
      if (!ctx.metadata.get("authorization")?.toString().startsWith("Bearer ")) throw new ServerError(Status.UNAUTHENTICATED, "missing router JWT");
      return;
    }
    if (ctx.metadata.get("x-modal-token-id") !== TOKEN_ID || ctx.metadata.get("x-modal-token-secret") !== TOKEN_SECRET) throw new ServerError(Status.UNAUTHENTICATED, "bad token");
  };
  const live = async (sandboxId: string): Promise<Sandbox> => {
    const rec = sandboxes.get(sandboxId);
    if (!rec || rec.terminated) throw new ServerError(Status.NOT_FOUND, `Sandbox ${sandboxId} not found`);
    return local.connect(sandboxId);
  };
  const wait = (sandboxId: string) => {
    const rec = sandboxes.get(sandboxId);
    if (!rec) throw new ServerError(Status.NOT_FOUND, `Sandbox ${sandboxId} not found`);
    return rec.terminated ? { result: { status: TERMINATED } } : {};
  };
  const exec = (execId: string): Exec => {
    const x = execs.get(execId);
    if (!x) throw new ServerError(Status.NOT_FOUND, `exec ${execId} not found`);
    return x;
  };
  /**
   * Starts the command once (stdin is whole once the SDK sends EOF, or when output is first asked for).
   * The local sandbox returns output as text, so the bytes go through files in the workspace.
   */
  const run = (x: Exec): Promise<{ code: number; stdout: Buffer; stderr: Buffer }> =>
    (x.result ??= (async () => {
      const io = `${x.sb.workdir}/.modal-exec-${randomBytes(6).toString("hex")}`;
      const input = Buffer.concat(x.stdin);
      if (input.length > 0) {
        const [up] = await x.sb.upload([{ path: `${io}.in`, content: input }]);
        if (up?.error) throw new ServerError(Status.INTERNAL, `stdin: ${up.error}`);
      }
      const command = `${shellJoin(x.argv)} < ${input.length > 0 ? `${io}.in` : "/dev/null"} > ${io}.out 2> ${io}.err`;
      const r = await x.sb.exec(command, { ...(x.workdir ? { cwd: x.workdir } : {}), env: x.env, signal: x.abort.signal, ...(x.timeoutMs ? { timeoutMs: x.timeoutMs } : {}) });
      const [out, err] = await x.sb.download([`${io}.out`, `${io}.err`]);
      await x.sb.exec(`rm -f ${io}.in ${io}.out ${io}.err`, { cwd: "/" });
      return { code: r.exitCode, stdout: Buffer.from(out?.content ?? []), stderr: Buffer.from(err?.content ?? []) };
    })().catch((err: unknown) => {
      throw err instanceof ServerError ? err : new ServerError(Status.UNAVAILABLE, `exec ended: ${String(err)}`);
    }));

  const control = {
    async authTokenGet(_req: unknown, ctx: CallContext) {
      authed("AuthTokenGet", ctx);
      return { token: jwt() };
    },
    async environmentGetOrCreate(req: { deploymentName: string }, ctx: CallContext) {
      authed("EnvironmentGetOrCreate", ctx);
      // The server always names an image builder version for the environment.
      return { environmentId: "en-test", metadata: { name: req.deploymentName || "main", settings: { imageBuilderVersion: "2025.06", webhookSuffix: "" } } };
    },
    async appGetOrCreate(req: { appName: string }, ctx: CallContext) {
      authed("AppGetOrCreate", ctx);
      if (!apps.has(req.appName)) apps.set(req.appName, `ap-${randomBytes(8).toString("hex")}`);
      return { appId: apps.get(req.appName) };
    },
    async imageGetOrCreate(req: { image?: { dockerfileCommands: string[] } }, ctx: CallContext) {
      authed("ImageGetOrCreate", ctx);
      if (!req.image?.dockerfileCommands[0]?.startsWith("FROM ")) throw new ServerError(Status.INVALID_ARGUMENT, "image needs a FROM");
      return { imageId: `im-${randomBytes(8).toString("hex")}`, result: { status: SUCCESS } };
    },
    // modal 0.11 creates V2 sandboxes unless a GPU is asked for (`MODAL_SANDBOX_V2`, default on).
    async sandboxCreateV2(
      req: {
        appId: string;
        tags: Array<{ tagName: string; tagValue: string }>;
        secretSources: SecretSource[];
        definition?: { imageId: string; networkAccess?: { networkAccessType: number }; workdir?: string };
      },
      ctx: CallContext,
    ) {
      authed("SandboxCreateV2", ctx);
      const d = req.definition;
      if (!d?.imageId || ![...apps.values()].includes(req.appId)) throw new ServerError(Status.INVALID_ARGUMENT, "unknown app or image");
      // NetworkAccess.networkAccessType 2 = BLOCKED (`blockNetwork`).
      const sb = await local.create({ network: d.networkAccess?.networkAccessType !== 2, env: inlineEnv(req.secretSources) });
      if (d.workdir) await sb.exec(`mkdir -p ${d.workdir}`, { cwd: "/" });
      sandboxes.set(sb.id, { appId: req.appId, tags: Object.fromEntries(req.tags.map((t) => [t.tagName, t.tagValue])), createdAt: Date.now() / 1000, terminated: false });
      return { sandboxId: sb.id, taskId: `ta-${sb.id}`, commandRouterAccess: routerAccess(), tunnels: [] };
    },
    async sandboxGetTaskIdV2(req: { sandboxId: string }, ctx: CallContext) {
      authed("SandboxGetTaskIdV2", ctx);
      const rec = sandboxes.get(req.sandboxId);
      if (!rec) throw new ServerError(Status.NOT_FOUND, `Sandbox ${req.sandboxId} not found`);
      return rec.terminated ? { taskResult: { status: TERMINATED } } : { taskId: `ta-${req.sandboxId}` };
    },
    async sandboxGetCommandRouterAccess(req: { sandboxId: string }, ctx: CallContext) {
      authed("SandboxGetCommandRouterAccess", ctx);
      if (!sandboxes.has(req.sandboxId)) throw new ServerError(Status.NOT_FOUND, `Sandbox ${req.sandboxId} not found`);
      return routerAccess();
    },
    async sandboxWaitV2(req: { sandboxId: string }, ctx: CallContext) {
      authed("SandboxWaitV2", ctx);
      return wait(req.sandboxId);
    },
    // An id of the V1 shape (`sb-` + 22 characters) is polled through the V1 call.
    async sandboxWait(req: { sandboxId: string }, ctx: CallContext) {
      authed("SandboxWait", ctx);
      return wait(req.sandboxId);
    },
    async sandboxTerminateV2(req: { sandboxId: string }, ctx: CallContext) {
      authed("SandboxTerminateV2", ctx);
      const rec = sandboxes.get(req.sandboxId);
      if (!rec) throw new ServerError(Status.NOT_FOUND, `Sandbox ${req.sandboxId} not found`);
      if (!rec.terminated) {
        rec.terminated = true;
        for (const x of execs.values()) if (x.sb.id === req.sandboxId) x.abort.abort();
        await local.destroy(req.sandboxId);
      }
      return {};
    },
    async sandboxTagsSetV2(req: { sandboxId: string; tags: Array<{ tagName: string; tagValue: string }> }, ctx: CallContext) {
      authed("SandboxTagsSetV2", ctx);
      const rec = sandboxes.get(req.sandboxId);
      if (!rec) throw new ServerError(Status.NOT_FOUND, `Sandbox ${req.sandboxId} not found`);
      rec.tags = Object.fromEntries(req.tags.map((t) => [t.tagName, t.tagValue]));
      return {};
    },
    async sandboxTagsGetV2(req: { sandboxId: string }, ctx: CallContext) {
      authed("SandboxTagsGetV2", ctx);
      const rec = sandboxes.get(req.sandboxId);
      if (!rec) throw new ServerError(Status.NOT_FOUND, `Sandbox ${req.sandboxId} not found`);
      return { tags: Object.entries(rec.tags).map(([tagName, tagValue]) => ({ tagName, tagValue })) };
    },
    async sandboxListV2(req: { appId: string; beforeTimestamp: number; includeFinished: boolean }, ctx: CallContext) {
      authed("SandboxListV2", ctx);
      const rows = [...sandboxes.entries()]
        .filter(([, r]) => r.appId === req.appId && (req.includeFinished || !r.terminated) && (!req.beforeTimestamp || r.createdAt < req.beforeTimestamp))
        .sort((a, b) => b[1].createdAt - a[1].createdAt);
      return { sandboxes: rows.map(([id, r]) => ({ id, createdAt: r.createdAt, appId: r.appId })) };
    },
  };

  const router = {
    async taskExecStart(
      req: { taskId: string; execId: string; commandArgs: string[]; workdir?: string; env: Record<string, string>; secretSources: SecretSource[]; timeoutSecs?: number },
      ctx: CallContext,
    ) {
      authed("TaskExecStart", ctx, true);
      const sb = await live(req.taskId.replace(/^ta-/, ""));
      execs.set(req.execId, {
        sb,
        argv: req.commandArgs,
        ...(req.workdir ? { workdir: req.workdir } : {}),
        env: { ...req.env, ...inlineEnv(req.secretSources) },
        ...(req.timeoutSecs ? { timeoutMs: req.timeoutSecs * 1000 } : {}),
        stdin: [],
        abort: new AbortController(),
      });
      return {};
    },
    async taskExecStdinWrite(req: { execId: string; offset: number; data: Uint8Array; eof: boolean }, ctx: CallContext) {
      authed("TaskExecStdinWrite", ctx, true);
      const x = exec(req.execId);
      const have = x.stdin.reduce((n, b) => n + b.length, 0);
      if (req.offset !== have) throw new ServerError(Status.FAILED_PRECONDITION, `stdin offset ${req.offset}, expected ${have}`);
      x.stdin.push(Buffer.from(req.data));
      if (req.eof) void run(x).catch(() => undefined);
      return {};
    },
    async *taskExecStdioRead(req: { execId: string; offset: number; fileDescriptor: number }, ctx: CallContext) {
      authed("TaskExecStdioRead", ctx, true);
      const x = exec(req.execId);
      const r = await run(x);
      // TASK_EXEC_STDIO_FILE_DESCRIPTOR_STDOUT = 0, _STDERR = 1.
      const data = (req.fileDescriptor === 0 ? r.stdout : r.stderr).subarray(req.offset);
      if (data.length > 0) yield { data };
    },
    async taskExecWait(req: { execId: string }, ctx: CallContext) {
      authed("TaskExecWait", ctx, true);
      return { code: (await run(exec(req.execId))).code };
    },
  };

  const unimplemented = (service: string, methods: Record<string, unknown>, served: object) =>
    Object.fromEntries(
      Object.keys(methods)
        .filter((m) => !(m in served))
        .map((m) => [
          m,
          () => {
            unserved.push(`${service}/${m}`);
            throw new ServerError(Status.UNIMPLEMENTED, `${service}/${m} is not served by the test's Modal`);
          },
        ]),
    );
  const cp = createServer();
  cp.add(defs.ModalClient, { ...unimplemented("ModalClient", defs.ModalClient.methods, control), ...control } as never);
  const rt = createServer();
  rt.add(defs.TaskCommandRouter, { ...unimplemented("TaskCommandRouter", defs.TaskCommandRouter.methods, router), ...router } as never);
  const cpPort = await cp.listen("127.0.0.1:0");
  const routerPort = await rt.listen("127.0.0.1:0");
  return {
    serverUrl: `http://127.0.0.1:${cpPort}`,
    tokenId: TOKEN_ID,
    tokenSecret: TOKEN_SECRET,
    calls,
    unserved,
    async close() {
      for (const x of execs.values()) x.abort.abort();
      cp.forceShutdown();
      rt.forceShutdown();
    },
  };
}
