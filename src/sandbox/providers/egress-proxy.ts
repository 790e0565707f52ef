import { lookup as dnsLookup } from "node:dns/promises";
import { existsSync, unlinkSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { createServer as createNetServer } from "node:net";
import { createServer, request, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from "node:http";
import { connect, isIP, type Socket } from "node:net";
import { dirname } from "node:path";
import { refusedAddress, refusedByName, type EgressRules } from "./egress-policy.js";

/** Resolves every address of a name (injected in tests). */
export type EgressLookup = (host: string) => Promise<string[]>;

const systemLookup: EgressLookup = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

export const EGRESS_LIMITS = {
  /** The shared part of the proxy holds this many sandboxes' whole quotas at once (`egressCapacity`). */
  sandboxesAtQuota: 8,
  /** Connections a sandbox holding fewer than this may still open when the shared part is full. */
  guaranteedPerSandbox: 8,
  /** How many sandboxes the reserve beyond the shared part gives their guaranteed connections. */
  reservedSandboxes: 32,
  headersTimeoutMs: 20_000,
  dnsTimeoutMs: 10_000,
  connectTimeoutMs: 15_000,
  /** A tunnel or upstream exchange with no byte either way for this long is closed. */
  idleMs: 300_000,
  /** A tunnel that has carried no byte at all for this long is closed (held open, it only takes a slot). */
  quietMs: 30_000,
  /** Connections one sandbox may hold at once, unless the rules say otherwise (`SANDBOX_EGRESS_MAX_CONNECTIONS`). */
  perSandbox: 128,
  /** The forwarder's first line names the sandbox; it arrives at once or the connection is dropped. */
  preambleMs: 10_000,
  /** After a refusal, how long the proxy keeps reading (and dropping) what the client still sends before it closes. */
  lingerMs: 2_000,
} as const;

/**
 * The proxy's connection limits for a per-sandbox quota: `shared` connections any sandbox may take up
 * to its quota (room for `sandboxesAtQuota` whole quotas), then a `reserve` only a sandbox holding
 * fewer than `guaranteed` may take from, so sandboxes already at their quota — however many one tenant
 * starts — cannot leave a new sandbox without a connection. `total` (shared + reserve) is the most the
 * proxy holds from sandboxes at once.
 */
export function egressCapacity(perSandbox: number): { shared: number; guaranteed: number; reserve: number; total: number } {
  const shared = perSandbox * EGRESS_LIMITS.sandboxesAtQuota;
  const guaranteed = Math.min(perSandbox, EGRESS_LIMITS.guaranteedPerSandbox);
  const reserve = guaranteed * EGRESS_LIMITS.reservedSandboxes;
  return { shared, guaranteed, reserve, total: shared + reserve };
}

/** The line each forwarder connection starts with: `OSW-SANDBOX <id>\n`. */
const PREAMBLE = "OSW-SANDBOX ";

const HOP_BY_HOP = new Set(["connection", "proxy-connection", "keep-alive", "proxy-authorization", "proxy-authenticate", "te", "trailer", "transfer-encoding", "upgrade"]);
const HOST_RE = /^(?:[a-z0-9_](?:[a-z0-9_-]{0,62})?\.)*[a-z0-9_](?:[a-z0-9_-]{0,62})?\.?$/i;

/** A refusal or failure with the status the sandbox sees and one line saying why. */
class EgressRefusal extends Error {
  constructor(
    readonly status: 400 | 403 | 502 | 504,
    message: string,
  ) {
    super(message);
  }
}

const REASONS: Record<number, string> = { 400: "Bad Request", 403: "Forbidden", 429: "Too Many Requests", 502: "Bad Gateway", 504: "Gateway Timeout" };

function withTimeout<T>(p: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(onTimeout()), ms)))]).finally(() => clearTimeout(timer));
}

