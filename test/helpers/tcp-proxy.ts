import { connect, createServer, type Socket } from "node:net";

/** A TCP proxy a test owns between one process and Redis: the network between them, which the test can break. */
export interface TcpProxy {
  /** `redis://127.0.0.1:<port>`: give it to the process to partition. */
  url: string;
  /** Stops forwarding bytes either way; every connection stays open (a partition: nothing arrives, nothing is refused). */
  freeze(): void;
  /** Resets every connection, and every new one, until `resume` (a partition the client notices). */
  cut(): void;
  /** Forwards again, what was held back first. */
  resume(): void;
  close(): Promise<void>;
}

type Mode = "open" | "frozen" | "cut";

/** Listens on a loopback port and forwards each connection to `target` (a unix socket path). */
export async function startTcpProxy(target: { path: string }): Promise<TcpProxy> {
  let mode: Mode = "open";
  const pairs = new Set<{ client: Socket; upstream: Socket; held: [Socket, Buffer][] }>();
  const server = createServer((client) => {
    if (mode === "cut") return void client.resetAndDestroy();
    const upstream = connect(target.path);
    const pair = { client, upstream, held: [] as [Socket, Buffer][] };
    pairs.add(pair);
    const forward = (from: Socket, to: Socket) =>
      from.on("data", (chunk) => {
        if (mode === "open") to.write(chunk);
        else if (mode === "frozen") pair.held.push([to, chunk]);
      });
    forward(client, upstream);
    forward(upstream, client);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    if (mode === "frozen") pause(pair);
  });
  const pause = (p: { client: Socket; upstream: Socket }) => (p.client.pause(), p.upstream.pause());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${port}`,
    freeze() {
      mode = "frozen";
      for (const p of pairs) pause(p);
    },
    cut() {
      mode = "cut";
      for (const p of [...pairs]) {
        p.client.resetAndDestroy();
        p.upstream.destroy();
      }
    },
    resume() {
      mode = "open";
      for (const p of pairs) {
        for (const [to, chunk] of p.held.splice(0)) to.write(chunk);
        p.client.resume();
        p.upstream.resume();
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const p of [...pairs]) p.client.destroy(), p.upstream.destroy();
        server.close(() => resolve());
      }),
  };
}
