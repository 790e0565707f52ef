import type { Job, JobType } from "bullmq";
import { RunOutcome } from "../shared/run-record.js";
import { isRepoName, repoNameError } from "../shared/repo-name.js";
import { QUEUE_NAMES, type QueueName } from "../queue/names.js";
import type { QueueSet } from "../queue/queues.js";
import type { RunIndex } from "../store/run-index.js";
import type { RunRecords } from "../store/run-records.js";
import { parseCommand, type ParsedCommand } from "../shared/parse-command.js";
import { JOB_STATES, OPERATOR_COMMANDS, type OperatorCommand } from "./operator-commands.js";
import { UsageError } from "./settings-cli.js";
import { formatTable, type Column } from "./format-table.js";

interface RunRow {
  id: string;
  repo: string | null;
  source: string | null;
  trigger: string;
  model: string;
  outcome: string;
  startedAt: string;
  durationMs: number;
  costUsd: number | null;
  prUrl: string | null;
}
const RUN_COLUMNS: Column<RunRow>[] = [
  { header: "ID", cell: (r) => r.id },
  { header: "REPO", cell: (r) => r.repo },
  { header: "SOURCE", cell: (r) => r.source },
  { header: "OUTCOME", cell: (r) => r.outcome },
  { header: "MODEL", cell: (r) => r.model },
  { header: "STARTED", cell: (r) => r.startedAt },
  { header: "SECONDS", cell: (r) => Math.round(r.durationMs / 1000) },
  { header: "COST", cell: (r) => (r.costUsd === null ? null : `$${r.costUsd.toFixed(2)}`) },
  { header: "PR", cell: (r) => r.prUrl },
];
type JobRow = Awaited<ReturnType<typeof jobLine>>;
const JOB_COLUMNS: Column<JobRow>[] = [
  { header: "ID", cell: (j) => j.id },
  { header: "QUEUE", cell: (j) => j.queue },
  { header: "STATE", cell: (j) => j.state },
  { header: "ATTEMPTS", cell: (j) => j.attemptsMade },
  { header: "CREATED", cell: (j) => j.createdAt },
  { header: "FAILED REASON", cell: (j) => j.failedReason },
];

function limitOf(args: ParsedCommand, fallback: number): number {
  const raw = args.string("limit");
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new UsageError(`--limit takes a whole number from 1 to 1000, not "${raw}"`);
  return n;
}

/** The repository a run belongs to: from its job, while the queue still holds it. */
/** The run's repo and source: its job's, else the run index's (a local `open-swe run` has no job). */
async function whereOfRun(deps: OperatorDeps, runId: string): Promise<{ repo: string | undefined; source: string | undefined }> {
  const entry = await deps.index?.get(runId);
  for (const name of ["agent", "review"] as const) {
    const job = await deps.queues.findJob(name, runId);
    const data = job?.data as { owner?: string; repo?: string; source?: { kind?: string } } | undefined;
    if (data?.owner && data.repo) return { repo: `${data.owner}/${data.repo}`.toLowerCase(), source: entry?.source ?? data.source?.kind ?? (name === "agent" ? "github" : undefined) };
  }
  return { repo: entry?.repo, source: entry?.source };
}

export interface OperatorDeps {
  runs: RunRecords;
  queues: QueueSet;
  /** The runs list (repo and source of runs without a job, such as local ones). */
  index?: RunIndex;
}

/** A job in any queue, a host's own queues (`agent@<host>`) included. */
async function findJob(queues: QueueSet, id: string): Promise<Job | null> {
  for (const queue of QUEUE_NAMES) {
    const job = await queues.findJob(queue, id);
    if (job) return job;
  }
  return null;
}

/** `queue` is where the job is: `agent`, or `agent@<host>` for a thread whose sandbox lives on that host. */
const jobLine = async (job: Job) => ({
  id: job.id,
  queue: job.queueName,
  state: await job.getState(),
  attemptsMade: job.attemptsMade,
  createdAt: new Date(job.timestamp).toISOString(),
  ...(job.failedReason ? { failedReason: job.failedReason } : {}),
});

