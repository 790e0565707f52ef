import { DEFAULT_REPLY_TOOLS, SIDE_EFFECT_TOOLS } from "../agent/side-effect-tools.js";
import { SOURCE_TOOL_NAMES } from "../sources/registry.js";

const sources = Object.values(SOURCE_TOOL_NAMES);

/** A run's reply tools: GitHub's and every source's. A successful one means the run answered. */
export const RUN_REPLY_TOOLS: readonly string[] = [...DEFAULT_REPLY_TOOLS, ...sources.flatMap((s) => s.reply)];

/** A run's side-effecting tools: the host's and every source's replies and writes; a resumed step does not repeat them. */
export const RUN_SIDE_EFFECT_TOOLS: readonly string[] = [...SIDE_EFFECT_TOOLS, ...sources.flatMap((s) => [...s.reply, ...s.writes])];
