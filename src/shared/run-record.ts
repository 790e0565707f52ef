// The record of one run: built by the agent (`buildRunRecord`), kept by `RunRecords`, read by the
// dashboard and the operator CLI. Plain schemas, so every layer may use them.
import { z } from "zod";
import { RUN_OUTCOMES } from "./run-outcomes.js";

/** A CI failure as the autofix confidence gate classified it. */
export const FailureClass = z.enum(["fix", "flaky", "no_change"]);
export type FailureClass = z.infer<typeof FailureClass>;

/** What the gate decided, kept in the run record. */
export const GateResult = z.object({
  classification: FailureClass,
  reason: z.string(),
  evidence: z.string(),
  /** Set when the classifier's answer was unusable and the gate failed closed. */
  malformed: z.string().optional(),
  /** Workflow runs whose failed jobs were re-run, and which re-run of this head it was. */
  rerunRuns: z.array(z.number().int()).optional(),
  rerun: z.number().int().optional(),
});
export type GateResult = z.infer<typeof GateResult>;

export const RunOutcome = z.enum(RUN_OUTCOMES);
export type RunOutcome = z.infer<typeof RunOutcome>;

export const RunRecord = z.object({
  threadId: z.string(),
  trigger: z.string(),
  modelId: z.string(),
  effort: z.string(),
  replayed: z.boolean(),
  startedAt: z.iso.datetime(),
  durationMs: z.number().int().min(0),
  modelCalls: z.number().int().min(0),
  inputTokens: z.number().int().min(0),
  outputTokens: z.number().int().min(0),
  cachedTokens: z.number().int().min(0),
  cacheWriteTokens: z.number().int().min(0),
  /** Undefined when the model has no price in the table (self-hosted, replay). */
  costUsd: z.number().min(0).optional(),
  toolCounts: z.record(z.string(), z.number().int().min(1)),
  outcome: RunOutcome,
  prUrl: z.url().optional(),
  /** The commit this run pushed last, if it pushed. */
  pushedSha: z.string().optional(),
  /** A CI fix's last push: how its tests were judged (shown on the Autofix check). */
  testNote: z.string().max(1000).optional(),
  error: z.string().optional(),
  /** A CI fix run's confidence gate: the failure's classification and its evidence. */
  autofixGate: GateResult.optional(),
});
export type RunRecord = z.infer<typeof RunRecord>;