/** `open-swe runs …` and `open-swe jobs …`: tables (`ls`) or JSON (`ls --json`, `show`, `retry`) to `out`; UsageError with the reason for bad input. */
export async function runOperatorCli(argv: string[], deps: OperatorDeps, out: (line: string) => void): Promise<void> {
  const [area, verb, ...tail] = argv;
  const command = `${area ?? ""} ${verb ?? ""}`.trim();
  if (!Object.hasOwn(OPERATOR_COMMANDS, command)) throw new UsageError(`unknown command "open-swe ${command}": one of ${Object.keys(OPERATOR_COMMANDS).join(", ")}`);
  const args = parseCommand(command, OPERATOR_COMMANDS[command as OperatorCommand], tail);
  const rest = args.positionals;
  const print = (v: unknown) => out(JSON.stringify(v, null, 2));
  switch (command as OperatorCommand) {
    case "runs ls": {
      const repo = args.string("repo");
      if (repo !== undefined && !isRepoName(repo)) throw new UsageError(repoNameError(repo));
      const status = args.string("status");
      if (status !== undefined && !RunOutcome.safeParse(status).success) throw new UsageError(`--status takes ${RunOutcome.options.join(", ")}, not "${status}"`);
      const limit = limitOf(args, 20);
      const rows: RunRow[] = [];
      // Scan a bounded window of recent runs; filters apply within it.
      for (const id of await deps.runs.recent(Math.max(limit * 10, 200))) {
        if (rows.length >= limit) break;
        const record = await deps.runs.get(id);
        if (!record || (status && record.outcome !== status)) continue;
        const where = await whereOfRun(deps, id);
        const runRepo = where.repo;
        if (repo && runRepo !== repo.toLowerCase()) continue;
        rows.push({
          id,
          repo: runRepo ?? null,
          source: where.source ?? null,
          trigger: record.trigger,
          model: record.modelId,
          outcome: record.outcome,
          startedAt: record.startedAt,
          durationMs: record.durationMs,
          costUsd: record.costUsd ?? null,
          prUrl: record.prUrl ?? null,
        });
      }
      return args.flag("json") ? print(rows) : out(formatTable(rows, RUN_COLUMNS));
    }
    case "runs show": {
      const id = rest[0]!;
      const record = await deps.runs.get(id);
      if (!record) throw new UsageError(`no run "${id}" (records are kept 90 days; \`open-swe runs ls\` lists recent ones)`);
      const where = await whereOfRun(deps, id);
      return print({ id, repo: where.repo ?? null, source: where.source ?? null, ...record });
    }
    case "jobs ls": {
      const queue = rest[0];
      if (!queue || !(QUEUE_NAMES as readonly string[]).includes(queue)) throw new UsageError(`jobs ls takes a queue: one of ${QUEUE_NAMES.join(", ")}, not "${queue ?? ""}"`);
      const state = args.string("state");
      if (state !== undefined && !(JOB_STATES as readonly string[]).includes(state)) throw new UsageError(`--state takes ${JOB_STATES.join(", ")}, not "${state}"`);
      const limit = limitOf(args, 50);
      // The host queues too: a thread's later runs wait in its sandbox's host's own queue.
      const states = (state ? [state] : ["active", "waiting", "delayed", "failed"]) as JobType[];
      const jobs = (await Promise.all((await deps.queues.allQueues(queue as QueueName)).map((q) => q.getJobs(states, 0, limit - 1)))).flat().filter(Boolean);
      jobs.sort((a, b) => b.timestamp - a.timestamp);
      const lines = await Promise.all(jobs.slice(0, limit).map((j) => jobLine(j)));
      return args.flag("json") ? print(lines) : out(formatTable(lines, JOB_COLUMNS));
    }
    case "jobs retry": {
      const id = rest[0]!;
      const job = await findJob(deps.queues, id);
      if (!job) throw new UsageError(`no job "${id}" in any queue`);
      const state = await job.getState();
      if (state !== "failed") throw new UsageError(`job "${id}" is ${state}, not failed: only failed jobs are retried`);
      // Issued again (a fresh time, the same principal): a retry is a new run, not a replay of the old one.
      await deps.queues.reissue(job.queueName.split("@")[0] as QueueName, job);
      await job.retry("failed");
      return print(await jobLine(job));
    }
  }
}
