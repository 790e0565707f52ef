import { posix } from "node:path";
import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";

export interface ScopedAgentsMdDeps {
  /** Absolute workspace root inside the sandbox, e.g. `/workspace/repo`. */
  workspaceRoot: string;
  /** Reads a workspace file; undefined when it does not exist. */
  readFile: (absolutePath: string) => Promise<string | undefined>;
  /** The root AGENTS.md is read up front by the prompt's instructions; include it here too? */
  includeRoot?: boolean;
  maxChars?: number;
}

const MARKER = (path: string): string => `<agents_md path="${path}">`;

/** AGENTS.md files that govern `filePath`, outermost first. */
export function governingAgentsMd(workspaceRoot: string, filePath: string, includeRoot: boolean): string[] {
  const root = posix.resolve(workspaceRoot);
  const file = posix.resolve(root, filePath);
  if (file !== root && !file.startsWith(`${root}/`)) return [];
  const dirs: string[] = [];
  for (let dir = posix.dirname(file); dir.startsWith(root); dir = posix.dirname(dir)) {
    if (dir !== root || includeRoot) dirs.unshift(dir);
    if (dir === root) break;
  }
  return dirs.map((d) => posix.join(d, "AGENTS.md")).filter((p) => p !== file);
}

function alreadyShown(messages: readonly BaseMessage[], path: string): boolean {
  const marker = MARKER(path);
  return messages.some((m) => ToolMessage.isInstance(m) && typeof m.content === "string" && m.content.includes(marker));
}

/**
 * After a successful `read_file`, appends the instructions of every AGENTS.md between the workspace
 * root and the file, each once per conversation, so scoped rules are seen before the file is edited.
 */
export function scopedAgentsMdMiddleware(deps: ScopedAgentsMdDeps) {
  const maxChars = deps.maxChars ?? 8_000;
  // Parallel read_file calls in one step do not see each other's messages yet.
  const shownThisRun = new Set<string>();
  return createMiddleware({
    name: "ScopedAgentsMdMiddleware",
    wrapToolCall: async (request, handler) => {
      const result = await handler(request);
      if (request.toolCall.name !== "read_file" || !ToolMessage.isInstance(result) || result.status === "error") return result;
      const args = request.toolCall.args as { file_path?: unknown; path?: unknown };
      const filePath = typeof args.file_path === "string" ? args.file_path : typeof args.path === "string" ? args.path : undefined;
      if (!filePath) return result;
      const sections: string[] = [];
      for (const path of governingAgentsMd(deps.workspaceRoot, filePath, deps.includeRoot ?? false)) {
        if (shownThisRun.has(path) || alreadyShown(request.state.messages, path)) continue;
        const text = await deps.readFile(path).catch(() => undefined);
        if (text === undefined || text.trim() === "") continue;
        shownThisRun.add(path);
        const body = text.length > maxChars ? `${text.slice(0, maxChars)}\n[truncated]` : text;
        sections.push(`${MARKER(path)}\nInstructions that apply to files under ${posix.dirname(path)}:\n${body.trim()}\n</agents_md>`);
      }
      if (sections.length === 0) return result;
      const appendix = `\n\n${sections.join("\n\n")}`;
      const content = typeof result.content === "string" ? result.content + appendix : [...result.content, { type: "text" as const, text: appendix }];
      return new ToolMessage({ content, tool_call_id: result.tool_call_id, ...(result.name ? { name: result.name } : {}), status: result.status ?? "success", id: result.id ?? "" });
    },
  });
}
