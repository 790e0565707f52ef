import { maskSecrets } from "./mask-secrets.js";

const MAX_VALUE_CHARS = 500;
const MAX_INPUT_CHARS = 2_000;

function clip(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return value.length > MAX_VALUE_CHARS ? `${value.slice(0, MAX_VALUE_CHARS)}… [${value.length - MAX_VALUE_CHARS} more characters]` : value;
  if (depth > 20 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => clip(v, depth + 1));
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, clip(v, depth + 1)]));
}

/** A tool's input as a person should see it: secrets masked, long values and the whole truncated. */
export function previewToolInput(args: unknown): string {
  const text = JSON.stringify(clip(maskSecrets(args)), null, 2) ?? "null";
  return text.length > MAX_INPUT_CHARS ? `${text.slice(0, MAX_INPUT_CHARS)}\n… [truncated]` : text;
}

/** A fence longer than any run of backticks in the text, so the input cannot close it. */
function fenced(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}json\n${text}\n${fence}`;
}

export interface ApprovalRequestText {
  id: string;
  handle: string;
  requester: string;
  calls: ReadonlyArray<{ name: string; args: unknown }>;
  timeoutMinutes: number;
}

/** Pure: the comment a paused run posts where the request came from. */
export function approvalRequestComment(r: ApprovalRequestText): string {
  const h = `@${r.handle}`;
  const what = r.calls.length === 1 ? `call \`${r.calls[0]!.name}\`` : `make ${r.calls.length} tool calls`;
  return [
    `**Approval needed** — I want to ${what}; this repository's policy asks a person first.`,
    ...r.calls.map((c) => `\`${c.name}\` with:\n\n${fenced(previewToolInput(c.args))}`),
    `Reply \`${h} approve ${r.id}\` to let ${r.calls.length === 1 ? "it" : "them"} run, or \`${h} deny ${r.id} [reason]\` to refuse. ` +
      `@${r.requester} or anyone with write access to this repository can decide; with no decision within ${r.timeoutMinutes} minutes it is denied automatically.`,
  ].join("\n\n");
}

/** What the model reads when a call was refused: who decided and why. */
export function denialMessage(d: { by: string } | { timeoutMinutes: number }, reason?: string): string {
  if ("timeoutMinutes" in d) return `Denied automatically: nobody approved this call within ${d.timeoutMinutes} minutes. Continue without it, or explain in your reply what you needed it for.`;
  return `Denied by @${d.by}${reason ? `: ${reason.replace(/[.!?]*$/, ".")}` : "."} Continue without this call.`;
}
