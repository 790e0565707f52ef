import nock from "nock";
import { describe, expect, it } from "vitest";
import { createWebSearchProvider } from "../../../src/agent/tools/web-search/create-web-search-provider.js";
import { readWebSearchConfig } from "../../../src/config/web-search-config.js";
import { createWebSearchTool } from "../../../src/agent/tools/web-search-tool.js";

describe("web_search", () => {
  it.each([
    [{}, undefined],
    [{ TAVILY_API_KEY: " " }, undefined],
    [{ BRAVE_SEARCH_API_KEY: "b" }, "brave"],
    [{ TAVILY_API_KEY: "t", BRAVE_SEARCH_API_KEY: "b" }, "tavily"],
  ])("env %j picks %s", (env, name) => {
    expect(createWebSearchProvider(readWebSearchConfig(env))?.name).toBe(name);
  });

  it("is off when no provider is configured", () => {
    expect(createWebSearchTool(createWebSearchProvider({}))).toBeUndefined();
  });

  it("searches through Tavily", async () => {
    nock("https://api.tavily.com")
      .post("/search", { query: "vitest globalSetup provide", max_results: 2 })
      .matchHeader("authorization", "Bearer tv-key")
      .reply(200, { results: [{ title: "Global setup", url: "https://vitest.dev/config/#globalsetup", content: "Use provide/inject." }] });
    const search = createWebSearchTool(createWebSearchProvider({ tavilyApiKey: "tv-key" }));
    const out = await search?.invoke({ query: "vitest globalSetup provide", max_results: 2 });
    expect(out).toBe("1. Global setup\n   https://vitest.dev/config/#globalsetup\n   Use provide/inject.");
  });

  it("searches through Brave and strips its highlight markup", async () => {
    nock("https://api.search.brave.com")
      .get("/res/v1/web/search")
      .query({ q: "bullmq upsertJobScheduler", count: "5" })
      .matchHeader("x-subscription-token", "br-key")
      .reply(200, { web: { results: [{ title: "Job Schedulers", url: "https://docs.bullmq.io/guide/job-schedulers", description: "Use <strong>upsertJobScheduler</strong>" }] } });
    const search = createWebSearchTool(createWebSearchProvider({ braveApiKey: "br-key" }));
    expect(await search?.invoke({ query: "bullmq upsertJobScheduler" })).toBe("1. Job Schedulers\n   https://docs.bullmq.io/guide/job-schedulers\n   Use upsertJobScheduler");
  });

  it("reports a vendor failure with a typed error", async () => {
    nock("https://api.tavily.com").post("/search").reply(401, { detail: "bad key" });
    const search = createWebSearchTool(createWebSearchProvider({ tavilyApiKey: "x" }));
    await expect(search?.invoke({ query: "q" })).rejects.toMatchObject({ code: "web_search_failed", message: "tavily answered HTTP 401" });
  });
});
