import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { BaseChatModel, type BindToolsInput } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, type BaseMessage, type UsageMetadata } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { OpenSweError } from "../../errors.js";
import { loadReplayScript, type ReplayTurn } from "../../config/replay-script.js";

export { loadReplayScript, parseReplayScript, ReplayTurn } from "../../config/replay-script.js";

interface Cursor {
  next: number;
  /** Distinguishes this playback's message ids from an earlier run's on the same thread (ids merge). */
  nonce: string;
}

/**
 * Plays a recorded run back, one scripted assistant turn per model call. Every message it returns
 * carries `response_metadata.replayed = true` so run records and replies can say so.
 */
function assistantTurnsThisRun(messages: readonly BaseMessage[]): number {
  let turns = 0;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i]!;
    if (HumanMessage.isInstance(m) && m.additional_kwargs["follow_up"] !== true) break;
    if (AIMessage.isInstance(m)) turns += 1;
  }
  return turns;
}

export class ReplayChatModel extends BaseChatModel {
  readonly replayed = true;
  readonly #turns: readonly ReplayTurn[];
  readonly #source: string;
  // Shared with every bindTools() copy: the agent binds tools before each call.
  readonly #cursor: Cursor;

  constructor(turns: readonly ReplayTurn[], source = "replay script", cursor: Cursor = { next: 0, nonce: randomUUID().slice(0, 8) }) {
    super({});
    this.#turns = turns;
    this.#source = source;
    this.#cursor = cursor;
  }

  get remaining(): number {
    return this.#turns.length - this.#cursor.next;
  }

  _llmType(): string {
    return "replay";
  }

  override bindTools(_tools: BindToolsInput[]): ReplayChatModel {
    return new ReplayChatModel(this.#turns, this.#source, this.#cursor);
  }

  async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"], _run?: CallbackManagerForLLMRun): Promise<ChatResult> {
    // A run resumed from a checkpoint in a new process starts with a fresh cursor: the assistant turns
    // already in this run's conversation say how far the script got.
    const index = Math.max(this.#cursor.next, assistantTurnsThisRun(messages));
    const turn = this.#turns[index];
    if (!turn) {
      throw new OpenSweError("replay_exhausted", `replay script ${this.#source} ran out: the run asked for model turn ${index + 1} but the script has ${this.#turns.length}`);
    }
    this.#cursor.next = index + 1;
    const wait = options.signal ? { signal: options.signal } : {};
    if (turn.delay_ms) await delay(turn.delay_ms, undefined, wait);
    if (turn.wait_for_file) while (!existsSync(turn.wait_for_file)) await delay(50, undefined, wait);
    const usage: UsageMetadata | undefined = turn.usage
      ? { input_tokens: turn.usage.input_tokens, output_tokens: turn.usage.output_tokens, total_tokens: turn.usage.input_tokens + turn.usage.output_tokens }
      : undefined;
    // Usage in the constructor, as a provider's message has it: then the checkpoints keep it too.
    const base = {
      content: turn.text,
      id: `replay-${this.#cursor.nonce}-${index}`,
      tool_calls: turn.tool_calls.map((tc, i) => ({ name: tc.name, args: tc.args, id: tc.id ?? `replay_${this.#cursor.nonce}_${index}_${i}`, type: "tool_call" as const })),
      response_metadata: { replayed: true, model_name: turn.model ?? "replay" },
    };
    // (The fields' type for this message structure leaves usage out, so it is cast; providers pass it the same way.)
    const message = new AIMessage((usage ? { ...base, usage_metadata: usage } : base) as unknown as ConstructorParameters<typeof AIMessage>[0]);
    return { generations: [{ text: turn.text, message }] };
  }
}
