import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { LinearApi } from "../../src/sources/linear/linear-api.js";
import { linearTools } from "../../src/sources/linear/tools/index.js";
import { checkLinearExchange } from "../contracts/linear-graphql.js";

/**
 * `npm run test:live` only: the Linear tools' read path against a real workspace (LINEAR_API_KEY), and the
 * real answer held to the schema read from the pinned @linear/sdk — the contract the mocks follow.
 */
describe("live: Linear", () => {
  it("lists the workspace's teams through the tool, and Linear's own answer fits the schema", async () => {
    const api = new LinearApi({ apiKey: process.env.LINEAR_API_KEY ?? "" });
    const list = linearTools({ api, ref: { issueId: "live-check", teamId: "live-check", trigger: "assigned" }, log: createLogger("warn", "live") }).find((t) => t.name === "linear_list_teams");
    const teams = JSON.parse(String(await list?.invoke({}))) as unknown[];
    expect(Array.isArray(teams)).toBe(true);

    const query = "query OpenSweLiveTeams { teams(first: 5) { nodes { id key name } } }";
    const res = await fetch(process.env.LINEAR_API_URL ?? "https://api.linear.app/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: process.env.LINEAR_API_KEY ?? "" },
      body: JSON.stringify({ query }),
    });
    expect(checkLinearExchange(JSON.stringify({ query }), res.status, await res.json()).violations).toEqual([]);
  });
});
