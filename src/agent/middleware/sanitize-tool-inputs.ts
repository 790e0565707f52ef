import { createMiddleware } from "langchain";

const PATH_KEYS = new Set(["file_path", "path", "dir_path", "cwd"]);

function cleanValue(key: string, value: unknown): unknown {
  if (typeof value === "string") {
    // NUL bytes break shells and file APIs; models emit them now and then from binary-looking output.
    const noNul = value.replaceAll("\u0000", "");
    return PATH_KEYS.has(key) ? noNul.trim().replace(/^(["'`])(.*)\1$/, "$2") : noNul;
  }
  if (Array.isArray(value)) return value.map((v) => cleanValue("", v));
  if (value !== null && typeof value === "object") return cleanArgs(value as Record<string, unknown>);
  return value;
}

function cleanArgs(args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    // Models send `null` for optional fields they mean to omit; zod schemas with .optional() reject null.
    if (v === null || v === undefined) continue;
    out[k] = cleanValue(k, v);
  }
  return out;
}

/** Tool arguments as an object, also when a model sent them as a JSON string. */
export function sanitizeToolArgs(args: unknown): Record<string, unknown> {
  let value = args;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return { input: value };
    }
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return {};
  return cleanArgs(value as Record<string, unknown>);
}

/** Normalizes tool inputs before any tool sees them: JSON-string args, nulls, NUL bytes, quoted paths. */
export function sanitizeToolInputsMiddleware() {
  return createMiddleware({
    name: "SanitizeToolInputsMiddleware",
    wrapToolCall: (request, handler) => handler({ ...request, toolCall: { ...request.toolCall, args: sanitizeToolArgs(request.toolCall.args) } }),
  });
}
