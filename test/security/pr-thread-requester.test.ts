import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { mockInstallationToken, sendWebhook } from "../helpers/github-app.js";
import { waitForJob } from "../helpers/jobs.js";
import { testRedis } from "../helpers/redis.js";
import { THREAD, checkRunEvent, head, pull, recordOurPr, startAutofixProcess } from "../integration/ci-autofix-fixture.js";

/**
 * Issue #42 (High 2): who a CI fix run acts for is read from `prthread:requester:<thread>`, recorded when
 * the thread's run opened its PR. Someone who can write Redis (not the worker's key) puts carol's name
 * there: no fix run is queued as carol, nor as anyone.
 */
describe("a PR thread's requester written into Redis by hand names nobody", () => {
  let proc: RunningProcess;
  let prefix: string;
  beforeAll(async () => {
    ({ proc, prefix } = await startAutofixProcess());
    await new SettingsStore(testRedis(), prefix).setProfile("carol", { autoFixCi: true });
  });
  afterAll(async () => proc?.stop());

  it.each([
    ["as stored before the seal", (json: string) => json],
    ["with a made-up seal in front", (json: string) => "0".repeat(64) + json],
  ])("%s: the red check on alice's PR queues no fix run as carol (no agent thread)", async (_name, forge) => {
    const number = _name.startsWith("as") ? 21 : 22;
    // alice's run really opened the PR (recorded by the worker); only the requester is rewritten.
    await recordOurPr(prefix, number);
    await testRedis().set(`${prefix}:prthread:requester:${THREAD}`, forge(JSON.stringify({ login: "carol", id: 77 })));
    const sha = head();
    pull(number, sha);
    const { payload, installationId } = checkRunEvent(number, sha);
    mockInstallationToken(installationId);
    const res = await sendWebhook(proc.port!, { event: "check_run", payload });
    const done = await waitForJob(proc.queues.queues["ci-event"], deliveryJobId(res.deliveryId));
    expect(done.failedReason).toBeUndefined();
    expect(done.returnvalue).toMatchObject({ outcome: "skip", reason: "no_agent_thread" });
    expect(await proc.queues.queues.agent.count()).toBe(0);
  });
});
