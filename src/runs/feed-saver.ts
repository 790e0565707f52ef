import type { RunnableConfig } from "@langchain/core/runnables";
import type { ChannelVersions, Checkpoint, CheckpointMetadata } from "@langchain/langgraph-checkpoint";
import { RedisSaver, type RedisSaverOptions } from "../agent/checkpoint/redis-saver.js";
import type { RunFeed } from "../store/run-feed.js";

const REMEMBERED_THREADS = 1_024;

/**
 * The worker's checkpoint saver: after each checkpoint of a thread's main conversation that added
 * messages it tells the thread's live feed how far the conversation got, so dashboard viewers follow
 * without polling.
 */
export class FeedSaver extends RedisSaver {
  readonly #feed: RunFeed;
  /** The message count this process last saw per thread: what a step added. */
  readonly #counts = new Map<string, number>();

  constructor(options: RedisSaverOptions & { feed: RunFeed }) {
    super(options);
    this.#feed = options.feed;
  }

  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    const saved = await super.put(config, checkpoint, metadata, newVersions);
    const thread = config.configurable?.["thread_id"] as string;
    // Subgraph namespaces (a subagent's own steps) are not the thread's conversation.
    if ((config.configurable?.["checkpoint_ns"] ?? "") !== "") return saved;
    const messages = (checkpoint.channel_values as Record<string, unknown>)["messages"];
    const n = Array.isArray(messages) ? messages.length : 0;
    // First step seen by this process (a new run, or one resumed elsewhere): it added one message.
    const last = this.#counts.get(thread) ?? n - 1;
    const from = Math.min(last, n);
    this.#counts.delete(thread);
    if (this.#counts.size >= REMEMBERED_THREADS) this.#counts.delete(this.#counts.keys().next().value!);
    this.#counts.set(thread, n);
    // Most of a step's checkpoints (the middleware hooks' nodes) add no message: nothing for a viewer to
    // read, so no round trip (what a viewer shows — messages, their usage, the todos — changes with their count).
    if (n !== last) await this.#feed.step(thread, Math.max(0, from), n);
    return saved;
  }
}
