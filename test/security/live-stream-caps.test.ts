import { cookieHeader, keep } from "../helpers/cookie-jar.js";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { RunIndex } from "../../src/store/run-index.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { mockRepoRole } from "../helpers/github-app.js";
import { redisUrl, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";
import { CLIENT_ID, CLIENT_SECRET, mockSignIn } from "../dashboard/browser.js";

// Finding: every live view polls Redis every 400 ms for as long as it stays open, and nothing bounded how
// many one viewer could open. Caps here: 2 per session, 3 per address (defaults 8 and 32).

interface Opened {
  status: number;
  head: string;
  socket: Socket;
}

/** A live view held open over a raw socket (as an EventSource holds it); resolves once the head is in. */
function openStream(port: number, path: string, cookie: string): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let got = "";
    socket.on("error", reject);
    socket.on("data", (d: Buffer) => {
      got += d.toString("utf8");
      const end = got.indexOf("\r\n\r\n");
      if (end < 0) return;
      socket.removeAllListeners("data");
      socket.resume();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(got)![1]), head: got, socket });
    });
    socket.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\naccept: text/event-stream\r\ncookie: ${cookie}\r\n\r\n`);
  });
}

describe("live views are capped per session and per address", () => {
  let proc: RunningProcess;
  let base: string;
  const prefix = uniquePrefix();
  const sockets: Socket[] = [];
  beforeAll(async () => {
    proc = await startTestProcess("web", {
      QUEUE_REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      GITHUB_CLIENT_ID: CLIENT_ID,
      GITHUB_CLIENT_SECRET: CLIENT_SECRET,
      DASHBOARD_LIVE_STREAMS_PER_SESSION: "2",
      DASHBOARD_LIVE_STREAMS_PER_ADDRESS: "3",
    });
    base = `http://127.0.0.1:${proc.port}`;
    await new SettingsStore(proc.redis, prefix).recordInstalled("octo/hello", { installationId: 4242 });
    // Reading a run asks GitHub whether dana may read octo/hello now (then cached).
    mockRepoRole("dana");
    await new RunIndex(proc.redis, prefix).put({
      runId: "run-live",
      repo: "octo/hello",
      threadId: "5f0c6a52-8a1e-4c1b-9a57-3f1f5e7d2b10",
      trigger: "comment",
      source: "github",
      requester: "dana",
      title: "live",
      status: "running",
      queuedAt: Date.now(),
    });
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await proc?.stop();
  });

  async function signIn(): Promise<string> {
    const jar = new Map<string, string>();
    const login = await fetch(`${base}/auth/login?next=/app`, { redirect: "manual" });
    keep(jar, login);
    const authorize = new URL(login.headers.get("location")!);
    mockSignIn({ login: "dana", id: 31, repos: [{ full_name: "octo/hello", push: true }] }, () => authorize.searchParams.get("code_challenge") ?? undefined);
    const res = await fetch(`${base}/auth/callback?code=code-1&state=${authorize.searchParams.get("state")}`, { redirect: "manual", headers: { cookie: cookieHeader(jar) } });
    keep(jar, res);
    expect(res.status).toBe(302);
    return cookieHeader(jar);
  }

  const open = async (cookie: string) => {
    const o = await openStream(proc.port!, "/app/runs/run-live/events", cookie);
    sockets.push(o.socket);
    return o;
  };

  it("the session's third stream and the address's fourth get 429 with the reason; a closed stream frees its place", async () => {
    const a = await signIn();
    const b = await signIn();
    const a1 = await open(a);
    const a2 = await open(a);
    expect([a1.status, a2.status]).toEqual([200, 200]);
    expect(a1.head).toMatch(/content-type: text\/event-stream/i);
    const a3 = await open(a);
    expect(a3.status).toBe(429);
    expect(a3.head).toMatch(/retry-after: 30/i);
    const b1 = await open(b);
    expect(b1.status).toBe(200);
    const b2 = await open(b);
    expect(b2.status).toBe(429);
    const refusals = await Promise.all(
      [a3, b2].map(
        (o) =>
          new Promise<string>((resolve) => {
            let rest = o.head;
            o.socket.on("data", (d: Buffer) => (rest += d.toString("utf8")));
            setTimeout(() => resolve(rest), 100);
          }),
      ),
    );
    expect(refusals[0]).toContain("this session already has 2 live views open (at most 2)");
    expect(refusals[1]).toContain("your address already has 3 live views open (at most 3)");
    // The viewer closes a tab: its stream ends on the server, and its place is free again.
    a1.socket.destroy();
    let again: Opened | undefined;
    for (let i = 0; i < 40; i++) {
      again = await open(a);
      if (again.status === 200) break;
      again.socket.destroy();
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(again!.status).toBe(200);
  });
});
