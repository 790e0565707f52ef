import type { CommandSpec } from "../shared/parse-command.js";

/** `open-swe agents list`: what it takes (light: printed without loading the agents). */
export const AGENTS_COMMANDS = {
  "agents list": { usage: "usage: open-swe agents list --repo <path|owner/name> [--user <login>]", options: { repo: { type: "string" }, user: { type: "string" } } },
} as const satisfies Record<string, CommandSpec>;
