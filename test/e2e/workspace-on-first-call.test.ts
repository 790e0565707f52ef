import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { BaseMessage } from "@langchain/core/messages";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ReplayChatModel } from "../../src/agent/model/replay-chat-model.js";
import { readSandboxConfig } from "../../src/config/sandbox-config.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { threadSandboxKey } from "../../src/sandbox/lifecycle.js";
import { createSandboxProvider } from "../../src/sandbox/registry.js";
import { threadId } from "../../src/shared/thread-id.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { issueCommentPayload, sendWebhook } from "../helpers/github-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { waitForJob } from "../helpers/jobs.js";
import { testRedis } from "../helpers/redis.js";

const API = "https://api.github.com";

describe("e2e: the checkout goes in while the first model call is out", () => {
  let app: E2eApp;
  beforeAll(async () => {
    app = await startE2eApp(makeBareRemote("octo", "hello").template, "ws-first-call");
  });
  afterAll(async () => app?.stop());

  it("is in place before that call ends, though no command has asked for it yet", async () => {
    // The first model call takes 4 s (a connection to look takes up to a second here): the workspace must be in place before it ends, the command comes after it.
    writeFileSync(
      app.replay,
      JSON.stringify([
        { tool_calls: [{ name: "execute", args: { command: "git rev-parse --abbrev-ref HEAD" } }], delay_ms: 4000 },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "done" } }] },
      ]),
    );
    let firstCallAt: number | undefined;
    const generate = ReplayChatModel.prototype._generate;
    const spy = vi.spyOn(ReplayChatModel.prototype, "_generate").mockImplementation(function (this: ReplayChatModel, messages: BaseMessage[], ...rest) {
      firstCallAt ??= performance.now();
      return generate.call(this, messages, ...rest);
    });
    const api = nock(API).persist();
    api.post("/app/installations/6262/access_tokens").reply(201, { token: "ghs_test_installation_token", expires_at: new Date(Date.now() + 3600_000).toISOString() });
    api.get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    api.get(/^\/repos\/octo\/(hello|\.github)\/contents\/\.github%2Fopen-swe\.yml$/).reply(404, {});
    api.get("/repos/octo/hello").reply(200, { default_branch: "main" });
    api.post("/repos/octo/hello/issues/comments/73/reactions").reply(201, {});
    api.post("/repos/octo/hello/issues/5/comments").reply(201, { id: 82 });

    const res = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 6262, number: 5, issueId: 5005, commentId: 73, body: "@open-swe which branch am I on?" }),
    });
    await vi.waitFor(() => expect(firstCallAt).toBeDefined(), { timeout: 30_000, interval: 5 });
    const provider = createSandboxProvider(readSandboxConfig({ SANDBOX_ROOT: join(app.dataDir, "sandboxes") }));
    const id = (await testRedis().get(threadSandboxKey(app.prefix, threadId({ kind: "issue", issueId: 5005 }))))!;
    // A fresh connection per look: one made before the workspace is mounted would not see it.
    const checkedOut = async () => {
      const sandbox = await provider.connect(id);
      try {
        return (await sandbox.exec("git rev-parse --verify --quiet HEAD")).exitCode === 0;
      } finally {
        await sandbox.close();
      }
    };
    let checkedOutAt: number | undefined;
    while (checkedOutAt === undefined && performance.now() - firstCallAt! < 8000) {
      if (await checkedOut()) checkedOutAt = performance.now();
      else await sleep(20);
    }
    const done = await waitForJob(app.proc.queues.queues.agent, deliveryJobId(res.deliveryId), 60_000);
    spy.mockRestore();
    expect(done.failedReason).toBeUndefined();
    expect(checkedOutAt).toBeDefined();
    expect(checkedOutAt! - firstCallAt!).toBeLessThan(4000);
  });
});
