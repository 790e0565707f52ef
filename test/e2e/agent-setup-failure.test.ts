import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import nock from "nock";
import { afterAll, describe, expect, it } from "vitest";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { issueCommentPayload, mockInstallationToken, sendWebhook } from "../helpers/github-app.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { waitForJob } from "../helpers/jobs.js";

const API = "https://api.github.com";
let app: E2eApp | undefined;
afterAll(async () => app?.stop());

/** Asks for a run on issue `issue` (GitHub mocked up to the set-up: `attempts` of it) and waits for its job: its state and the replies. */
async function askAndWait(e2e: E2eApp, attempts: number, issue: number, commentId: number): Promise<{ state: string; bodies: string[]; replied: boolean }> {
  mockInstallationToken(4343, 2);
  // Cached for a retry (PERMISSION_CACHE_SECONDS).
  nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
  nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").times(attempts).reply(404, { message: "Not Found" });
  nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").times(attempts).reply(404, { message: "Not Found" });
  nock(API).get("/repos/octo/hello").times(attempts).reply(200, { default_branch: "main", full_name: "octo/hello" });
  const bodies: string[] = [];
  const reply = nock(API)
    .post(`/repos/octo/hello/issues/${issue}/comments`, (b: { body: string }) => (bodies.push(b.body), true))
    .reply(201, { id: 700 + issue });
  const res = await sendWebhook(e2e.proc.port!, {
    event: "issue_comment",
    payload: issueCommentPayload({ installationId: 4343, number: issue, issueId: 9000 + issue, commentId, body: "@open-swe fix the typo" }),
  });
  expect(res.status).toBe(200);
  const done = await waitForJob(e2e.proc.queues.queues.agent, deliveryJobId(res.deliveryId), 60_000);
  return { state: done.state, bodies, replied: reply.isDone() };
}

describe("e2e: a run that fails before its agent loop", () => {
  it("a sandbox that cannot be made: the person who asked is told once, with the cause; the job fails after its last attempt", async () => {
    const remote = makeBareRemote("octo", "hello");
    app = await startE2eApp(remote.template, "setup-fail", { JOB_ATTEMPTS: "2" });
    writeFileSync(app.replay, JSON.stringify([{ tool_calls: [{ name: "confirming_completion", args: { summary: "never reached" } }] }]));
    // The sandboxes' directory is gone and a file sits where it was: no sandbox can be made there.
    const root = join(app.dataDir, "sandboxes");
    rmSync(root, { recursive: true, force: true });
    writeFileSync(root, "not a directory");

    const { state, bodies, replied } = await askAndWait(app, 2, 9, 902);
    expect(state).toBe("failed");
    expect(replied).toBe(true);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toMatch(/^I could not start on this: .*An operator needs to look at the worker/);
    expect(bodies[0]).toMatch(/sandbox could not be made|preparing the workspace failed: .*(ENOTDIR|EEXIST|not a directory)/);
  }, 90_000);

  it("a checkout that fails while the first model call is out: the run stops, says why once, runs no command, and the job fails", async () => {
    await app?.stop();
    const remote = makeBareRemote("octo", "hello");
    app = await startE2eApp(remote.template, "setup-fail-late");
    // The model asks for a command first: it must never run in a workspace that is not there.
    writeFileSync(
      app.replay,
      JSON.stringify([
        { tool_calls: [{ name: "execute", args: { command: "echo ran > late-proof" } }], delay_ms: 300 },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "never reached" } }] },
      ]),
    );
    // The shared checkouts' directory is a file: the mirror fetches, the sandbox is made, the checkout fails.
    mkdirSync(join(app.dataDir, "mirrors"), { recursive: true });
    writeFileSync(join(app.dataDir, "mirrors", "bases"), "not a directory");

    // Whether the first model call started before the checkout failed is a race: its 👀 may or may not go out.
    nock(API).post("/repos/octo/hello/issues/comments/903/reactions").optionally().reply(201, {});
    const { state, bodies, replied } = await askAndWait(app, 1, 10, 903);
    expect(state).toBe("failed");
    expect(replied).toBe(true);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toMatch(/^I could not start on this: .*(ENOTDIR|not a directory)/s);
    const sandboxes = join(app.dataDir, "sandboxes");
    expect(existsSync(sandboxes) ? execFileSync("find", [sandboxes, "-name", "late-proof"], { encoding: "utf8" }) : "").toBe("");
  }, 90_000);
});

describe("e2e: a run that fails inside its agent loop", () => {
  it("says once that it could not finish and why in words the requester can act on, never the raw error", async () => {
    await app?.stop();
    const remote = makeBareRemote("octo", "hello");
    app = await startE2eApp(remote.template, "loop-fail");
    // One command, then the script runs out: the second model call throws (an internal error with a path in it).
    writeFileSync(app.replay, JSON.stringify([{ tool_calls: [{ name: "execute", args: { command: "echo ran" } }] }]));
    nock(API).post("/repos/octo/hello/issues/comments/904/reactions").reply(201, {});
    const { state, bodies, replied } = await askAndWait(app, 1, 11, 904);
    expect(state).toBe("failed");
    expect(replied).toBe(true);
    expect(bodies).toHaveLength(1);
    // After the replay's own note (a replayed run says so first).
    expect(bodies[0]).toMatch(/\n\nI hit an error and could not finish: an internal error; the worker's log has the details\./);
    expect(bodies[0]).not.toMatch(/replay script|ran out|Error:|\/tmp|\.json/);
  }, 90_000);
});
