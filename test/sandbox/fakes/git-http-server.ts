import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";

/**
 * A real smart-HTTP git server (git http-backend over CGI) on 127.0.0.1 that demands the
 * installation-token header GitHub accepts, and records every Authorization it saw.
 */
export async function startGitHttpServer(projectRoot: string, token: string): Promise<{ url: string; server: Server; authorized: number; refused: number }> {
  const expected = `Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
  const state = { url: "", server: undefined as unknown as Server, authorized: 0, refused: 0 };
  const server = createServer((req, res) => {
    if (req.headers.authorization !== expected) {
      state.refused += 1;
      res.writeHead(401, { "WWW-Authenticate": 'Basic realm="git"' }).end("unauthorized\n");
      return;
    }
    state.authorized += 1;
    const url = new URL(req.url ?? "/", "http://localhost");
    const cgi = spawn("git", ["http-backend"], {
      env: {
        PATH: "/usr/bin:/bin",
        GIT_PROJECT_ROOT: projectRoot,
        GIT_HTTP_EXPORT_ALL: "1",
        GIT_CONFIG_NOSYSTEM: "1",
        REMOTE_USER: "x-access-token",
        REQUEST_METHOD: req.method ?? "GET",
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers["content-type"] ?? "",
        ...(req.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: req.headers["content-encoding"] } : {}),
      },
    });
    req.pipe(cgi.stdin);
    const chunks: Buffer[] = [];
    cgi.stdout.on("data", (c: Buffer) => chunks.push(c));
    cgi.on("close", () => {
      const out = Buffer.concat(chunks);
      const crlf = out.indexOf("\r\n\r\n");
      const split = crlf !== -1 ? crlf : out.indexOf("\n\n");
      const bodyStart = split + (crlf !== -1 ? 4 : 2);
      const head = out.subarray(0, split).toString("utf8");
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head.split(/\r?\n/)) {
        const i = line.indexOf(":");
        const k = line.slice(0, i).trim();
        const v = line.slice(i + 1).trim();
        if (k.toLowerCase() === "status") status = Number(v.split(" ")[0]);
        else if (k) headers[k] = v;
      }
      res.writeHead(status, headers).end(out.subarray(bodyStart));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  state.server = server;
  state.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return state;
}
