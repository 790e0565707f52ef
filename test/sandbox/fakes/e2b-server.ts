import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import type { DescMethodServerStreaming } from "@bufbuild/protobuf";
import { Code, ConnectError, createConnectRouter, type HandlerContext } from "@connectrpc/connect";
import { createFetchHandler } from "@connectrpc/connect/protocol";
import type { components, paths } from "e2b";
import type { LocalSandboxProvider } from "../../../src/sandbox/providers/local.js";
import { shellJoin } from "../../../src/shared/shell-quote.js";
import { isSandboxError, type Sandbox } from "../../../src/sandbox/types.js";
import { shippedEnvdProcessService } from "./e2b-envd-process.js";

type Method = "get" | "post" | "delete";
type Op<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type JsonOf<R> = R extends { content: { "application/json": infer B } } ? B : undefined;
/** One status the operation documents, with the body E2B's OpenAPI gives it (checked by the compiler). */
type Reply<P extends keyof paths, M extends Method> = {
  [S in keyof Op<P, M>["responses"] & number]: { status: S; body: JsonOf<Op<P, M>["responses"][S]> };
}[keyof Op<P, M>["responses"] & number];
type Body<P extends keyof paths, M extends Method> = Op<P, M> extends { requestBody?: { content: { "application/json": infer B } } } ? B : undefined;

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  run(params: string[], body: unknown, query: URLSearchParams): Promise<{ status: number; body: unknown }>;
}

