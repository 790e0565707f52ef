import { lookup } from "node:dns/promises";
import { existsSync, unlinkSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { request, createServer, type Server } from "node:http";
import { BlockList, connect, isIP } from "node:net";
import { dirname } from "node:path";

/** Decides whether a sandbox may reach `address:port` (after DNS resolution of `host`). */
export type EgressPolicy = (dest: { host: string; address: string; port: number }) => boolean;

const internal = new BlockList();
for (const [net, bits] of [["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12], ["192.168.0.0", 16], ["198.18.0.0", 15], ["224.0.0.0", 4], ["240.0.0.0", 4]] as const) {
  internal.addSubnet(net, bits, "ipv4");
}
for (const [net, bits] of [["::", 128], ["::1", 128], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8]] as const) internal.addSubnet(net, bits, "ipv6");

/** Public internet only: loopback, private, link-local (cloud metadata) and multicast are refused. */
export const publicInternetOnly: EgressPolicy = ({ address }) => {
  const v4mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const a = v4mapped ?? address;
  return !internal.check(a, isIP(a) === 6 ? "ipv6" : "ipv4");
};

async function resolveAllowed(host: string, port: number, policy: EgressPolicy): Promise<string | undefined> {
  const bare = host.replace(/^\[|\]$/g, "");
  const address = isIP(bare) ? bare : (await lookup(bare)).address;
  return policy({ host: bare, address, port }) ? address : undefined;
}

/**
 * The host side of a network-on local sandbox: an HTTP proxy (CONNECT tunnels and plain HTTP) on a
 * unix socket, enforcing `policy` on every destination. Sandboxes reach it through a forwarder in
 * their own network namespace, so they never share the host's network (or its loopback services).
 */
export async function startEgressProxy(socketPath: string, policy: EgressPolicy = publicInternetOnly): Promise<Server> {
  await mkdir(dirname(socketPath), { recursive: true });
  if (existsSync(socketPath)) unlinkSync(socketPath);
  const server = createServer((req, res) => {
    void (async () => {
      let url: URL;
      try {
        url = new URL(req.url ?? "");
      } catch {
        res.writeHead(400).end("absolute URL required\n");
        return;
      }
      const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
      const address = await resolveAllowed(url.hostname, port, policy).catch(() => undefined);
      if (!address || url.protocol !== "http:") {
        res.writeHead(403).end(`egress to ${url.host} is not allowed\n`);
        return;
      }
      const upstream = request({ host: address, port, method: req.method, path: `${url.pathname}${url.search}`, headers: { ...req.headers, host: url.host } }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      upstream.on("error", () => res.destroy());
      req.pipe(upstream);
    })();
  });
  server.on("connect", (req, client, head) => {
    void (async () => {
      const m = /^(.+):(\d+)$/.exec(req.url ?? "");
      const host = m?.[1] ?? "";
      const port = Number(m?.[2] ?? 0);
      const address = m ? await resolveAllowed(host, port, policy).catch(() => undefined) : undefined;
      if (!address) {
        client.end(`HTTP/1.1 403 Forbidden\r\n\r\negress to ${req.url ?? "?"} is not allowed\n`);
        return;
      }
      const upstream = connect(port, address, () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on("error", () => client.destroy());
      client.on("error", () => upstream.destroy());
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, resolve);
  });
  server.unref();
  return server;
}
