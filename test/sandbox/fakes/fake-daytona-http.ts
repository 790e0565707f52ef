import type { Sandbox as SandboxDto } from "@daytona/api-client";
import type { ExecuteResponse } from "@daytona/toolbox-api-client";
import nock from "nock";
import type { LocalSandboxProvider } from "../../../src/sandbox/providers/local.js";
import { isSandboxError } from "../../../src/sandbox/types.js";
import { daytonaOperation, daytonaRoutes } from "./daytona-routes.js";

export const DAYTONA_API = "https://daytona.test/api";
const PROXY = "https://proxy.daytona.test/toolbox";

/** Minimal multipart/form-data reader for the SDK's bulk-upload body. */
function parseMultipart(body: Buffer, boundary: string): Array<{ name: string; data: Buffer }> {
  const delim = Buffer.from(`--${boundary}`);
  const parts: Array<{ name: string; data: Buffer }> = [];
  let pos = body.indexOf(delim);
  while (pos !== -1) {
    const start = pos + delim.length + 2;
    const next = body.indexOf(delim, start);
    if (next === -1) break;
    const chunk = body.subarray(start, next - 2);
    const headerEnd = chunk.indexOf("\r\n\r\n");
    const headers = chunk.subarray(0, headerEnd).toString("utf8");
    const name = /name="([^"]+)"/.exec(headers)?.[1] ?? "";
    parts.push({ name, data: chunk.subarray(headerEnd + 4) });
    pos = next;
  }
  return parts;
}

