import { describe, expect, it } from "vitest";
import { exitStatus } from "../../src/cli/exit-status.js";
import { ConfigError } from "../../src/config/env.js";
import { OpenSweError } from "../../src/errors.js";
import { UsageError } from "../../src/operator/settings-cli.js";
import { CommandLineError } from "../../src/shared/parse-command.js";

describe("exitStatus: 2 refused (command line or configuration), 1 failed while running", () => {
  it.each([
    ["an unknown option", new CommandLineError("unknown option --modle"), 2],
    ["a settings command used wrongly", new UsageError('autofix takes on or off, not "maybe"'), 2],
    ["a bad variable", new ConfigError("invalid PORT: …"), 2],
    ["an unknown model", new OpenSweError("model_unknown", "--model: unknown model"), 2],
    ["a missing model key", new OpenSweError("model_not_configured", "needs ANTHROPIC_API_KEY"), 2],
    ["a bad --repo", new OpenSweError("invalid_repo", "not a git repository"), 2],
    ["a port another process holds", new OpenSweError("port_in_use", "PORT=3000 is already in use"), 2],
    ["a data directory another host holds", new OpenSweError("host_in_use", "in use"), 2],
    ["a clone that failed", new OpenSweError("git_failed", "git clone failed (exit 128)"), 1],
    ["GitHub unreachable", new OpenSweError("github_unreachable", "GitHub did not answer"), 1],
    ["Redis refusing connections", Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6379"), { code: "ECONNREFUSED" }), 1],
    ["a thrown string", "boom", 1],
  ] as const)("%s → %s", (_, err, status) => {
    expect(exitStatus(err)).toBe(status);
  });
});
