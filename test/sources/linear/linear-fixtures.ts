import { createHmac } from "node:crypto";
import { readConfig, type Env } from "../../../src/config/env.js";
import type { InboundRequest } from "../../../src/sources/source.js";

export const SECRET = "lin_wh_test_secret";
export const APP_USER = "app-user-0001";
export const ALICE = { id: "user-alice", name: "Alice", email: "alice@example.com" };
export const ISSUE = "issue-0001";
export const TEAM = "team-0001";

export function linearEnv(extra: Record<string, string> = {}): Env {
  return readConfig({
    LINEAR_WEBHOOK_SECRET: SECRET,
    LINEAR_API_KEY: "lin_api_test",
    LINEAR_APP_USER_ID: APP_USER,
    ...extra,
  }).env;
}

export function signLinear(raw: string | Buffer, secret = SECRET): string {
  return createHmac("sha256", secret).update(raw).digest("hex");
}

/** A Linear delivery as our route sees it; signed with `secret` unless `signature` is given. */
export function linearRequest(body: unknown, opts: { secret?: string; signature?: string | null; delivery?: string | null; receivedAt?: Date; raw?: string } = {}): InboundRequest {
  const raw = opts.raw ?? JSON.stringify(body);
  const headers: InboundRequest["headers"] = { "content-type": "application/json; charset=utf-8", "linear-event": "Comment" };
  const signature = opts.signature === undefined ? signLinear(raw, opts.secret) : opts.signature;
  if (signature !== null) headers["linear-signature"] = signature;
  const delivery = opts.delivery === undefined ? "0b9c5c8e-6f0a-4d3e-9b1a-1a2b3c4d5e6f" : opts.delivery;
  if (delivery !== null) headers["linear-delivery"] = delivery;
  return { method: "POST", url: "/webhooks/linear", headers, rawBody: Buffer.from(raw), receivedAt: opts.receivedAt ?? new Date() };
}

type Obj = Record<string, unknown>;

export function commentEvent(data: Obj = {}, envelope: Obj = {}): Obj {
  return {
    action: "create",
    type: "Comment",
    createdAt: new Date().toISOString(),
    actor: { ...ALICE, type: "user", url: "https://linear.app/acme/profiles/alice" },
    data: {
      id: "comment-0001",
      body: "@open-swe please fix the flaky login test",
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
      issueId: ISSUE,
      issue: { id: ISSUE, identifier: "ENG-1", title: "Flaky login test", teamId: TEAM, url: "https://linear.app/acme/issue/ENG-1" },
      userId: ALICE.id,
      user: { ...ALICE, url: "https://linear.app/acme/profiles/alice" },
      reactionData: [],
      ...data,
    },
    url: "https://linear.app/acme/issue/ENG-1#comment-0001",
    organizationId: "org-0001",
    webhookId: "webhook-0001",
    webhookTimestamp: Date.now(),
    ...envelope,
  };
}

export function issueEvent(data: Obj = {}, envelope: Obj = {}): Obj {
  return {
    action: "update",
    type: "Issue",
    createdAt: new Date().toISOString(),
    actor: { ...ALICE, type: "user", url: "https://linear.app/acme/profiles/alice" },
    data: {
      id: ISSUE,
      identifier: "ENG-1",
      title: "Flaky login test",
      description: "It fails one run in ten.",
      teamId: TEAM,
      assigneeId: APP_USER,
      labelIds: [],
      labels: [],
      stateId: "state-1",
      ...data,
    },
    updatedFrom: { assigneeId: null, updatedAt: new Date().toISOString() },
    url: "https://linear.app/acme/issue/ENG-1",
    organizationId: "org-0001",
    webhookId: "webhook-0001",
    webhookTimestamp: Date.now(),
    ...envelope,
  };
}
