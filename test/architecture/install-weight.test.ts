import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/paths.js";
import { GHES_DESCRIPTION, GITHUB_DESCRIPTION } from "../contracts/github-openapi.js";

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Record<string, Record<string, string>>;

describe("a lighter install", () => {
  it("the postinstall trim keeps exactly the GitHub descriptions the contract tests read", () => {
    const script = readFileSync(join(ROOT, "scripts/trim-openapi.mjs"), "utf8");
    const kept = JSON.parse(/const KEPT = (\[[^\]]*\]);/.exec(script)?.[1] ?? "[]") as string[];
    expect(kept.sort()).toEqual([basename(GITHUB_DESCRIPTION), basename(GHES_DESCRIPTION)].sort());
    expect(pkg.scripts?.postinstall).toBe("node scripts/trim-openapi.mjs");
  });

  it("nothing the image runs needs tsx or TypeScript, and the vendor sandbox SDKs are optional", () => {
    expect(pkg.dependencies).not.toHaveProperty("tsx");
    expect(pkg.dependencies).not.toHaveProperty("typescript");
    expect(Object.keys(pkg.optionalDependencies ?? {}).sort()).toEqual(["@daytonaio/sdk", "e2b", "modal"]);
    for (const name of ["@daytonaio/sdk", "e2b", "modal"]) expect(pkg.dependencies).not.toHaveProperty(name);
  });

  it("bull-board's api and its Hono adapter are one version (one copy installed)", () => {
    expect(pkg.dependencies?.["@bull-board/api"]).toBe(pkg.dependencies?.["@bull-board/hono"]);
  });
});
