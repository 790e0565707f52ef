import { errorMessage } from "../errors.js";

/** An error as the one line the CLI prints: its message with line breaks folded, without git's `fatal:` noise. */
export function errorLine(err: unknown): string {
  const lines = errorMessage(err)
    .split("\n")
    .map((l) => l.trim().replace(/^(fatal|error): /, ""))
    .filter(Boolean);
  return lines.join(" — ") || "failed";
}
