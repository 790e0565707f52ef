import { RUN_OUTCOMES } from "../shared/run-outcomes.js";
import type { CommandSpec } from "../shared/parse-command.js";
import { QUEUE_NAMES } from "../queue/names.js";

export const JOB_STATES = ["failed", "waiting", "active", "delayed", "completed", "prioritized", "waiting-children"] as const;

/** `open-swe runs …` and `open-swe jobs …`: what each takes (light: the CLI prints these without loading the stores). */
export const OPERATOR_COMMANDS = {
  "runs ls": {
    usage: `usage: open-swe runs ls [--repo owner/name] [--status ${RUN_OUTCOMES.join("|")}] [--limit N] [--json]\n  --json: a JSON array, one object per run (the default is a table)`,
    options: { repo: { type: "string" }, status: { type: "string" }, limit: { type: "string" }, json: { type: "boolean" } },
  },
  "runs show": { usage: "usage: open-swe runs show <run id>", positionals: [1, 1] },
  "jobs ls": {
    usage: `usage: open-swe jobs ls <${QUEUE_NAMES.join("|")}> [--state ${JOB_STATES.slice(0, 5).join("|")}] [--limit N] [--json]\n  --json: a JSON array, one object per job (the default is a table)`,
    options: { state: { type: "string" }, limit: { type: "string" }, json: { type: "boolean" } },
    positionals: [1, 1],
  },
  "jobs retry": { usage: "usage: open-swe jobs retry <job id>", positionals: [1, 1] },
} as const satisfies Record<string, CommandSpec>;

export type OperatorCommand = keyof typeof OPERATOR_COMMANDS;
