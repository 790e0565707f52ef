import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/paths.js";
import { uniquePrefix } from "../helpers/redis.js";

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

/** A private CA and a server certificate for 127.0.0.1, made with openssl for this test only. */
function makeCerts(dir: string): { ca: string; cert: string; key: string } {
  const at = (f: string) => join(dir, f);
  const ssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "ignore" });
  ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=open-swe-test-ca");
  ssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "srv.key", "-out", "srv.csr", "-subj", "/CN=127.0.0.1");
  writeFileSync(at("ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  ssl("x509", "-req", "-in", "srv.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "srv.pem", "-days", "2", "-extfile", "ext");
  return { ca: at("ca.pem"), cert: at("srv.pem"), key: at("srv.key") };
}

describe("rediss:// (TLS)", () => {
  it("the real CLI writes through a TLS-only redis-server, trusting a private CA through NODE_EXTRA_CA_CERTS", async () => {
    const dir = mkdtempSync(join(tmpdir(), "osw-tls-"));
    const certs = makeCerts(dir);
    const port = await freePort();
    const server = spawn(
      "redis-server",
      [
        "--port",
        "0",
        "--tls-port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--tls-cert-file",
        certs.cert,
        "--tls-key-file",
        certs.key,
        "--tls-ca-cert-file",
        certs.ca,
        "--tls-auth-clients",
        "no",
        "--save",
        "",
        "--dir",
        dir,
      ],
      { stdio: "ignore" },
    );
    children.push(server);
    const tls = new Redis(`rediss://127.0.0.1:${port}`, { tls: { ca: readFileSync(certs.ca) }, maxRetriesPerRequest: null });
    tls.on("error", () => undefined); // refused until the server listens
    for (let i = 0; (await tls.ping().catch(() => null)) !== "PONG"; i++) {
      if (i > 100) throw new Error("the TLS redis-server did not start");
      await new Promise((r) => setTimeout(r, 50));
    }
    const prefix = uniquePrefix();
    const cli = spawn(process.execPath, [join(ROOT, "bin/open-swe.mjs"), "settings", "repos", "enable", "Octo/Hello"], {
      cwd: dir,
      env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: tmpdir(), QUEUE_REDIS_URL: `rediss://127.0.0.1:${port}`, QUEUE_PREFIX: prefix, NODE_EXTRA_CA_CERTS: certs.ca },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(cli);
    let out = "";
    cli.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    expect(await new Promise((r) => cli.once("exit", r)), out).toBe(0);
    expect((await tls.keys(`${prefix}:*`)).length).toBeGreaterThan(0);
    tls.disconnect();
  }, 60_000);
});
