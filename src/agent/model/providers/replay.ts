import { ReplayChatModel, loadReplayScript } from "../replay-chat-model.js";
import type { ModelProvider } from "./types.js";

/** A recorded run played back (`replay:<file>`, OPEN_SWE_MODEL only): no vendor, no price. */
export const replayProvider: ModelProvider<"replay"> = {
  id: "replay",
  label: "replay of a recorded run",
  env: ["OPEN_SWE_MODEL"],
  images: true,
  nativeTools: true,
  effortParams: () => ({}),
  price: () => undefined,
  async create({ name }) {
    return new ReplayChatModel(await loadReplayScript(name), name);
  },
};
