import nock from "nock";
import { describe, expect, it } from "vitest";
import { jiraBody } from "./atlassian-contract.js";
import { takeViolations, vendorTally } from "./nock-contract.js";
import { slackBody } from "./slack-contract.js";

describe("the per-vendor count (npm run test:contracts)", () => {
  it("counts a reply built through a typed helper as validated, an inline one as having no contract", async () => {
    const before = { slack: { ...vendorTally("slack") }, jira: { ...vendorTally("jira") } };
    nock("https://slack.com")
      .post("/api/chat.postMessage")
      .reply(200, slackBody("chat.postMessage", { ok: true, ts: "1.0" }));
    nock("https://slack.com").post("/api/reactions.add").reply(200, { ok: true });
    nock("https://acme.atlassian.net")
      .get("/rest/api/3/issue/ENG-1/comment/1")
      .reply(200, () => jiraBody("comment", { id: "1" }));
    await fetch("https://slack.com/api/chat.postMessage", { method: "POST" });
    await fetch("https://slack.com/api/reactions.add", { method: "POST" });
    await fetch("https://acme.atlassian.net/rest/api/3/issue/ENG-1/comment/1");
    expect(vendorTally("slack").validated - before.slack.validated).toBe(1);
    expect(vendorTally("slack").noContract - before.slack.noContract).toBe(1);
    expect(vendorTally("jira").validated - before.jira.validated).toBe(1);
    expect(takeViolations()).toEqual([]);
  });

  it("fails a Linear exchange off the schema through the hook", async () => {
    nock("https://api.linear.app")
      .post("/graphql")
      .reply(200, { data: { viewer: { id: 1 } } });
    await fetch("https://api.linear.app/graphql", { method: "POST", body: JSON.stringify({ query: "query OpenSweV { viewer { id } }" }) });
    expect(takeViolations()).toEqual(['OpenSweV: data.viewer.id: the mock sends 1, the schema\'s type serialises it as "1"']);
  });
});
