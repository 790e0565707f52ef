import { decodeSymmetric, SymmetricAlgorithm } from "atlassian-jwt";
import nock from "nock";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { readConfig } from "../../../src/config/env.js";
import { connectQsh } from "../../../src/sources/confluence/connect-jwt.js";
import { confluenceSource } from "../../../src/sources/confluence/confluence-source.js";
import { ConnectInstalls } from "../../../src/sources/confluence/install-store.js";
import { SecretBox } from "../../../src/store/secret-box.js";
import { testRedis, uniquePrefix } from "../../helpers/redis.js";
import { APP_KEY, APP_URL, CLIENT_KEY, CONFLUENCE_BASE, SECRET_KEY, SHARED_SECRET, SITE } from "../../fixtures/confluence/connect.js";
import { type ConfluenceBodies, confluenceBody } from "../../contracts/atlassian-contract.js";
import type { Sent } from "../../contracts/typed-bodies.js";

type Page = Sent<ConfluenceBodies["content"]>;

const ME = "557058:app-user";
const ALICE = { accountId: "557058:alice", displayName: "Alice", email: "alice@example.com" };
const commentRef = { kind: "comment", clientKey: CLIENT_KEY, pageId: "98305", commentId: "360449", threadRoot: "360449", spaceKey: "ENG" };
const pageRef = { kind: "page", clientKey: CLIENT_KEY, pageId: "98305", spaceKey: "ENG" };

async function setup() {
  const redis = testRedis();
  const prefix = uniquePrefix();
  const env = readConfig({ APP_URL, OPEN_SWE_SECRET_KEY: SECRET_KEY, CONFLUENCE_SITES: SITE, QUEUE_PREFIX: prefix, LOG_LEVEL: "silent" }).env;
  await new ConnectInstalls(redis, prefix, new SecretBox(SECRET_KEY)).save({ clientKey: CLIENT_KEY, baseUrl: CONFLUENCE_BASE, sharedSecret: SHARED_SECRET });
  const source = confluenceSource(env, { redis });
  return { redis, prefix, client: source.client(pino({ level: "silent" })) };
}

/** The call must carry a Connect JWT from our app, signed with the install's secret, whose qsh is this very call. */
const signed = (method: string, relative: string) => (value: string) => {
  const token = value.replace(/^JWT /, "");
  const c = decodeSymmetric(token, SHARED_SECRET, SymmetricAlgorithm.HS256) as { iss: string; qsh: string; exp: number };
  return c.iss === APP_KEY && c.qsh === connectQsh(method, relative) && c.exp > Date.now() / 1000;
};
const wiki = () => nock("https://acme.atlassian.net");
const current = () =>
  wiki()
    .get("/wiki/rest/api/user/current")
    .matchHeader("authorization", signed("GET", "/rest/api/user/current"))
    .reply(200, confluenceBody("user", { accountId: ME }));
const EXPAND = "?expand=body.storage%2Chistory%2Ccontainer%2Cspace%2Cancestors";
const content = (id: string, body: string, author = ALICE, container: Page["container"] = { id: "98305", title: "Runbook" }, where: Pick<Page, "space" | "ancestors"> = { space: { key: "ENG" } }) =>
  wiki()
    .get(`/wiki/rest/api/content/${id}`)
    .query({ expand: "body.storage,history,container,space,ancestors" })
    .matchHeader("authorization", signed("GET", `/rest/api/content/${id}${EXPAND}`))
    .reply(200, confluenceBody("content", { id, title: "Runbook", body: { storage: { value: body } }, history: { createdBy: author }, container, ...where }));
const mention = (id: string) => `<p><ac:link><ri:user ri:account-id="${id}" /></ac:link> please update the deploy steps</p>`;