/** The one address to connect to for `host:port`, or the refusal (403 by policy, 502/504 when DNS fails). */
async function destination(rules: EgressRules, lookup: EgressLookup, host: string, port: number): Promise<string> {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new EgressRefusal(400, `bad port in ${host}:${port}`);
  const bare = host.replace(/^\[|\]$/g, "");
  if (!isIP(bare) && !HOST_RE.test(bare)) throw new EgressRefusal(400, `bad host name "${bare.slice(0, 100)}"`);
  const byName = refusedByName(rules, bare);
  if (byName) throw new EgressRefusal(403, `egress to ${bare} is not allowed: ${byName}`);
  let addresses: string[];
  if (isIP(bare)) addresses = [bare];
  else {
    try {
      addresses = await withTimeout(lookup(bare), EGRESS_LIMITS.dnsTimeoutMs, () => new EgressRefusal(504, `DNS lookup of ${bare} timed out`));
    } catch (err) {
      if (err instanceof EgressRefusal) throw err;
      const code = (err as NodeJS.ErrnoException).code ?? "error";
      throw new EgressRefusal(502, `DNS lookup of ${bare} failed (${code}): the name does not resolve from the worker`);
    }
    if (addresses.length === 0) throw new EgressRefusal(502, `DNS lookup of ${bare} returned no address`);
  }
  // Every answer must pass: one internal address among public ones is a rebinding trick.
  for (const address of addresses) {
    const why = refusedAddress(rules, address, port);
    if (why) throw new EgressRefusal(403, `egress to ${isIP(bare) === 6 ? `[${bare}]` : bare}:${port} is not allowed: ${why}`);
  }
  return addresses[0]!;
}

function refusalOf(err: unknown): EgressRefusal {
  return err instanceof EgressRefusal ? err : new EgressRefusal(502, `egress proxy error: ${err instanceof Error ? err.message : String(err)}`);
}

