import { createServer, type Server } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

/**
 * A real MCP server (the official SDK, Streamable HTTP, stateless) on loopback with one `search` tool;
 * requests without `Authorization: Bearer <token>` get 401; answers are JSON, or SSE streams with `sse`. `calls` records what the tool was asked,
 * `requests` counts every request.
 */
export async function startMcpHttpServer(token: string, options: { sse?: boolean } = {}): Promise<{ url: string; calls: string[]; authFailures: number; requests: number; close(): Promise<void> }> {
  const state = { calls: [] as string[], authFailures: 0, requests: 0 };
  const server: Server = createServer((req, res) => {
    state.requests += 1;
    if (req.headers.authorization !== `Bearer ${token}`) {
      state.authFailures += 1;
      res.writeHead(401).end();
      return;
    }
    const mcp = new McpServer({ name: "docs", version: "1" });
    mcp.registerTool("search", { description: "Search the docs", inputSchema: { query: z.string() } }, async ({ query }) => {
      state.calls.push(query);
      return { content: [{ type: "text", text: `3 pages about ${query}` }] };
    });
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: !options.sse });
    res.on("close", () => void transport.close().then(() => mcp.close()));
    void mcp.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    get calls() {
      return state.calls;
    },
    get authFailures() {
      return state.authFailures;
    },
    /** Every HTTP request it received (a server never started gets none). */
    get requests() {
      return state.requests;
    },
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}