function multipart(parts: Array<{ field: string; filename: string; type: string; data: Buffer }>, boundary: string): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.field}"; filename="${p.filename}"\r\nContent-Type: ${p.type}\r\nContent-Length: ${p.data.length}\r\n\r\n`));
    chunks.push(p.data, Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** nock serialises a non-UTF-8 request body as hex. */
function rawBody(body: unknown): Buffer {
  if (typeof body !== "string") return Buffer.from(JSON.stringify(body));
  return /^[0-9a-f]+$/i.test(body) && body.length % 2 === 0 ? Buffer.from(body, "hex") : Buffer.from(body, "utf8");
}

/**
 * Daytona's REST + toolbox API, mocked with nock and answered by a local bubblewrap sandbox, so the
 * real `@daytonaio/sdk` (axios) runs end to end. Interceptors are optional: not every test uses each route.
 */
export function mockDaytonaHttp(local: LocalSandboxProvider): { requests: string[]; operations: string[]; offContract: string[]; stop(id: string): void } {
  const requests: string[] = [];
  const operations: string[] = [];
  const offContract: string[] = [];
  /** Sandboxes Daytona has auto-stopped (the test says when). */
  const stopped = new Set<string>();
  const dto = (id: string, labels: Record<string, string>) =>
    ({
      id,
      name: id,
      state: stopped.has(id) ? "stopped" : "started",
      labels,
      toolboxProxyUrl: PROXY,
      createdAt: new Date().toISOString(),
      env: {},
      public: false,
      networkBlockAll: false,
      target: "us",
      cpu: 1,
      gpu: 0,
      memory: 1,
      disk: 3,
      user: "daytona",
      organizationId: "org",
    }) satisfies SandboxDto;
  const notFound = (what: string) => [404, { message: `${what} not found`, statusCode: 404 }] as const;
  const idOf = (uri: string) => decodeURIComponent(/\/sandbox\/([^/?]+)/.exec(uri)?.[1] ?? /\/toolbox\/([^/]+)\//.exec(uri)?.[1] ?? "");

  const api = nock(DAYTONA_API).persist();
  // Each request the SDK makes must be an operation of Daytona's description (as the SDK's generated clients carry it).
  const apiRoutes = daytonaRoutes("@daytona/api-client");
  const toolboxRoutes = daytonaRoutes("@daytona/toolbox-api-client");
  const check = (routes: typeof apiRoutes, prefix: RegExp) => (req: { method: string; path: string }) => {
    const path = req.path.replace(prefix, "");
    // The event stream is socket.io, which the OpenAPI description does not cover.
    if (/^\/socket\.io\//.test(path)) return;
    const op = daytonaOperation(routes, req.method, path);
    if (op) operations.push(`${op.method} ${op.template}`);
    else offContract.push(`${req.method} ${path}`);
  };
  api.on("request", check(apiRoutes, /^\/api/));
  api
    .post("/sandbox")
    .optionally()
    .reply(async (_uri, body) => {
      const b = body as { env?: Record<string, string>; labels?: Record<string, string>; networkBlockAll?: boolean; autoStopInterval?: number };
      requests.push(`POST /sandbox net=${!b.networkBlockAll} autoStop=${b.autoStopInterval}`);
      const sb = await local.create({ network: !b.networkBlockAll, env: b.env ?? {}, labels: b.labels ?? {} });
      return [200, dto(sb.id, b.labels ?? {})];
    });
  api
    .get(/\/sandbox\/[^/?]+$/)
    .optionally()
    .reply(async (uri) => {
      const id = idOf(uri);
      requests.push(`GET /sandbox/${id}`);
      try {
        await local.connect(id);
        const info = (await local.list()).find((s) => s.id === id);
        return [200, dto(id, info?.labels ?? {})];
      } catch (err) {
        if (isSandboxError(err, "not_found")) return notFound("Sandbox");
        throw err;
      }
    });
  api
    .post(/\/sandbox\/[^/?]+\/start$/)
    .optionally()
    .reply(async (uri) => {
      const id = idOf(uri);
      requests.push(`start ${id}`);
      stopped.delete(id);
      const info = (await local.list()).find((s) => s.id === id);
      return info ? [200, dto(id, info.labels)] : notFound("Sandbox");
    });
  api
    .post(/\/sandbox\/[^/?]+\/last-activity$/)
    .optionally()
    .reply((uri) => {
      requests.push(`last-activity ${idOf(uri)}`);
      return [200, {}];
    });
  api
    .delete(/\/sandbox\/[^/?]+/)
    .optionally()
    .reply(async (uri) => {
      requests.push(`DELETE /sandbox/${idOf(uri)}`);
      await local.destroy(idOf(uri));
      return [200, {}];
    });
  api
    .get(/\/sandbox(\/paginated)?(\?.*)?$/)
    .optionally()
    .reply(async () => {
      const items = (await local.list()).map((s) => dto(s.id, s.labels));
      return [200, { items, total: items.length, page: 1, totalPages: 1 }];
    });
  // The SDK opens a socket.io event stream; without it, it falls back to polling.
  api
    .get(/socket\.io/)
    .optionally()
    .reply(404);

  const toolbox = nock(PROXY).persist();
  toolbox.on("request", check(toolboxRoutes, /^\/toolbox\/[^/]+/));
  toolbox
    .post(/\/process\/execute$/)
    .optionally()
    .reply(async (uri, body) => {
      const b = body as { command: string; cwd?: string; envs?: Record<string, string>; timeout?: number };
      requests.push(`execute ${b.command.slice(0, 40)}`);
      if (stopped.has(idOf(uri))) return [400, { message: "Sandbox is not running", statusCode: 400 }];
      const sb = await local.connect(idOf(uri));
      const r = await sb.exec(b.command, { ...(b.cwd ? { cwd: b.cwd } : {}), env: b.envs ?? {}, ...(b.timeout ? { timeoutMs: b.timeout * 1000 } : {}) });
      return [200, { exitCode: r.exitCode, result: r.stdout + r.stderr } satisfies ExecuteResponse];
    });
  toolbox
    .post(/\/files\/bulk-download$/)
    .optionally()
    .reply(async (uri, body) => {
      const sb = await local.connect(idOf(uri));
      const paths = (body as { paths: string[] }).paths;
      const res = await sb.download(paths);
      const boundary = "fakeDaytonaBoundary";
      const parts = res.map((r) =>
        r.content
          ? { field: "file", filename: r.path, type: "application/octet-stream", data: Buffer.from(r.content) }
          : { field: "error", filename: r.path, type: "application/json", data: Buffer.from(JSON.stringify({ message: `file not found: ${r.path}`, statusCode: 404, code: "FILE_NOT_FOUND" })) },
      );
      return [200, multipart(parts, boundary), { "Content-Type": `multipart/form-data; boundary=${boundary}` }];
    });
  toolbox
    .post(/\/files\/bulk-upload$/)
    .optionally()
    .reply(async function (this: nock.ReplyFnContext, uri, body) {
      const sb = await local.connect(idOf(uri));
      const type = String(this.req.headers["content-type"] ?? "");
      const boundary = /boundary=([^;]+)/.exec(type)?.[1] ?? "";
      const parts = parseMultipart(rawBody(body), boundary);
      const files: Array<{ path: string; content: Uint8Array }> = [];
      for (let i = 0; ; i++) {
        const path = parts.find((p) => p.name === `files[${i}].path`)?.data.toString("utf8");
        const file = parts.find((p) => p.name === `files[${i}].file`)?.data;
        if (path === undefined || file === undefined) break;
        files.push({ path, content: file });
      }
      const res = await sb.upload(files);
      return res.some((r) => r.error) ? [400, { message: "upload failed", statusCode: 400 }] : [200, {}];
    });
  return { requests, operations, offContract, stop: (id) => void stopped.add(id) };
}