describe("Confluence client: fetchMessage re-reads with the install's credentials", () => {
  it("a comment that mentions the app: its text and author from the API", async () => {
    const { client } = await setup();
    current();
    content("360449", mention(ME));
    expect(await client.fetchMessage(commentRef)).toEqual({
      text: "please update the deploy steps",
      user: { id: ALICE.accountId, name: "Alice", email: "alice@example.com" },
      context: 'Confluence page "Runbook" (id 98305)',
      conversation: { ref: commentRef, threadKey: `confluence:${SITE}:98305:360449`, repoDefaultKey: "confluence:ENG" },
    });
  });

  it("the space and the comment thread come from the re-read, whatever the webhook claimed", async () => {
    const { client } = await setup();
    current();
    // The webhook claimed space HR and its own thread; Confluence says space ENG, a reply in thread 360001.
    const claimed = { ...commentRef, commentId: "360500", threadRoot: "360500", spaceKey: "HR" };
    content("360500", mention(ME), ALICE, { id: "98305", title: "Runbook" }, { space: { key: "ENG" }, ancestors: [{ id: "360001", type: "comment" }] });
    expect((await client.fetchMessage(claimed))?.conversation).toEqual({
      ref: { kind: "comment", clientKey: CLIENT_KEY, pageId: "98305", commentId: "360500", threadRoot: "360001", spaceKey: "ENG" },
      threadKey: `confluence:${SITE}:98305:360001`,
      repoDefaultKey: "confluence:ENG",
    });
    // No space in the re-read: none in the reference either (the tools then write nowhere else).
    content("360500", mention(ME), ALICE, { id: "98305", title: "Runbook" }, {});
    const bare = (await client.fetchMessage(claimed))?.conversation;
    expect(bare?.ref).not.toHaveProperty("spaceKey");
    expect(bare).not.toHaveProperty("repoDefaultKey");
  });

  it("nothing runs for a comment that mentions someone else, the app's own comment, a comment on another page, or a deleted one", async () => {
    const { client } = await setup();
    current();
    content("360449", mention("557058:bob"));
    expect(await client.fetchMessage(commentRef)).toBeNull();
    content("360449", mention(ME), { accountId: ME, displayName: "Open SWE", email: "" });
    expect(await client.fetchMessage(commentRef)).toBeNull();
    content("360449", mention(ME), ALICE, { id: "11111" });
    expect(await client.fetchMessage(commentRef)).toBeNull();
    wiki().get("/wiki/rest/api/content/360449").query(true).reply(404, { message: "No content found" });
    expect(await client.fetchMessage(commentRef)).toBeNull();
  });

  it("a page mention by the handle; an uninstalled site runs nothing and calls nothing", async () => {
    const { client, redis, prefix } = await setup();
    current();
    content("98305", "<p>@open-swe draft the release notes</p>");
    expect(await client.fetchMessage(pageRef)).toMatchObject({ text: "@open-swe draft the release notes", user: { id: ALICE.accountId } });
    await new ConnectInstalls(redis, prefix, new SecretBox(SECRET_KEY)).remove(CLIENT_KEY);
    expect(await client.fetchMessage(pageRef)).toBeNull();
  });

  it("reply posts a storage-format comment in the thread", async () => {
    const { client } = await setup();
    wiki()
      .post("/wiki/rest/api/content", {
        type: "comment",
        container: { id: "98305", type: "page" },
        ancestors: [{ id: "360449" }],
        body: { storage: { value: '<p>PR: <a href="https://github.com/acme/web/pull/7">https://github.com/acme/web/pull/7</a></p>', representation: "storage" } },
      })
      .matchHeader("authorization", signed("POST", "/rest/api/content"))
      .reply(200, confluenceBody("content", { id: "360600" }));
    await client.reply(commentRef, "PR: https://github.com/acme/web/pull/7");
  });
});

