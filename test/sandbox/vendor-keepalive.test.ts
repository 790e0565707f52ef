import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { readSandboxConfig } from "../../src/config/sandbox-config.js";
import { KEEP_ALIVE_EVERY_MS, holdSandbox } from "../../src/sandbox/keep-alive.js";
import { DaytonaSandboxProvider } from "../../src/sandbox/providers/daytona.js";
import { E2B_LEASE_MS, E2bSandboxProvider } from "../../src/sandbox/providers/e2b.js";
import { LocalSandboxProvider } from "../../src/sandbox/providers/local.js";
import { MODAL_LIFETIME_MS, ModalSandboxProvider } from "../../src/sandbox/providers/modal.js";
import { DAYTONA_API, mockDaytonaHttp } from "./fakes/fake-daytona-http.js";
import { fakeE2bClient } from "./fakes/fake-e2b.js";
import { fakeModalApi } from "./fakes/fake-modal.js";

async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("vendor sandboxes: auto-stop set at create, kept alive while a run holds them (conformance fakes over bubblewrap)", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "osw-keepalive-"));
  });
  afterEach(async () => {
    nock.cleanAll();
    await rm(root, { recursive: true, force: true });
  });
  const local = (workdir?: string) => new LocalSandboxProvider({ root, execTimeoutMs: 10_000, maxOutputBytes: 1 << 20, ...(workdir ? { workdir } : {}) });

  it("e2b: created with a lease, each keep-alive sets the lease again; a killed sandbox's keep-alive says so", async () => {
    const client = fakeE2bClient(local("/home/user/workspace"));
    const provider = new E2bSandboxProvider(readSandboxConfig({ SANDBOX_TYPE: "e2b", E2B_API_KEY: "e2b_test" }), client);
    const sb = await provider.create();
    expect(client.requests).toContain(`create base net=true timeout=${E2B_LEASE_MS}`);
    expect(await sb.keepAlive!()).toBe(true);
    expect(client.requests).toContain(`setTimeout ${sb.id} ${E2B_LEASE_MS}`);

    // The run's heartbeat calls it on whatever handle the thread's cache holds.
    const cache = new Map([["t1", sb]]);
    const stop = holdSandbox(cache, "t1", createLogger("silent"), 20);
    const before = client.requests.filter((r) => r.startsWith("setTimeout")).length;
    await until(() => client.requests.filter((r) => r.startsWith("setTimeout")).length >= before + 2);
    stop();

    await provider.destroy(sb.id);
    expect(await sb.keepAlive!()).toBe(false);
  });

  it("modal: the whole lifetime Modal allows, the idle TTL as Modal's idle timeout, a no-op command as keep-alive", async () => {
    const api = fakeModalApi(local());
    const provider = new ModalSandboxProvider(readSandboxConfig({ SANDBOX_TYPE: "modal", SANDBOX_IDLE_TTL_MINUTES: "90" }), api);
    const sb = await provider.create();
    expect(api.created).toEqual([{ timeoutMs: MODAL_LIFETIME_MS, idleTimeoutMs: 90 * 60_000 }]);
    expect(await sb.keepAlive!()).toBe(true);
    expect(api.execs.at(-1)).toEqual(["true"]);
    await provider.destroy(sb.id);
    expect(await sb.keepAlive!()).toBe(false);

    const keep = new ModalSandboxProvider(readSandboxConfig({ SANDBOX_TYPE: "modal", SANDBOX_IDLE_TTL_MINUTES: "0" }), api);
    await keep.destroy((await keep.create()).id);
    expect(api.created[1]).toEqual({ timeoutMs: MODAL_LIFETIME_MS });
    // A TTL shorter than three keep-alive periods would let Modal stop a sandbox mid-run.
    const short = new ModalSandboxProvider(readSandboxConfig({ SANDBOX_TYPE: "modal", SANDBOX_IDLE_TTL_MINUTES: "1" }), api);
    await short.destroy((await short.create()).id);
    expect(api.created[2]).toEqual({ timeoutMs: MODAL_LIFETIME_MS, idleTimeoutMs: 3 * KEEP_ALIVE_EVERY_MS });
  });

  it("daytona: created with auto-stop, keep-alive refreshes activity, and a sandbox Daytona stopped is started again with its files", async () => {
    const fake = mockDaytonaHttp(local("/home/daytona/workspace"));
    const provider = new DaytonaSandboxProvider(readSandboxConfig({ SANDBOX_TYPE: "daytona", DAYTONA_API_KEY: "dtn_test", DAYTONA_API_URL: DAYTONA_API }));
    const sb = await provider.create();
    expect(fake.requests).toContain("POST /sandbox net=true autoStop=15");
    expect(await sb.keepAlive!()).toBe(true);
    expect(fake.requests).toContain(`last-activity ${sb.id}`);
    expect((await sb.exec("echo kept > note.txt")).exitCode).toBe(0);

    // A reconnect (another worker, a restart) to a stopped sandbox starts it.
    fake.stop(sb.id);
    const again = await provider.connect(sb.id);
    expect(fake.requests).toContain(`start ${sb.id}`);
    expect((await again.exec("cat note.txt")).stdout).toBe("kept\n");

    // A cached handle's ping (before each run) does the same instead of reporting it dead.
    fake.stop(sb.id);
    const starts = fake.requests.filter((r) => r === `start ${sb.id}`).length;
    expect(await again.ping()).toBe(true);
    expect(fake.requests.filter((r) => r === `start ${sb.id}`).length).toBe(starts + 1);
    expect((await again.exec("cat note.txt")).stdout).toBe("kept\n");
    await provider.destroy(sb.id);
  });
});
