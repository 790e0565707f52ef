// The worker's side of the command server reads what a hostile server says: real processes that answer
// with bad frames, too much output or nothing at all. None may hang or crash the caller.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { CommandServer } from "../../src/sandbox/providers/command-server.js";

/** A fake server: sends READY, then runs `onRequest(m, send, raw)` for each request. */
function fake(onRequest: string): CommandServer {
  const program = `
    const send = (type, id, bytes) => { const h = Buffer.alloc(9); h.writeUInt32BE(bytes.length + 5, 0); h[4] = type; h.writeUInt32BE(id, 5); process.stdout.write(Buffer.concat([h, bytes])); };
    const raw = (bytes) => process.stdout.write(bytes);
    // A request: type (1 run, 2 kill), id, then for a run the cap, a stdin flag and length-prefixed fields.
    const decode = (b) => {
      const id = b.readUInt32BE(1);
      if (b[0] !== 1) return { t: "kill", id };
      const cmdLength = b.readUInt32BE(10);
      return { t: "run", id, cmd: b.subarray(14, 14 + cmdLength).toString() };
    };
    send(4, 0, Buffer.alloc(0));
    let buf = Buffer.alloc(0);
    process.stdin.on("data", (c) => {
      buf = Buffer.concat([buf, c]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
        const m = decode(buf.subarray(4, 4 + buf.readUInt32BE(0)));
        buf = buf.subarray(4 + buf.readUInt32BE(0));
        (${onRequest})(m, send, raw);
      }
    });
    process.stdin.on("end", () => process.exit(0));`;
  return new CommandServer(async () => {
    const child = spawn(process.execPath, ["-e", program], { detached: true, stdio: ["pipe", "pipe", "pipe"] });
    return { child, exited: once(child, "exit") };
  }, 60_000);
}

/** A fake server, up. */
async function up(onRequest: string): Promise<CommandServer> {
  const server = fake(onRequest);
  expect(await server.start()).toBe(true);
  return server;
}

const req = { cmd: "x", env: {}, cwd: "/", maxOutputBytes: 16 };
const exitFrame = (code: number) => `Buffer.from(JSON.stringify({ code: ${code}, signal: null, truncated: false }))`;

describe("command server: the worker's side against a hostile server", () => {
  it.each([
    ["a frame shorter than its header", `(m, send, raw) => raw(Buffer.from([0, 0, 0, 2, 1, 1]))`],
    ["a frame longer than 1 MiB", `(m, send, raw) => raw(Buffer.from([0, 0x20, 0, 0, 1]))`],
    ["an exit for a command never asked for", `(m, send) => send(3, m.id + 7, ${exitFrame(0)})`],
    ["an exit that is not JSON", `(m, send) => send(3, m.id, Buffer.from("{nope"))`],
    ["an unknown frame type", `(m, send) => send(9, m.id, Buffer.alloc(0))`],
  ])("%s stops the server: the command ends with 137 and the cause", async (_name, onRequest) => {
    const server = await up(onRequest);
    const r = await server.run(req);
    expect(r).toMatchObject({ exitCode: 137, timedOut: false });
    expect(r!.stderr.toString()).toMatch(/open-swe: the sandbox's command server sent a malformed frame while the command ran/);
    server.stop();
  });

  it("output past the cap is cut here even when the server sends it all", async () => {
    const server = await up(`(m, send) => { send(1, m.id, Buffer.alloc(100, "a")); send(2, m.id, Buffer.alloc(100, "b")); send(3, m.id, ${exitFrame(3)}); }`);
    const r = await server.run(req);
    expect(r).toMatchObject({ exitCode: 3, truncated: true, timedOut: false });
    expect(r!.stdout.toString()).toBe("a".repeat(16));
    expect(r!.stderr.toString()).toBe("b".repeat(16));
    server.stop();
  });

  it("a server that ignores a timeout's kill is stopped 2 s later: 124 with the cause", async () => {
    const server = await up(`() => {}`);
    const started = Date.now();
    const r = await server.run({ ...req, timeoutMs: 100 });
    expect(r).toMatchObject({ exitCode: 124, timedOut: true });
    expect(r!.stderr.toString()).toMatch(/did not stop a timed-out command/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
  });

  it("a server that exits mid-command ends it with 137; the next command gets a new server", async () => {
    const server = await up(`(m, send) => { if (m.cmd === "die") process.exit(1); send(3, m.id, ${exitFrame(0)}); }`);
    const r = await server.run({ ...req, cmd: "die" });
    expect(r).toMatchObject({ exitCode: 137 });
    expect(r!.stderr.toString()).toMatch(/command server stopped while the command ran/);
    expect(await server.run(req)).toBeUndefined(); // not up yet: the caller runs it another way
    expect(await server.start()).toBe(true);
    expect(await server.run(req)).toMatchObject({ exitCode: 0 });
    server.stop();
  });

  it("a server that exits before it is ready is no server: run says so (undefined) and the caller runs the command another way", async () => {
    const stopped = new CommandServer(async () => {
      const child = spawn(process.execPath, ["-e", "process.exit(3)"], { detached: true, stdio: ["pipe", "pipe", "pipe"] });
      return { child, exited: once(child, "exit") };
    }, 60_000);
    expect(await stopped.start()).toBe(false);
    expect(await stopped.run(req)).toBeUndefined();
  });

  it("a server stopped while it starts is not used (it may bind a workspace since remounted)", async () => {
    const server = fake(`(m, send) => send(3, m.id, ${exitFrame(0)})`);
    const starting = server.start();
    server.stop("was restarted for a new workspace mount");
    expect(await starting).toBe(false);
    expect(await server.start()).toBe(true);
    expect(await server.run(req)).toMatchObject({ exitCode: 0 });
    server.stop();
  });

  it("a launch that throws is no server either", async () => {
    const server = new CommandServer(() => Promise.reject(new Error("no bwrap")), 60_000);
    expect(await server.start()).toBe(false);
    expect(await server.run(req)).toBeUndefined();
  });
});
