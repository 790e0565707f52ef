import { describe, expect, it } from "vitest";
import { runSetupSeconds } from "../../src/observability/metrics.js";
import { SetupClock } from "../../src/observability/setup-clock.js";

const sums = async () => Object.fromEntries((await runSetupSeconds.get()).values.filter((v) => v.metricName?.endsWith("_sum")).map((v) => [v.labels["phase"], v.value]));

describe("SetupClock", () => {
  it("observes each phase as the time since the previous lap, and nothing after the first model call", async () => {
    runSetupSeconds.reset();
    let now = 1000;
    const clock = new SetupClock(() => now);
    now += 10;
    clock.lap("claim");
    now += 30;
    clock.lap("config");
    now += 200;
    clock.lap("workspace");
    now += 50;
    clock.lap("agent");
    now += 999;
    clock.lap("agent");
    clock.lap("tools");
    expect(await sums()).toEqual({ claim: 0.01, config: 0.03, workspace: 0.2, agent: 0.05 });
  });
});
