import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { checkModelId } from "../config/check-model-id.js";
import { checkReplayScript } from "../config/replay-script.js";
import { OpenSweError } from "../errors.js";
import { hostGit } from "../sandbox/workspace/host-git.js";
import { localRepoRefusal } from "./local-repo-refusal.js";
import { remoteUrl } from "./branch-name.js";
import { classifyRepoArg } from "./repo-arg.js";

/** What `open-swe run` works on, once the request is known to be valid. */
export interface LocalRunTarget {
  isPath: boolean;
  /** The working copy's absolute path, or the remote URL of `owner/name`. */
  source: string;
}

/**
 * `open-swe run`'s checks of the request, before anything is cloned or the agent's modules load (light imports
 * only: a refused request answers at once): the model first (a typo or a missing replay file), then `--repo`.
 */
export async function checkLocalRun(o: { repo: string; model?: string; gitRemoteTemplate: string }): Promise<LocalRunTarget> {
  if (o.model?.startsWith("replay:")) checkReplayScript(o.model.slice("replay:".length));
  else if (o.model) {
    const refusal = checkModelId(o.model);
    if (refusal) throw new OpenSweError("model_unknown", `--model: ${refusal}`);
  }
  const arg = classifyRepoArg(o.repo, existsSync);
  if (arg.kind === "error") throw new OpenSweError("invalid_repo", arg.message);
  const isPath = arg.kind === "path";
  const source = isPath ? resolve(arg.path) : remoteUrl(o.gitRemoteTemplate, ...(arg.repo.split("/") as [string, string]));
  if (isPath) {
    await hostGit(["-C", source, "rev-parse", "--verify", "HEAD^{commit}"]).catch((err: unknown) => {
      throw new OpenSweError("invalid_repo", localRepoRefusal(o.repo, err));
    });
  }
  return { isPath, source };
}
