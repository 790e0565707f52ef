import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { rateLimitedLog } from "../logger.js";
import { jobId } from "../queue/job-ids.js";
import type { QueueSet } from "../queue/queues.js";
import type { SourceDedupe } from "../sources/dedupe.js";
import type { SourceRegistry } from "../sources/registry.js";
import type { InboundRequest, Source, SourceRoute } from "../sources/source.js";
import { readRawBytes, sendJson } from "../net/raw-body.js";
import { routedPath } from "./webhook-body-limit.js";

export interface SourceRoutesDeps {
  sources: SourceRegistry;
  queues: QueueSet;
  dedupe: SourceDedupe;
  maxBytes: number;
  log: Logger;
}

/** The `source-event` job id of one event: the same for every redelivery. */
export function sourceEventJobId(source: string, dedupeKey: string): string {
  return jobId("src", source, dedupeKey);
}

const refuse = (res: ServerResponse, unread = false, reason?: string) => {
  // A body we did not read is not drained: `connection: close` ends the socket once the answer is out.
  const why = reason === undefined ? {} : { "www-authenticate": `Signature error="${reason.replace(/[^\x20-\x7e]|["\\]/g, "'").slice(0, 200)}"` };
  res.writeHead(401, { "content-length": 0, ...why, ...(unread ? { connection: "close" } : {}) }).end();
  return true;
};

/** Pure: does the request carry at least one of the route's signature headers (none declared: yes)? */
export function hasSignatureHeader(headers: IncomingHttpHeaders, names: readonly string[]): boolean {
  return (
    names.length === 0 ||
    names.some((n) => {
      const v = headers[n];
      return typeof v === "string" ? v.length > 0 : Array.isArray(v) && v.length > 0;
    })
  );
}

/**
 * The source routes, ahead of Probot: a source whose secret is unset, or a request without any of the
 * route's signature headers, is a bare 401 before the body is read → read the bytes under the body limit
 * (`SOURCE_MAX_BODY_BYTES`, 413 as soon as it is passed) → verify (401, no detail, on any failure) →
 * parse → answer, ignore, or claim the event once and queue one `source-event` job.
 */
export function sourceRoutes(deps: SourceRoutesDeps) {
  const table = new Map<string, { source: Source; route: SourceRoute }>();
  for (const source of deps.sources.values()) for (const route of source.routes) table.set(`${route.method} ${route.path}`, { source, route });
  const refused = rateLimitedLog(deps.log, "source request refused");
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const path = routedPath(req.url ?? "");
    const hit = path === null ? undefined : table.get(`${req.method ?? ""} ${path}`);
    if (!hit) return false;
    const { source, route } = hit;
    // Decided on the headers, before a byte of the body is read: an unsigned request costs nothing.
    const explain = (reason: string) => (route.explainRefusal ? reason : undefined);
    if (!source.configured || route.configured === false) {
      refused({ source: source.name, path, reason: "secret not set" });
      return refuse(res, true, explain("not configured on this server"));
    }
    if (!hasSignatureHeader(req.headers, route.signatureHeaders)) {
      refused({ source: source.name, path, reason: "no signature header" });
      return refuse(res, true, explain("no signature header"));
    }
    const read = await readRawBytes(req, deps.maxBytes);
    if (!read.ok) {
      res.setHeader("connection", "close");
      return sendJson(res, read.status, { error: read.reason });
    }
    const inbound: InboundRequest = { method: req.method ?? "POST", url: req.url ?? path!, headers: req.headers, rawBody: read.body, receivedAt: new Date() };
    const verification = await route.verify(inbound).catch((err: unknown) => ({ ok: false as const, reason: `verifier failed: ${String(err)}` }));
    if (!verification.ok) {
      refused({ source: source.name, path, reason: verification.reason });
      return refuse(res, false, explain(verification.reason));
    }
    const event = await Promise.resolve()
      .then(() => route.parse(inbound, verification))
      .catch((err: unknown) => {
        deps.log.warn({ source: source.name, err: String(err) }, "source payload could not be parsed");
        return null;
      });
    if (event === null) return sendJson(res, 400, { error: "the payload could not be read" });
    const log = deps.log.child({ source: source.name });
    switch (event.kind) {
      case "respond":
        return sendJson(res, event.status, event.body);
      case "ignore":
        if (event.unaddressed) log.info({ reason: event.reason }, "source message ignored: it mentions none of our handles");
        else log.debug({ reason: event.reason }, "source event ignored");
        return sendJson(res, 200, { ok: true });
      case "mention": {
        if (!(await deps.dedupe.claim(source.name, event.dedupeKey))) {
          log.info({ dedupeKey: event.dedupeKey }, "source event already received: not queued again");
          return sendJson(res, 200, { ok: true, duplicate: true });
        }
        const id = sourceEventJobId(source.name, event.dedupeKey);
        try {
          await deps.queues.add(
            "source-event",
            {
              source: source.name,
              threadKey: event.threadKey,
              text: event.text,
              user: event.user,
              ref: event.ref,
              dedupeKey: event.dedupeKey,
              ...(event.repoDefaultKey ? { repoDefaultKey: event.repoDefaultKey } : {}),
              ...(event.action ? { action: event.action } : {}),
            },
            id,
            { via: source.name },
          );
        } catch (err) {
          // Nothing was queued: the claim goes back so the source's retry is accepted.
          await deps.dedupe.release(source.name, event.dedupeKey).catch(() => undefined);
          log.error({ err: String(err), dedupeKey: event.dedupeKey }, "source event could not be queued");
          return sendJson(res, 503, { error: "could not queue the event; retry later" });
        }
        log.info({ jobId: id, threadKey: event.threadKey }, "source event queued");
        return sendJson(res, 200, { ok: true });
      }
    }
  };
}
