import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { cruise, type ICruiseResult, type IForbiddenRuleType } from "dependency-cruiser";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/paths.js";

// The layering rules of .dependency-cruiser.cjs (run in .ci/run) against small trees: each arrow the
// house forbids is reported under its rule, and the allowed ones are not.
const config = createRequire(import.meta.url)(join(ROOT, ".dependency-cruiser.cjs")) as {
  forbidden: IForbiddenRuleType[];
  options: Record<string, unknown>;
};

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

type Edge = { from: string; to: string; kind?: "import" | "type" | "dynamic" };

async function violations(edges: Edge[]): Promise<Array<{ rule: string; from: string; to: string }>> {
  const base = mkdtempSync(join(tmpdir(), "layers-"));
  dirs.push(base);
  const files = new Map<string, string[]>();
  for (const { from, to, kind = "import" } of edges) {
    let spec = relative(dirname(from), to).replace(/\.ts$/, ".js");
    if (!spec.startsWith(".")) spec = `./${spec}`;
    const line = kind === "type" ? `import type { T } from "${spec}";` : kind === "dynamic" ? `export const load = () => import("${spec}");` : `import { x } from "${spec}"; void x;`;
    files.set(from, [...(files.get(from) ?? []), line]);
    if (!files.has(to)) files.set(to, []);
  }
  for (const [file, lines] of files) {
    mkdirSync(join(base, dirname(file)), { recursive: true });
    writeFileSync(join(base, file), [...lines, "export const x = 1;", "export type T = number;", ""].join("\n"));
  }
  const roots = [...new Set([...files.keys()].map((f) => f.split("/")[0]!))];
  const { output } = await cruise(roots, { ...config.options, baseDir: base, validate: true, ruleSet: { forbidden: config.forbidden } });
  return (output as ICruiseResult).summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }));
}

describe("the layering rules", () => {
  it.each([
    // the arrows
    ["src/store/run-records.ts", "src/agent/run-record.ts", "layer-state-not-up"],
    ["src/store/settings-store.ts", "src/github/repo-name.ts", "layer-state-not-up"],
    ["src/store/operator-cli.ts", "src/runs/x.ts", "layer-state-not-up"],
    ["src/sandbox/providers/egress-policy.ts", "src/agent/tools/classify-address.ts", "layer-engine-not-sideways"],
    ["src/review/verdict-guard.ts", "src/agent/middleware/sanitize-tool-inputs.ts", "layer-engine-not-sideways"],
    ["src/github/request-images.ts", "src/agent/tools/http-guard.ts", "github-not-agent"],
    ["src/agent/run-record.ts", "src/autofix/classify-failure.ts", "layer-engine-not-up"],
    // the rest of the house
    ["src/config/env.ts", "src/sandbox/config.ts", "layer-config-not-up"],
    ["src/net/http-guard.ts", "src/agent/x.ts", "layer-shared-not-up"],
    ["src/shared/run-record.ts", "src/config/x.ts", "layer-shared-not-up"],
    ["src/worker/start-workers.ts", "jobs/index.ts", "layer-run-not-up"],
    ["src/threads/thread-run.ts", "src/worker/job-context.ts", "layer-github-not-up"],
    ["src/dashboard/x.ts", "src/approvals/y.ts", "layer-feature-not-sideways"],
    ["src/errors.ts", "src/store/x.ts", "layer-shared-not-up"],
  ])("%s → %s is %s", async (from, to, rule) => {
    expect(await violations([{ from, to }])).toEqual([{ rule, from, to }]);
  });

  it("counts a type-only import like any other", async () => {
    expect(await violations([{ from: "src/store/run-records.ts", to: "src/agent/run-record.ts", kind: "type" }])).toEqual([
      { rule: "layer-state-not-up", from: "src/store/run-records.ts", to: "src/agent/run-record.ts" },
    ]);
  });

  it("refuses a circle, also inside one room", async () => {
    const found = await violations([
      { from: "src/agent/budget.ts", to: "src/agent/run-record.ts" },
      { from: "src/agent/run-record.ts", to: "src/agent/budget.ts" },
    ]);
    expect(found.map((v) => v.rule)).toEqual(["no-circular"]);
  });

  it("lets cli.ts reach bench/ only by a dynamic import", async () => {
    expect(await violations([{ from: "src/cli.ts", to: "bench/tokens.ts", kind: "dynamic" }])).toEqual([]);
    expect(await violations([{ from: "src/cli.ts", to: "bench/tokens.ts" }])).toEqual([{ rule: "bench-is-its-own-entry", from: "src/cli.ts", to: "bench/tokens.ts" }]);
    expect(await violations([{ from: "src/run.ts", to: "bench/tokens.ts", kind: "dynamic" }])).toEqual([{ rule: "bench-only-from-cli", from: "src/run.ts", to: "bench/tokens.ts" }]);
  });

  it.each([
    ["src/runs/run-agent.ts", "src/agent/create-agent.ts"],
    ["src/agent/create-agent.ts", "src/agent/guards/verdict-guard.ts"],
    ["src/sandbox/providers/egress-policy.ts", "src/net/classify-address.ts"],
    ["src/store/settings-store.ts", "src/config/tool-policy.ts"],
    ["src/store/settings-store.ts", "src/shared/repo-name.ts"],
    ["src/operator/settings-cli.ts", "src/agent/model/check-model-id.ts"],
    ["src/main.ts", "src/http/web-server.ts"],
    ["jobs/agent.ts", "src/runs/run-agent.ts"],
    ["src/github/tools/x.ts", "src/store/y.ts"],
  ])("allows %s → %s", async (from, to) => {
    expect(await violations([{ from, to }])).toEqual([]);
  });
});