describe("Confluence tools", () => {
  const tools = async () => Object.fromEntries((await setup()).client.tools(commentRef).map((t) => [t.name, t]));
  const page = (id: string, space = "ENG", version = 4) => ({
    id,
    title: "Runbook",
    space: { key: space },
    version: { number: version },
    body: { storage: { value: "<p>old</p>" } },
    _links: { webui: `/spaces/${space}/pages/${id}` },
  });
  const getPage = (id: string, space = "ENG") =>
    wiki()
      .get(`/wiki/rest/api/content/${id}`)
      .query({ expand: "body.storage,version,space" })
      .reply(200, confluenceBody("content", page(id, space)));

  it("offers exactly the five tools", async () => {
    expect(Object.keys(await tools()).sort()).toEqual(["confluence_comment", "confluence_create_page", "confluence_get_page", "confluence_search", "confluence_update_page"]);
  });

  it("confluence_get_page", async () => {
    const t = await tools();
    getPage("98305");
    expect(JSON.parse(await t.confluence_get_page!.invoke({ pageId: "98305" }))).toEqual({
      id: "98305",
      title: "Runbook",
      space: "ENG",
      version: 4,
      url: `${CONFLUENCE_BASE}/spaces/ENG/pages/98305`,
      text: "old",
      storage: "<p>old</p>",
    });
  });

  it("confluence_create_page converts Markdown; another space is refused without a call", async () => {
    const t = await tools();
    wiki()
      .post("/wiki/rest/api/content", {
        type: "page",
        title: "Notes",
        space: { key: "ENG" },
        ancestors: [{ id: "98305" }],
        body: { storage: { value: "<h2>Hi</h2><ul><li><p>a</p></li></ul>", representation: "storage" } },
      })
      .reply(200, confluenceBody("content", page("98400")));
    expect(await t.confluence_create_page!.invoke({ spaceKey: "ENG", title: "Notes", body: "## Hi\n\n- a", parentId: "98305" })).toBe(`Created page 98400: ${CONFLUENCE_BASE}/spaces/ENG/pages/98400`);
    expect(await t.confluence_create_page!.invoke({ spaceKey: "HR", title: "x", body: "x" })).toMatch(/Refused: that is outside space ENG/);
  });

  it("confluence_update_page bumps the version and sends storage as is", async () => {
    const t = await tools();
    getPage("98305");
    wiki()
      .put("/wiki/rest/api/content/98305", { id: "98305", type: "page", title: "Runbook", version: { number: 5 }, body: { storage: { value: "<p>new</p>", representation: "storage" } } })
      .matchHeader("authorization", signed("PUT", "/rest/api/content/98305"))
      .reply(200, confluenceBody("content", page("98305", "ENG", 5)));
    expect(await t.confluence_update_page!.invoke({ pageId: "98305", body: "<p>new</p>", format: "storage" })).toBe("Updated page 98305 to version 5.");
  });

  it("confluence_update_page: a page in another space is refused, a version conflict is told to the model", async () => {
    const t = await tools();
    getPage("77", "HR");
    expect(await t.confluence_update_page!.invoke({ pageId: "77", body: "x" })).toMatch(/Refused/);
    getPage("98305");
    wiki().put("/wiki/rest/api/content/98305").reply(409, { message: "Version must be incremented on update. Current version is: 5" });
    expect(await t.confluence_update_page!.invoke({ pageId: "98305", body: "x" })).toMatch(/^Confluence refused the request \(HTTP 409\).*Current version is: 5/);
    // Confluence's outage is told as Confluence's, not as a fault of the request.
    getPage("98305");
    wiki().put("/wiki/rest/api/content/98305").reply(502, { message: "Bad Gateway" });
    expect(await t.confluence_update_page!.invoke({ pageId: "98305", body: "x" })).toMatch(/^Confluence failed \(HTTP 502\).*This is an upstream error, not a problem with the request/);
  });

  it("confluence_comment replies in the request's thread", async () => {
    const t = await tools();
    wiki()
      .post("/wiki/rest/api/content", (b: { ancestors?: { id: string }[]; container: { id: string } }) => b.container.id === "98305" && b.ancestors?.[0]?.id === "360449")
      .reply(200, confluenceBody("content", { id: "360700" }));
    expect(await t.confluence_comment!.invoke({ body: "Done." })).toBe("Comment 360700 posted on page 98305.");
  });

  it("confluence_search runs CQL", async () => {
    const t = await tools();
    const cql = 'type = page AND text ~ "deploy"';
    wiki()
      .get("/wiki/rest/api/search")
      .query({ cql, limit: "10" })
      .matchHeader("authorization", signed("GET", `/rest/api/search?${new URLSearchParams({ cql, limit: "10" }).toString()}`))
      .reply(200, confluenceBody("search", { totalSize: 1, results: [{ title: "Deploy", excerpt: "how to deploy", url: "/spaces/ENG/pages/5", content: { id: "5", type: "page" } }] }));
    expect(JSON.parse(await t.confluence_search!.invoke({ cql }))).toEqual({
      total: 1,
      results: [{ id: "5", type: "page", title: "Deploy", url: `${CONFLUENCE_BASE}/spaces/ENG/pages/5`, excerpt: "how to deploy" }],
    });
  });
});
