import type { CommandSpec } from "../shared/parse-command.js";

const provider = { provider: { type: "string" } } as const;

/** `open-swe sandbox …`: what each verb takes (light: printed without loading a provider). */
export const SANDBOX_COMMANDS = {
  "sandbox exec": {
    usage: "usage: open-swe sandbox exec [--provider NAME] [--network on|off] [--workspace DIR] [--timeout MS] -- <command…>",
    options: { ...provider, network: { type: "string" }, workspace: { type: "string" }, timeout: { type: "string" } },
    dashDashRest: true,
  },
  "sandbox ls": { usage: "usage: open-swe sandbox ls [--provider NAME]", options: provider },
  "sandbox rm": { usage: "usage: open-swe sandbox rm <id> [--provider NAME]", options: provider, positionals: [1, 1] },
} as const satisfies Record<string, CommandSpec>;

export type SandboxCommand = keyof typeof SANDBOX_COMMANDS;
