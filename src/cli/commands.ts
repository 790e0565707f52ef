import { AGENTS_COMMANDS } from "../operator/agents-commands.js";
import type { CommandSpec } from "../shared/parse-command.js";
import { SANDBOX_COMMANDS } from "../sandbox/sandbox-commands.js";
import { OPERATOR_COMMANDS } from "../operator/operator-commands.js";
import { SETTINGS_USAGE } from "../operator/settings-usage.js";

/** The benchmarks (`bench/<name>.ts`); `src/cli.ts` maps each to its dynamic import. */
export const BENCH_NAMES = ["intake", "agent", "sandbox", "checkpoints", "scale", "review", "tokens", "live", "insights"] as const;
export type BenchName = (typeof BENCH_NAMES)[number];

/** How a benchmark is loaded: `src/cli.ts` alone imports bench/ (dynamically, only the one run). */
export type BenchLoaders = Record<BenchName, () => Promise<{ main(argv: string[]): Promise<void> }>>;

const serve = (what: string): CommandSpec => ({ usage: `usage: open-swe ${what}\n  (settings from the environment and ./.env: see the README's Configuration table)` });

/**
 * Every command of `open-swe`, by its words (`runs ls`): usage and accepted options. This module and
 * what it imports stay light — `open-swe help` and `<command> --help` load nothing else.
 */
export const COMMANDS = {
  all: serve("all\n  the webhook server, the dashboard and the job workers in one process (the default command)"),
  web: serve("web\n  the webhook server and the dashboard (PORT, HOST)"),
  worker: serve("worker\n  the job workers (HEALTH_PORT serves GET /health)"),
  settings: { usage: SETTINGS_USAGE, positionals: [0, Number.POSITIVE_INFINITY] },
  analyze: {
    usage: "usage: open-swe analyze <owner/repo> [--continual]\n  queue the review-style analyzer for a repository (bootstrap by default)",
    options: { continual: { type: "boolean" } },
    positionals: [1, 1],
  },
  ...OPERATOR_COMMANDS,
  "config check": {
    usage:
      "usage: open-swe config check [--repo-file PATH]\n  check the environment (the process's and ./.env) as the roles read it, without starting anything (credentials masked);\n  --repo-file: check a .github/open-swe.yml file instead. One line per problem naming the field; exit 1 when something is invalid",
    options: { "repo-file": { type: "string" } },
  },
  run: {
    usage: 'usage: open-swe run --repo <path|owner/name> [--model ID] [--verbose] [--record FILE] [--context PATH]… "<task>"\n  run the agent locally: progress, branch, diff, transcript',
    options: { repo: { type: "string" }, model: { type: "string" }, verbose: { type: "boolean" }, record: { type: "string" }, context: { type: "string", multiple: true } },
    positionals: [0, Number.POSITIVE_INFINITY],
  },
  ...AGENTS_COMMANDS,
  ...SANDBOX_COMMANDS,
  bench: { usage: `usage: open-swe bench <${BENCH_NAMES.join("|")}> [benchmark options]\n  run a benchmark (npm run bench:<name>)`, positionals: [1, 1] },
} as const satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMANDS;

export const USAGE = `usage: open-swe <command> [--help] | --version
  web | worker | all        run the webhook server, the job workers, or both (default: all)
  settings …                read and change settings (open-swe settings --help)
  analyze <owner/repo> [--continual]   queue the review-style analyzer for a repo (bootstrap by default)
  runs ls|show …            recent agent/review runs and one run's record (open-swe runs --help)
  jobs ls|retry …           a queue's jobs; retry a failed one (open-swe jobs --help)
  config check [--repo-file PATH]   check the environment, or a .github/open-swe.yml file (exit 1 when invalid)
  run --repo <path|owner/name> [--model ID] [--verbose] [--record FILE] [--context PATH]… "<task>"   run the agent locally: progress, branch, diff, transcript
  agents list --repo <path|owner/name> [--user <login>]   the repo's (and a user's) subagents as JSON: where each came from, which files lost and why
  sandbox exec|ls|rm …      run a command in a fresh sandbox; list or remove sandboxes (open-swe sandbox --help)
  bench <${BENCH_NAMES.join("|")}>   run a benchmark (npm run bench:<name>)`;
