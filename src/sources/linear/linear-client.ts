import type { Logger } from "pino";
import { z } from "zod";
import { OpenSweError } from "../../errors.js";
import type { SourceClient } from "../source.js";
import { attachPullRequests } from "./attach-pull-requests.js";
import { fetchLinearMessage } from "./fetch-linear-message.js";
import { LinearApi, LinearApiError } from "./linear-api.js";
import { LinearRef } from "./linear-ref.js";
import type { LinearSettings } from "./linear-settings.js";
import { linearPostedReply } from "./linear-posted-reply.js";
import { postLinearComment } from "./post-linear-comment.js";
import { linearLinkedTools, linearTools } from "./tools/index.js";

const USER_EMAIL = `query OpenSweLinearUserEmail($id: String!) {
  user(id: $id) { id email active app }
}`;

const UserEmail = z.object({ user: z.object({ id: z.string(), email: z.string().nullish(), active: z.boolean(), app: z.boolean().nullish() }).nullish() });

const REACTION_CREATE = `mutation OpenSweAcknowledge($input: ReactionCreateInput!) {
  reactionCreate(input: $input) { success }
}`;

export class LinearRefError extends OpenSweError<"linear_bad_ref"> {}

function parseRef(ref: Record<string, unknown>): LinearRef {
  const parsed = LinearRef.safeParse(ref);
  if (!parsed.success) throw new LinearRefError("linear_bad_ref", `not a Linear reference: ${parsed.error.issues[0]?.path.join(".") ?? "?"} ${parsed.error.issues[0]?.message ?? ""}`);
  return parsed.data;
}

/**
 * The worker's half of Linear. Acknowledgement is a 👀 reaction on the triggering comment (or on the
 * issue for an assignment/label): Linear's agent-activity "thought" needs an agent session, which
 * only Linear's agent webhooks (AgentSessionEvent) open — not the Comment/Issue webhooks we take.
 */
export function linearClient(settings: LinearSettings, log: Logger, apiUrl?: string): SourceClient {
  if (!settings.credential) throw new OpenSweError("linear_not_configured", "LINEAR_API_KEY or LINEAR_ACCESS_TOKEN is not set: the worker cannot read or answer on Linear");
  const api = new LinearApi(settings.credential, apiUrl);
  return {
    fetchMessage: async (ref) => fetchLinearMessage(api, parseRef(ref), settings.appUserId),
    acknowledge: async (raw) => {
      const ref = parseRef(raw);
      const input = ref.commentId ? { commentId: ref.commentId, emoji: "👀" } : { issueId: ref.issueId, emoji: "👀" };
      await api.request(REACTION_CREATE, { input }, z.object({ reactionCreate: z.object({ success: z.boolean() }) }));
    },
    reply: async (raw, markdown) => {
      const ref = parseRef(raw);
      await postLinearComment(api, ref, markdown);
      try {
        await attachPullRequests(api, ref.issueId, markdown);
      } catch (err) {
        log.warn({ err, issueId: ref.issueId }, "linear: attaching the pull request failed");
      }
    },
    postedReply: async (raw, markdown, since) => linearPostedReply(api, parseRef(raw), markdown, since),
    // Linear signs people in through their email (magic link, Google, SAML): the address on an active
    // member's account is one they control. Deactivated users and app users have none to match.
    verifiedEmail: async (user) => {
      const answer = await api.request(USER_EMAIL, { id: user.id }, UserEmail).catch((err: unknown) => {
        if (err instanceof LinearApiError && err.code === "linear_not_found") return { user: null };
        throw err;
      });
      const u = answer.user;
      return u && u.active && !u.app && u.email ? u.email : null;
    },
    tools: (raw) => linearTools({ api, ref: parseRef(raw), log }),
    /** `where` is the linked team's id (`linear:<team id>`). */
    linkedTools: (where) => linearLinkedTools({ api, team: where, log }),
  };
}
