import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { OpenSweError, errorMessage } from "../errors.js";

export const ReplayTurn = z
  .object({
    text: z.string().default(""),
    tool_calls: z.array(z.object({ name: z.string().min(1), args: z.record(z.string(), z.unknown()).default({}), id: z.string().optional() }).strict()).default([]),
    usage: z
      .object({ input_tokens: z.number().int().min(0), output_tokens: z.number().int().min(0) })
      .strict()
      .optional(),
    /** The model that answered the recorded turn: the turn is priced at its rate (a replay is otherwise free). */
    model: z.string().min(1).optional(),
    /** How long this model call takes: lets a test send a message while the model is "thinking". */
    delay_ms: z.number().int().min(0).max(30_000).optional(),
    /** A file the model call waits for (a test holds a run between two steps until it opens the gate). */
    wait_for_file: z.string().min(1).optional(),
  })
  .strict()
  .refine((t) => t.text !== "" || t.tool_calls.length > 0, "a turn needs text or at least one tool call");
export type ReplayTurn = z.infer<typeof ReplayTurn>;
export const ReplayScript = z.array(ReplayTurn).min(1);

/** Parses a replay script (a JSON list of assistant turns); `source` names it in errors. */
export function parseReplayScript(json: unknown, source: string): ReplayTurn[] {
  const parsed = ReplayScript.safeParse(json);
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
    throw new OpenSweError("replay_invalid", `replay script ${source} is invalid: ${where}`, { cause: parsed.error });
  }
  return parsed.data;
}

export async function loadReplayScript(path: string): Promise<ReplayTurn[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new OpenSweError("replay_invalid", `cannot read replay script ${path}: ${errorMessage(err)}`, { cause: err });
  }
  return parseReplayText(text, path);
}

/** The same checks at start-up (readConfig is synchronous): a missing or bad file stops it. */
export function checkReplayScript(path: string): void {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new OpenSweError("replay_invalid", `cannot read replay script ${path}: ${errorMessage(err)}`, { cause: err });
  }
  parseReplayText(text, path);
}

function parseReplayText(text: string, path: string): ReplayTurn[] {
  try {
    return parseReplayScript(JSON.parse(text), path);
  } catch (err) {
    if (err instanceof OpenSweError) throw err;
    throw new OpenSweError("replay_invalid", `replay script ${path} is not JSON: ${errorMessage(err)}`, { cause: err });
  }
}
