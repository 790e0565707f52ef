import { z } from "zod";
import type { InboundRequest, SourceEvent, Verification } from "../source.js";
import { hostOf } from "../atlassian/host-of.js";
import { connectToken, verifyAsymmetric, type InstallKeyFetcher } from "./connect-jwt.js";
import type { ConnectInstalls } from "./install-store.js";
import type { ConnectTokenReplay } from "./token-replay.js";

const LifecycleBody = z.looseObject({
  key: z.string(),
  clientKey: z.string().min(1).max(256),
  baseUrl: z.url(),
  sharedSecret: z.string().min(16).max(1024).optional(),
  productType: z.string().optional(),
  eventType: z.enum(["installed", "uninstalled"]),
});

function body(req: InboundRequest): z.infer<typeof LifecycleBody> | null {
  try {
    const parsed = LifecycleBody.safeParse(JSON.parse(req.rawBody.toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export interface LifecycleOptions {
  appUrl: string;
  appKey: string;
  allowedSites: readonly string[];
  fetchInstallKey: InstallKeyFetcher;
  installs: ConnectInstalls;
  replay: ConnectTokenReplay;
}

/** A lifecycle callback is Atlassian's: RS256 by the key `kid` names, aud = us, iss = the body's clientKey, our app key. */
export async function verifyLifecycle(req: InboundRequest, eventType: "installed" | "uninstalled", o: LifecycleOptions): Promise<Verification> {
  const token = connectToken(req);
  if (!token) return { ok: false, reason: "no Authorization: JWT header" };
  const checked = await verifyAsymmetric(token, o.fetchInstallKey, req, o.appUrl);
  if (!checked.ok) return checked;
  const b = body(req);
  if (!b) return { ok: false, reason: "lifecycle body unreadable" };
  if (b.eventType !== eventType) return { ok: false, reason: `eventType ${b.eventType} on the ${eventType} callback` };
  if (b.clientKey !== checked.claims.iss) return { ok: false, reason: "clientKey is not the token's iss" };
  if (b.key !== o.appKey) return { ok: false, reason: "the callback is for another app key" };
  // A callback for an install we hold is a rotation (or its end): never one signed before the install we recorded.
  const recorded = await o.installs.installedAt(b.clientKey);
  if (recorded !== null && checked.claims.iat < recorded) return { ok: false, reason: `${eventType} callback signed before the recorded install` };
  if (!(await o.replay.firstUse(token, checked.claims.exp, req.receivedAt))) return { ok: false, reason: "Connect token already used" };
  return { ok: true, installKey: b.clientKey, issuedAt: checked.claims.iat };
}

/** After verification: store (sealed) or forget the install's shared secret; sites not allowed are refused. */
export async function applyLifecycle(req: InboundRequest, v: Extract<Verification, { ok: true }>, o: LifecycleOptions): Promise<SourceEvent> {
  const b = body(req)!;
  if (b.eventType === "uninstalled") {
    await o.installs.remove(b.clientKey);
    return { kind: "respond", status: 204, body: null };
  }
  const url = new URL(b.baseUrl);
  const host = hostOf(b.baseUrl);
  if (url.protocol !== "https:" || !host || !o.allowedSites.includes(host)) {
    return { kind: "respond", status: 403, body: { error: `site ${host ?? "?"} is not in CONFLUENCE_SITES` } };
  }
  if (!b.sharedSecret) return { kind: "respond", status: 400, body: { error: "installed callback without a sharedSecret" } };
  await o.installs.save({ clientKey: b.clientKey, baseUrl: `${url.origin}${url.pathname.replace(/\/+$/, "")}`, sharedSecret: b.sharedSecret }, v.issuedAt);
  return { kind: "respond", status: 204, body: null };
}
