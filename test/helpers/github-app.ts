import { generateKeyPairSync, randomUUID } from "node:crypto";
import { sign } from "@octokit/webhooks-methods";
import nock from "nock";
import { readConfig, type AppConfig } from "../../src/config/env.js";
import { countExcused, countExternal } from "../contracts/nock-contract.js";
import { checkWebhook } from "../contracts/github-webhooks.js";

let cachedKey: string | undefined;

/** A throwaway RSA key: Probot signs real app JWTs with it; GitHub's side is nock. */
export function testPrivateKey(): string {
  cachedKey ??= generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();
  return cachedKey;
}

export const WEBHOOK_SECRET = "test-webhook-secret";

export function testConfig(overrides: Record<string, string> = {}): AppConfig {
  return readConfig({
    APP_ID: "12345",
    PRIVATE_KEY: testPrivateKey(),
    WEBHOOK_SECRET,
    LOG_LEVEL: "silent",
    ...overrides,
  });
}

export interface SignedDelivery {
  event: string;
  payload: unknown;
  deliveryId?: string;
  secret?: string;
  rawBody?: string;
  /**
   * Why this delivery is one GitHub would never send (an attack, a malformed body): it then skips the
   * webhook contract, and `npm run test:contracts` counts it as excused.
   */
  offContract?: string;
}

/**
 * POSTs a webhook signed exactly as GitHub does (HMAC-SHA256 of the raw body). The payload must follow
 * GitHub's webhook description for its event and action (test/contracts/github-webhooks.ts).
 */
export async function sendWebhook(port: number, d: SignedDelivery): Promise<{ status: number; body: string; deliveryId: string }> {
  const body = d.rawBody ?? JSON.stringify(d.payload);
  const off = countWebhook(d.event, body, d.offContract);
  if (off.length > 0) throw new Error(`webhook fixture off GitHub's contract:\n  ${off.join("\n  ")}`);
  const deliveryId = d.deliveryId ?? randomUUID();
  const res = await fetch(`http://127.0.0.1:${port}/api/github/webhooks`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": d.event,
      "x-github-delivery": deliveryId,
      "x-hub-signature-256": await sign(d.secret ?? WEBHOOK_SECRET, body),
    },
    body,
  });
  return { status: res.status, body: await res.text(), deliveryId };
}

/** nock for the installation-token exchange every worker job starts with. */
export function mockInstallationToken(installationId: number, times = 1): nock.Scope {
  return nock("https://api.github.com")
    .post(`/app/installations/${installationId}/access_tokens`)
    .times(times)
    .reply(201, { token: "ghs_test_installation_token", expires_at: new Date(Date.now() + 3600_000).toISOString() });
}

/**
 * An Actions job's log as GitHub serves it: a 302 from api.github.com to a short-lived log URL (which
 * fetch follows), then the text.
 */
export function nockJobLogs(api: string, jobId: number, text: string, repo = "octo/hello"): void {
  nock(api)
    .get(`/repos/${repo}/actions/jobs/${jobId}/logs`)
    .reply(302, "", { location: `https://pipelines.actions.githubusercontent.com/logs/${jobId}?sig=test` });
  nock("https://pipelines.actions.githubusercontent.com").get(`/logs/${jobId}`).query({ sig: "test" }).reply(200, text, { "content-type": "text/plain" });
}

/** An `issue_comment.created` payload as GitHub sends it (only the fields the app reads). */
export function issueCommentPayload(o: {
  installationId: number;
  number: number;
  issueId: number;
  commentId: number;
  body: string;
  login?: string;
  userId?: number;
  pullRequest?: boolean;
  /** The issue's (or PR's) own body and author. */
  issueBody?: string;
  issueAuthor?: string;
}) {
  const user = { login: o.login ?? "dana", id: o.userId ?? 31, type: "User" };
  return {
    action: "created",
    installation: { id: o.installationId },
    repository: { name: "hello", full_name: "octo/hello", owner: { login: "octo" } },
    sender: user,
    issue: {
      number: o.number,
      id: o.issueId,
      ...(o.pullRequest ? { pull_request: { url: "x" } } : {}),
      ...(o.issueBody !== undefined ? { body: o.issueBody } : {}),
      ...(o.issueAuthor ? { user: { login: o.issueAuthor, id: 7, type: o.issueAuthor.endsWith("[bot]") ? "Bot" : "User" } } : {}),
    },
    comment: { id: o.commentId, body: o.body, user },
  };
}

/** A GitHub Actions `check_run` that completed red on an octo/hello PR, as GitHub delivers it. */
export function failedCheckRunDelivery(o: { installationId: number; checkRunId: number; name: string; headSha: string; branch: string; pr: number }): SignedDelivery {
  return {
    event: "check_run",
    payload: {
      action: "completed",
      installation: { id: o.installationId },
      repository: { name: "hello", full_name: "octo/hello", owner: { login: "octo" } },
      sender: { login: "github-actions[bot]", id: 41898282, type: "Bot" },
      check_run: {
        id: o.checkRunId,
        name: o.name,
        status: "completed",
        conclusion: "failure",
        head_sha: o.headSha,
        html_url: "x",
        app: { slug: "github-actions" },
        check_suite: { head_branch: o.branch },
        pull_requests: [{ number: o.pr }],
      },
    },
  };
}

/**
 * What an agent run on octo/hello asks GitHub before it works, for a writer: the permission, the
 * requester's profile, the repo config (none, here or in `octo/.github`), the default branch, open PRs (none).
 */
export function nockRunStart(api: string, login: string): void {
  nock(api).get(`/repos/octo/hello/collaborators/${login}/permission`).reply(200, { permission: "write", role_name: "write" });
  nock(api).get(`/users/${login}`).reply(200, { login, id: 31 });
  nock(api).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
  nock(api).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
  nock(api).get("/repos/octo/hello").reply(200, { default_branch: "main" });
  nock(api).get("/repos/octo/hello/pulls").query(true).reply(200, []);
}

function countWebhook(event: string, body: string, offContract: string | undefined): string[] {
  if (offContract !== undefined) {
    countExcused();
    return [];
  }
  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch {
    return [`webhook ${event}: the body is not JSON (say why with offContract)`];
  }
  return countExternal("validated", checkWebhook(event, payload));
}

/**
 * GitHub's answer to "what is `login`'s role on `repo`" (the collaborator permission endpoint the
 * dashboard asks before showing a run and before acting), with the installation token it is asked
 * with (optional: a process holding the token asks none): one line for a test that reads a run page.
 * `times` answers; `persist` answers every time; `optional` when the answer may still be cached.
 */
export function mockRepoRole(login: string, role = "write", opts: { repo?: string; times?: number; persist?: boolean; optional?: boolean; installationId?: number } = {}): nock.Scope {
  // The process may hold the installation's token already.
  nock("https://api.github.com")
    .post(`/app/installations/${opts.installationId ?? 4242}/access_tokens`)
    .optionally()
    .reply(201, { token: "ghs_test_installation_token", expires_at: new Date(Date.now() + 3600_000).toISOString() });
  const scope = nock("https://api.github.com")
    .get(`/repos/${opts.repo ?? "octo/hello"}/collaborators/${login}/permission`)
    .times(opts.times ?? 1)
    .optionally(opts.optional ?? false)
    .reply(200, { permission: role, role_name: role });
  return opts.persist ? scope.persist() : scope;
}