function rawReply(socket: Socket, status: number, text: string): void {
  if (socket.destroyed) return;
  const body = `${text.replace(/[\r\n]+/g, " ")}\n`;
  // Closing with the client's bytes unread (a refused sandbox's CONNECT, say) resets the connection, and a reset can
  // discard this reply before the client reads it: drain what it still sends, then close when it does (or after lingerMs).
  socket.resume();
  socket.end(`HTTP/1.1 ${status} ${REASONS[status] ?? "Error"}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  setTimeout(() => socket.destroy(), EGRESS_LIMITS.lingerMs).unref();
}

function refuse(res: ServerResponse, err: unknown): void {
  const r = refusalOf(err);
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  const body = `${r.message.replace(/[\r\n]+/g, " ")}\n`;
  try {
    res.writeHead(r.status, { "content-type": "text/plain", "content-length": Buffer.byteLength(body), connection: "close" }).end(body);
  } catch {
    res.destroy();
  }
}

/** Copies headers a proxy may forward: drops hop-by-hop ones and any named by `Connection`. */
function forwardable(raw: string[]): OutgoingHttpHeaders {
  const named = new Set(HOP_BY_HOP);
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === "connection") for (const n of raw[i + 1]!.split(",")) named.add(n.trim().toLowerCase());
  }
  const out: Record<string, string | string[]> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const k = raw[i]!.toLowerCase();
    const v = raw[i + 1]!;
    if (named.has(k)) continue;
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

async function proxyHttp(rules: EgressRules, lookup: EgressLookup, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let url: URL;
  try {
    url = new URL(req.url ?? "");
  } catch {
    throw new EgressRefusal(400, "a proxy request needs an absolute http:// URL");
  }
  if (url.protocol !== "http:") throw new EgressRefusal(400, `${url.protocol} through the proxy needs CONNECT (HTTPS_PROXY)`);
  const port = Number(url.port || 80);
  const address = await destination(rules, lookup, url.hostname, port);
  const headers = forwardable(req.rawHeaders);
  headers.host = url.host;
  await new Promise<void>((resolve, reject) => {
    const upstream = request({ host: address, port, method: req.method, path: `${url.pathname}${url.search}`, headers, setHost: false, timeout: EGRESS_LIMITS.connectTimeoutMs });
    upstream.on("timeout", () => upstream.destroy(new EgressRefusal(504, `no answer from ${url.host}`)));
    upstream.on("error", (err) => reject(err instanceof EgressRefusal ? err : new EgressRefusal(502, `upstream ${url.host} failed: ${(err as NodeJS.ErrnoException).code ?? err.message}`)));
    upstream.on("response", (up) => {
      up.on("error", () => res.destroy());
      const status = up.statusCode ?? 0;
      if (status < 200 || status > 599) {
        up.destroy();
        reject(new EgressRefusal(502, `upstream ${url.host} sent an invalid status ${status}`));
        return;
      }
      try {
        res.writeHead(status, forwardable(up.rawHeaders));
      } catch {
        up.destroy();
        reject(new EgressRefusal(502, `upstream ${url.host} sent headers that cannot be forwarded`));
        return;
      }
      upstream.setTimeout(EGRESS_LIMITS.idleMs);
      up.pipe(res);
      up.on("end", () => resolve());
    });
    res.on("close", () => {
      upstream.destroy();
      resolve();
    });
    req.pipe(upstream);
  });
}

function tunnel(rules: EgressRules, lookup: EgressLookup, req: IncomingMessage, client: Socket, head: Buffer, quietMs: number): void {
  client.pause();
  const target = req.url ?? "";
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+):(\d{1,5})$/i.exec(target);
  if (!m) {
    rawReply(client, 400, `CONNECT needs host:port, not "${target.slice(0, 100)}"`);
    return;
  }
  destination(rules, lookup, m[1]!, Number(m[2])).then(
    (address) => {
      if (client.destroyed) return;
      const upstream = connect({ host: address, port: Number(m[2]), timeout: EGRESS_LIMITS.connectTimeoutMs });
      let open = false;
      upstream.on("timeout", () => {
        if (open) upstream.destroy();
        else {
          upstream.destroy();
          rawReply(client, 504, `no answer from ${target}`);
        }
      });
      upstream.on("error", (err: NodeJS.ErrnoException) => {
        if (open) client.destroy();
        else rawReply(client, 502, `cannot connect to ${target}: ${err.code ?? err.message}`);
      });
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
      // The sandbox half-closing its side ends the tunnel: a half-open tunnel only holds two sockets.
      client.on("end", () => {
        upstream.destroy();
        client.destroy();
      });
      upstream.once("connect", () => {
        open = true;
        upstream.setTimeout(EGRESS_LIMITS.idleMs);
        client.setTimeout(EGRESS_LIMITS.idleMs, () => client.destroy());
        if (head.length === 0) {
          // A tunnel that never carries a byte is closed after `quietMs`.
          const quiet = setTimeout(() => client.destroy(), quietMs);
          const moved = () => clearTimeout(quiet);
          client.once("data", moved);
          upstream.once("data", moved);
          client.once("close", moved);
        }
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
    },
    (err: unknown) => {
      const r = refusalOf(err);
      rawReply(client, r.status, r.message);
    },
  );
}

/** Runs `fn`, turning a synchronous throw into a call of `onError`: no callback of the proxy may throw. */
function guarded(fn: () => void, onError: (err: unknown) => void): void {
  try {
    fn();
  } catch (err) {
    try {
      onError(err);
    } catch {
      // nothing more to do for this connection
    }
  }
}

/**
 * The host side of a network-on local sandbox: an HTTP proxy (CONNECT tunnels and plain HTTP) on a
 * unix socket, enforcing `rules` on every destination. Sandboxes reach it through a forwarder in their
 * own network namespace. It runs in its own process (egress-proxy-main.ts, supervised by the worker),
 * and is written so that no byte a sandbox or a remote sends can make it throw.
 */
export async function startEgressProxy(socketPath: string, rules: EgressRules, lookup: EgressLookup = systemLookup, limits: { quietMs?: number } = {}): Promise<Server> {
  await mkdir(dirname(socketPath), { recursive: true });
  if (existsSync(socketPath)) unlinkSync(socketPath);
  const server = createServer({ headersTimeout: EGRESS_LIMITS.headersTimeoutMs, requestTimeout: 0, keepAliveTimeout: 5_000 });
  const quietMs = limits.quietMs ?? EGRESS_LIMITS.quietMs;
  const perSandbox = rules.maxConnectionsPerSandbox ?? EGRESS_LIMITS.perSandbox;
  // The unix socket is a plain listener: it reads the forwarder's line naming the sandbox, applies that
  // sandbox's quota, then hands the connection to the HTTP server with the sandbox's bytes unread.
  const capacity = egressCapacity(perSandbox);
  const open: OpenCounts = { bySandbox: new Map(), total: 0 };
  const front = createNetServer((socket: Socket) => {
    socket.on("error", () => socket.destroy());
    admit(socket, open, perSandbox, capacity, (s) => server.emit("connection", s));
  });
  // The hard ceiling on sockets accepted: admitted ones, and room for those still sending their line or
  // being refused (a refusal lingers up to lingerMs) — connections naming no sandbox (a test's) count only here.
  front.maxConnections = capacity.total * 2;
  server.on("connection", (socket: Socket) => {
    socket.on("error", () => socket.destroy());
    socket.setTimeout(EGRESS_LIMITS.idleMs, () => socket.destroy());
  });
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => {
    const status = err.code === "HPE_HEADER_OVERFLOW" ? 431 : err.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
    guarded(
      () =>
        socket.writable
          ? socket.end(`HTTP/1.1 ${status} ${status === 431 ? "Request Header Fields Too Large" : status === 408 ? "Request Timeout" : "Bad Request"}\r\nConnection: close\r\n\r\n`)
          : socket.destroy(),
      () => socket.destroy(),
    );
    socket.destroySoon?.();
  });
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    req.on("error", () => res.destroy());
    res.on("error", () => res.destroy());
    guarded(
      () => void proxyHttp(rules, lookup, req, res).catch((err: unknown) => refuse(res, err)),
      (err) => refuse(res, err),
    );
  });
  server.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
    client.on("error", () => client.destroy());
    guarded(
      () => tunnel(rules, lookup, req, client, head, quietMs),
      (err) => rawReply(client, refusalOf(err).status, refusalOf(err).message),
    );
  });
  // A WebSocket upgrade through a plain-HTTP proxy is not supported: say so instead of hanging.
  server.on("upgrade", (_req: IncomingMessage, socket: Socket) => {
    socket.on("error", () => socket.destroy());
    rawReply(socket, 400, "upgrades are not supported through the egress proxy; use CONNECT");
  });
  server.on("error", () => {
    // later server errors must not throw
  });
  front.on("error", () => {
    // listen errors are reported below; later ones must not throw
  });
  await new Promise<void>((resolve, reject) => {
    front.once("error", reject);
    front.listen(socketPath, () => {
      front.off("error", reject);
      resolve();
    });
  });
  // Closing the returned server closes the listener too.
  const close = server.close.bind(server);
  server.close = ((cb?: (err?: Error) => void) => {
    front.close();
    return close(cb);
  }) as typeof server.close;
  return server;
}

/** Connections held through the proxy, per sandbox and in all. */
interface OpenCounts {
  bySandbox: Map<string, number>;
  total: number;
}

/**
 * Why a sandbox holding `held` connections may not open another while sandboxes hold `total`, or null
 * when it may: its quota, then the shared part (full: only a sandbox under its guaranteed share goes
 * on, into the reserve), then the reserve.
 */
function egressRefusal(held: number, total: number, perSandbox: number, capacity: ReturnType<typeof egressCapacity>): string | null {
  if (held >= perSandbox) return `this sandbox already holds ${perSandbox} connections through the egress proxy (SANDBOX_EGRESS_MAX_CONNECTIONS); close some first`;
  if (total < capacity.shared) return null;
  if (held < capacity.guaranteed && total < capacity.total) return null;
  return `the egress proxy is full (${total} connections from sandboxes); this sandbox holds ${held}, past the ${capacity.guaranteed} each is guaranteed; close some first`;
}

/**
 * Reads the forwarder's `OSW-SANDBOX <id>` line (a connection without it — a test's, say — counts
 * against no sandbox), refuses the connection with a 429 when that sandbox already holds its quota or
 * the proxy has no room it may take (`egressRefusal`), and otherwise passes it on with everything
 * after the line unread.
 */
function admit(socket: Socket, open: OpenCounts, perSandbox: number, capacity: ReturnType<typeof egressCapacity>, pass: (s: Socket) => void): void {
  let buf = Buffer.alloc(0);
  const timer = setTimeout(() => socket.destroy(), EGRESS_LIMITS.preambleMs);
  const done = (id: string | null, rest: Buffer) => {
    clearTimeout(timer);
    socket.off("data", onData);
    socket.pause();
    if (id !== null) {
      const n = open.bySandbox.get(id) ?? 0;
      const refusal = egressRefusal(n, open.total, perSandbox, capacity);
      if (refusal !== null) {
        rawReply(socket, 429, refusal);
        return;
      }
      open.bySandbox.set(id, n + 1);
      open.total += 1;
      socket.once("close", () => {
        open.total -= 1;
        const left = (open.bySandbox.get(id) ?? 1) - 1;
        if (left <= 0) open.bySandbox.delete(id);
        else open.bySandbox.set(id, left);
      });
    }
    if (rest.length > 0) socket.unshift(rest);
    guarded(
      () => pass(socket),
      () => socket.destroy(),
    );
    socket.resume();
  };
  const onData = (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    const head = buf.subarray(0, PREAMBLE.length).toString("latin1");
    if (!PREAMBLE.startsWith(head) && !head.startsWith(PREAMBLE)) return done(null, buf);
    if (buf.length < PREAMBLE.length) return;
    const nl = buf.indexOf(10);
    if (nl < 0) {
      if (buf.length > 200) socket.destroy();
      return;
    }
    const id = buf.subarray(PREAMBLE.length, nl).toString("latin1");
    if (!/^[\w.-]{1,100}$/.test(id)) return void socket.destroy();
    done(id, buf.subarray(nl + 1));
  };
  socket.on("data", onData);
  socket.once("close", () => clearTimeout(timer));
}
