import { describe, expect, it } from "vitest";
import { McpServers, resolveHeaders, runMcpServers, type McpServerEntry } from "../../src/config/mcp-config.js";

describe("MCP server config", () => {
  it("parses remote and stdio servers with defaults; rejects bad names and mixed shapes", () => {
    expect(McpServers.parse({ docs: { url: "https://mcp.example.com/mcp" }, local: { command: "npx", args: ["-y", "srv"] } })).toEqual({
      docs: { url: "https://mcp.example.com/mcp", transport: "http", headers: {} },
      local: { command: "npx", args: ["-y", "srv"], env: {} },
    });
    for (const bad of [{ a__b: { command: "x" } }, { Docs: { command: "x" } }, { docs: { url: "ftp://x" } }, { docs: { url: "https://x", command: "y" } }, { docs: {} }]) {
      expect(McpServers.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it("a repository's entry replaces the team's of the same name and is marked untrusted", () => {
    const entries = runMcpServers(McpServers.parse({ docs: { url: "https://team/mcp" }, b: { command: "b" } }), McpServers.parse({ docs: { url: "https://repo/mcp" } }));
    expect(entries.map((e) => [e.name, e.origin])).toEqual([
      ["b", "team"],
      ["docs", "repo"],
    ]);
  });

  const team: McpServerEntry = { name: "docs", origin: "team", config: { url: "https://x", transport: "http", headers: {} } };
  it.each<[string, McpServerEntry, Record<string, string>, Record<string, string> | RegExp]>([
    ["a team server's secret is filled in", team, { Authorization: "Bearer ${TOKEN}" }, { Authorization: "Bearer t0k" }],
    ["literal headers pass through", team, { "X-Org": "acme" }, { "X-Org": "acme" }],
    ["an unset secret is an error naming its variable", team, { A: "${NOPE}" }, /MCP_SECRET_NOPE/],
    ["a repository's server may not use secrets", { ...team, origin: "repo" }, { A: "${TOKEN}" }, /only be used by servers the team configured/],
  ])("%s", (_l, entry, headers, want) => {
    if (want instanceof RegExp) expect(() => resolveHeaders(entry, headers, { TOKEN: "t0k" })).toThrow(want);
    else expect(resolveHeaders(entry, headers, { TOKEN: "t0k" })).toEqual(want);
  });
});
