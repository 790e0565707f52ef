import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { connectMcpServers } from "../../src/mcp/connect-mcp-servers.js";
import { MCP_MAX_MESSAGE_BYTES } from "../../src/mcp/mcp-answer-limits.js";
import { McpServers, runMcpServers } from "../../src/config/mcp-config.js";
import type { Sandbox } from "../../src/sandbox/types.js";
import { useLocalSandbox } from "../helpers/local-sandbox.js";
import { startMcpHttpServer } from "../helpers/mcp-http-server.js";

const MB = 1024 * 1024;

/**
 * An MCP server answers `initialize` with whatever it likes. A huge answer (or a deeply nested one)
 * parsed on the worker's event loop stalls every run on the worker for a minute and more, and a
 * larger one kills the process: each message is capped in bytes while it streams and checked for
 * nesting before it is parsed, and the refusal names the server.
 */

interface Flood {
  url: string;
  /** Bytes the server managed to hand to its socket. */
  readonly sent: number;
  close(): Promise<void>;
}

/** A server that answers every POST with `head`, then up to `total` bytes of `fill`, as fast as the client reads. */
async function startFlood(contentType: string, head: string, fill: string, total: number): Promise<Flood> {
  let sent = 0;
  const server: Server = createServer((req, res) => {
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    req.resume();
    res.writeHead(200, { "content-type": contentType });
    const chunk = Buffer.from(fill.repeat(Math.ceil((64 * 1024) / fill.length)));
    let closed = false;
    res.on("close", () => (closed = true));
    res.write(head);
    const pump = (): void => {
      while (!closed && sent < total) {
        sent += chunk.length;
        if (!res.write(chunk)) {
          res.once("drain", pump);
          return;
        }
      }
      if (!closed) res.end();
    };
    pump();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    get sent() {
      return sent;
    },
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

/** Counts a 1 ms timer's firings: the event loop is free when it keeps counting. */
function ticker(): { readonly ticks: number; nextTick(): Promise<void>; stop(): void } {
  let ticks = 0;
  const waiters: Array<() => void> = [];
  const timer = setInterval(() => {
    ticks++;
    for (const w of waiters.splice(0)) w();
  }, 1);
  return {
    get ticks() {
      return ticks;
    },
    nextTick: () => new Promise<void>((r) => waiters.push(r)),
    stop: () => clearInterval(timer),
  };
}

const noSandbox: Sandbox = {
  id: "none",
  provider: "e2b",
  workdir: "/workspace",
  exec: () => Promise.reject(new Error("no sandbox")),
  upload: () => Promise.reject(new Error("no sandbox")),
  download: () => Promise.reject(new Error("no sandbox")),
  ping: () => Promise.resolve(false),
  close: async () => {},
};

const options = (sandbox: Sandbox, warnings: Array<Record<string, unknown>>) => ({
  sandbox,
  secrets: {},
  runTimeoutMs: 120_000,
  signal: new AbortController().signal,
  connectTimeoutMs: 120_000,
  log: { warn: (o: object) => void warnings.push(o as Record<string, unknown>) },
});

describe("security: an MCP server's answers are capped and bounded before they are parsed", () => {
  let flood: Flood | undefined;
  afterEach(async () => {
    await flood?.close();
    flood = undefined;
  });

  const cases: Array<[string, string, string, string, number, RegExp]> = [
    ["a 400 MB JSON answer", "application/json", '{"jsonrpc":"2.0","id":0,"result":{"x":"', "a", 400 * MB, /over 8 MB/],
    ["a 400 MB nested JSON answer", "application/json", '{"jsonrpc":"2.0","id":0,"result":', "[", 400 * MB, /over 8 MB/],
    ["a 400 MB server-sent event", "text/event-stream", 'event: message\ndata: {"jsonrpc":"2.0","id":0,"result":{"x":"', "b", 400 * MB, /over 8 MB/],
    ["a small answer nested 50,000 deep", "application/json", '{"jsonrpc":"2.0","id":0,"result":', "[", 50_000, /nested deeper than 64/],
  ];

  it.each(cases)("%s: refused, named, logged; the server is cut off and the event loop keeps turning", async (_what, type, head, fill, total, reason) => {
    flood = await startFlood(type, head, fill, total);
    const warnings: Array<Record<string, unknown>> = [];
    const tick = ticker();
    try {
      const connecting = connectMcpServers(runMcpServers(McpServers.parse({ flood: { url: flood.url } }), {}), options(noSandbox, warnings));
      // While the answer streams in, the timer keeps firing.
      const before = tick.ticks;
      await tick.nextTick();
      await tick.nextTick();
      const mcp = await connecting;
      expect(tick.ticks).toBeGreaterThan(before + 1);
      expect(mcp.connected).toEqual([]);
      expect(mcp.failures).toEqual([{ name: "flood", reason: expect.stringMatching(reason) }]);
      expect(mcp.failures[0]!.reason).toContain("`flood`");
      expect(warnings).toContainEqual(expect.objectContaining({ server: "flood" }));
      // The client stopped reading at the cap: the server could not push the rest into the socket.
      expect(flood.sent).toBeLessThan(MCP_MAX_MESSAGE_BYTES + 32 * MB);
      // And the loop is free afterwards.
      const after = tick.ticks;
      await tick.nextTick();
      expect(tick.ticks).toBeGreaterThan(after);
    } finally {
      tick.stop();
    }
  });

  it("answers within the caps pass whole: a server answering in SSE events connects and its tool works", async () => {
    const server = await startMcpHttpServer("tok", { sse: true });
    try {
      const team = McpServers.parse({ docs: { url: server.url, headers: { Authorization: "Bearer ${DOCS_TOKEN}" } } });
      const mcp = await connectMcpServers(runMcpServers(team, {}), { ...options(noSandbox, []), secrets: { DOCS_TOKEN: "tok" } });
      try {
        expect(mcp.failures).toEqual([]);
        expect(String(await mcp.tools[0]!.invoke({ query: "caps" }))).toContain("3 pages about caps");
      } finally {
        await mcp.close();
      }
    } finally {
      await server.close();
    }
  });

  describe("a stdio server in the sandbox", () => {
    const box = useLocalSandbox("mcp-caps", { execTimeoutMs: 120_000 });

    it.each([
      ["one endless line", "head -c 400000000 /dev/zero | tr '\\0' '['", /over 8 MB/],
      ["a short line nested 50,000 deep", "head -c 50000 /dev/zero | tr '\\0' '['; echo; sleep 60", /nested deeper than 64/],
    ])("%s: refused, named, logged, and the process is killed", async (_what, script, reason) => {
      const warnings: Array<Record<string, unknown>> = [];
      const tick = ticker();
      try {
        const connecting = connectMcpServers(runMcpServers({}, McpServers.parse({ spew: { command: "sh", args: ["-c", script] } })), options(box.sb, warnings));
        const before = tick.ticks;
        await tick.nextTick();
        await tick.nextTick();
        const mcp = await connecting;
        expect(tick.ticks).toBeGreaterThan(before + 1);
        expect(mcp.failures).toEqual([{ name: "spew", reason: expect.stringMatching(reason) }]);
        expect(mcp.failures[0]!.reason).toContain("`spew`");
        expect(warnings).toContainEqual(expect.objectContaining({ server: "spew" }));
        // Killed: nothing of it is left running in the sandbox.
        const ps = await box.sb.exec("ps -eo args | grep -c '[h]ead -c' || true");
        expect(ps.stdout.trim()).toBe("0");
      } finally {
        tick.stop();
      }
    });
  });
});