function route<P extends keyof paths, M extends Method>(method: M, template: P, run: (params: string[], body: Body<P, M>, query: URLSearchParams) => Promise<Reply<P, M>>): Route {
  const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, "([^/]+)")}$`);
  return { method: method.toUpperCase(), template, pattern, run: (p, b, q) => run(p, b as Body<P, M>, q) };
}

const ENVD_VERSION = "0.5.7";
const API_KEY = "e2b_test";

export interface E2bServer {
  apiUrl: string;
  sandboxUrl: string;
  apiKey: string;
  /** Every exchange, `METHOD template status` (envd: `envd <path> <status>`). */
  exchanges: string[];
  /** Requests no operation of E2B's description (or envd's) answers: a test expects none. */
  offContract: string[];
  close(): Promise<void>;
}

/**
 * E2B on loopback, so the real `e2b` SDK runs end to end: the control-plane routes the SDK calls
 * (typed by the OpenAPI types the SDK ships, `paths`/`components`), and envd — `process.Process/Start`
 * over Connect (the SDK's JSON, HTTP/1.1) served by Connect's own server code from the SDK's embedded
 * descriptor, and the `/files` and `/health` REST routes. Commands run in a local bubblewrap sandbox.
 */
export async function startE2bServer(local: LocalSandboxProvider): Promise<E2bServer> {
  const exchanges: string[] = [];
  const offContract: string[] = [];
  const tokens = new Map<string, string>();
  const started = new Map<string, Date>();
  const reply = <S extends number, B>(status: S, body: B) => ({ status, body });
  const error = <S extends number>(status: S, message: string) => reply(status, { code: status, message });
  const sandboxBody = (id: string) =>
    ({ sandboxID: id, templateID: "base", clientID: "local", envdVersion: ENVD_VERSION, envdAccessToken: tokens.get(id)!, domain: null }) satisfies components["schemas"]["Sandbox"];
  const known = async (id: string): Promise<Sandbox | undefined> => {
    if (!tokens.has(id)) return undefined;
    return local.connect(id).catch((err: unknown) => {
      if (isSandboxError(err, "not_found")) return undefined;
      throw err;
    });
  };

  const routes: Route[] = [
    route("post", "/v2/sandboxes", async (_p, body) => {
      if (!body) return error(400, "body required");
      const sb = await local.create({ network: body.allow_internet_access ?? true, env: body.envVars ?? {}, labels: body.metadata ?? {} });
      tokens.set(sb.id, randomBytes(8).toString("hex"));
      started.set(sb.id, new Date());
      return reply(201, sandboxBody(sb.id));
    }),
    route("post", "/v2/sandboxes/{sandboxID}/connect", async ([id]) => ((await known(id!)) ? reply(200, sandboxBody(id!)) : error(404, `sandbox ${id} not found`))),
    route("post", "/sandboxes/{sandboxID}/timeout", async ([id]) => ((await known(id!)) ? reply(204, undefined) : error(404, `sandbox ${id} not found`))),
    route("delete", "/sandboxes/{sandboxID}", async ([id]) => {
      if (!(await known(id!))) return error(404, `sandbox ${id} not found`);
      await local.destroy(id!);
      tokens.delete(id!);
      return reply(204, undefined);
    }),
    route("get", "/v2/sandboxes", async (_p, _b, query) => {
      const wanted = new URLSearchParams(query.get("metadata") ?? "");
      const all = (await local.list()).filter((s) => tokens.has(s.id) && [...wanted].every(([k, v]) => s.labels[k] === v));
      const items = all.map(
        (s) =>
          ({
            sandboxID: s.id,
            templateID: "base",
            clientID: "local",
            cpuCount: 2,
            memoryMB: 512,
            diskSizeMB: 1024,
            envdVersion: ENVD_VERSION,
            state: "running",
            startedAt: (started.get(s.id) ?? new Date()).toISOString(),
            endAt: new Date(Date.now() + 3_600_000).toISOString(),
            metadata: s.labels,
          }) satisfies components["schemas"]["ListedSandbox"],
      );
      return reply(200, items);
    }),
  ];

  const api = createServer((req, res) => {
    void serveApi(req, res).catch((err: unknown) => sendJson(res, 500, { code: 500, message: String(err) }));
  });
  async function serveApi(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://e2b.local");
    const hit = routes.map((r) => ({ r, m: req.method === r.method ? r.pattern.exec(url.pathname) : null })).find((x) => x.m);
    if (!hit) {
      offContract.push(`${req.method} ${url.pathname}`);
      return sendJson(res, 404, { code: 404, message: "no such route in E2B's API" });
    }
    if (req.headers["x-api-key"] !== API_KEY) return sendJson(res, 401, { code: 401, message: "Invalid API key" });
    const raw = await readAll(req);
    const out = await hit.r.run(hit.m!.slice(1).map(decodeURIComponent), raw.length ? JSON.parse(raw.toString("utf8")) : undefined, url.searchParams);
    exchanges.push(`${req.method} ${hit.r.template} ${out.status}`);
    sendJson(res, out.status, out.body);
  }

  const process = shippedEnvdProcessService();
  const start = process.methods.find((m) => m.localName === "start") as DescMethodServerStreaming;
  const router = createConnectRouter({ grpc: false, grpcWeb: false, jsonOptions: { ignoreUnknownFields: false } }).rpc(start, async function* (req, ctx) {
    const sb = await envdSandbox(ctx);
    const p = (req as unknown as { process?: { cmd: string; args: string[]; envs: Record<string, string>; cwd?: string } }).process;
    if (!p) throw new ConnectError("process is required", Code.InvalidArgument);
    yield { event: { event: { case: "start", value: { pid: 1 } } } };
    const r = await sb.exec(shellJoin([p.cmd, ...p.args]), { env: p.envs, ...(p.cwd ? { cwd: p.cwd } : {}), signal: ctx.signal, timeoutMs: ctx.timeoutMs() ?? 60_000 });
    if (r.stdout) yield { event: { event: { case: "data", value: { output: { case: "stdout", value: Buffer.from(r.stdout) } } } } };
    if (r.stderr) yield { event: { event: { case: "data", value: { output: { case: "stderr", value: Buffer.from(r.stderr) } } } } };
    yield { event: { event: { case: "end", value: { exitCode: r.exitCode, exited: true, status: `exit status ${r.exitCode}` } } } };
  });
  const rpc = new Map(router.handlers.map((h) => [h.requestPath, createFetchHandler(h)]));
  async function envdSandbox(ctx: Pick<HandlerContext, "requestHeader">): Promise<Sandbox> {
    const id = ctx.requestHeader.get("e2b-sandbox-id") ?? "";
    const sb = await known(id);
    if (!sb) throw new ConnectError(`sandbox ${id} not found`, Code.Unavailable);
    if (ctx.requestHeader.get("x-access-token") !== tokens.get(id)) throw new ConnectError("bad access token", Code.Unauthenticated);
    return sb;
  }

  const envd = createServer((req, res) => {
    void serveEnvd(req, res).catch((err: unknown) => sendJson(res, 500, { code: 500, message: String(err) }));
  });
  async function serveEnvd(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://envd.local");
    const handler = rpc.get(url.pathname);
    if (handler) {
      const ac = new AbortController();
      res.on("close", () => ac.abort());
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
      const response = await handler(
        new Request(`http://envd.local${req.url}`, { method: req.method ?? "POST", headers, body: Readable.toWeb(req) as ReadableStream, duplex: "half", signal: ac.signal } as RequestInit),
      );
      exchanges.push(`envd ${url.pathname} ${response.status}`);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) for await (const chunk of response.body) res.write(chunk);
      res.end();
      return;
    }
    const id = String(req.headers["e2b-sandbox-id"] ?? "");
    const sb = await known(id);
    // E2B's edge answers 502 for a sandbox that is gone; the SDK reads that as "not running".
    if (!sb) return sendJson(res, 502, { code: 502, message: "sandbox not found" });
    if (req.headers["x-access-token"] !== tokens.get(id)) return sendJson(res, 401, { code: 401, message: "bad access token" });
    const path = url.searchParams.get("path") ?? "";
    if (req.method === "GET" && url.pathname === "/health") {
      exchanges.push("envd /health 204");
      res.writeHead(204).end();
      return;
    }
    if (req.method === "GET" && url.pathname === "/files") {
      const [d] = await sb.download([path]);
      exchanges.push(`envd GET /files ${d?.content ? 200 : d?.error === "file_not_found" ? 404 : 400}`);
      if (d?.content) {
        res.writeHead(200, { "Content-Type": "application/octet-stream", "Content-Length": String(d.content.length) }).end(Buffer.from(d.content));
        return;
      }
      return d?.error === "file_not_found" ? sendJson(res, 404, { code: 404, message: `file not found: ${path}` }) : sendJson(res, 400, { code: 400, message: `cannot read ${path}: ${d?.error}` });
    }
    if (req.method === "POST" && url.pathname === "/files") {
      const form = await new Request("http://envd.local/files", { method: "POST", headers: { "content-type": String(req.headers["content-type"] ?? "") }, body: await readAll(req) }).formData();
      const file = form.get("file");
      if (!(file instanceof File)) return sendJson(res, 400, { code: 400, message: "multipart field `file` required" });
      const target = path || file.name;
      const [u] = await sb.upload([{ path: target, content: new Uint8Array(await file.arrayBuffer()) }]);
      exchanges.push(`envd POST /files ${u?.error ? 403 : 200}`);
      if (u?.error) return sendJson(res, 403, { code: 403, message: `cannot write ${target}: ${u.error}` });
      return sendJson(res, 200, [{ name: target.split("/").pop() ?? target, path: target, type: "file" }]);
    }
    offContract.push(`envd ${req.method} ${url.pathname}`);
    sendJson(res, 404, { code: 404, message: "no such envd route" });
  }

  api.listen(0, "127.0.0.1");
  envd.listen(0, "127.0.0.1");
  await Promise.all([once(api, "listening"), once(envd, "listening")]);
  const port = (s: Server) => (s.address() as AddressInfo).port;
  return {
    apiUrl: `http://127.0.0.1:${port(api)}`,
    sandboxUrl: `http://127.0.0.1:${port(envd)}`,
    apiKey: API_KEY,
    exchanges,
    offContract,
    async close() {
      for (const s of [api, envd]) {
        s.closeAllConnections();
        await new Promise((r) => s.close(r));
      }
    },
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
