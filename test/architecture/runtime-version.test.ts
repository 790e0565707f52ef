import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/paths.js";

/** The one runtime the project declares, said the same way everywhere it is said. */
const nodeVersion = readFileSync(join(ROOT, ".node-version"), "utf8").trim();
const major = nodeVersion.split(".")[0];

describe("the runtime is Node 24 LTS, declared once", () => {
  it(".node-version is a full 24.x version and the suite runs on that major", () => {
    expect(nodeVersion).toMatch(/^24\.\d+\.\d+$/);
    expect(process.versions.node.split(".")[0]).toBe(major);
  });

  it("package.json engines asks for that major", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { engines: { node: string } };
    expect(pkg.engines.node).toBe(`>=${major}`);
  });

  it("the Dockerfile's NODE_VERSION is .node-version, and both stages use it", () => {
    const dockerfile = readFileSync(join(ROOT, "Dockerfile"), "utf8");
    expect(dockerfile).toContain(`ARG NODE_VERSION=${nodeVersion}\n`);
    const froms = dockerfile.split("\n").filter((l) => l.startsWith("FROM "));
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) expect(from).toMatch(/^FROM node:\$\{NODE_VERSION\}-bookworm-slim AS \w+$/);
  });

  it("check-node refuses an older runtime with one line naming the way to get the right one", () => {
    const script = `Object.defineProperty(process, "versions", { value: { ...process.versions, node: "20.20.2" } }); Object.defineProperty(process, "version", { value: "v20.20.2" }); await import(${JSON.stringify(pathToFileURL(join(ROOT, "bin/check-node.mjs")).href)});`;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(`Node.js ${major} or later is required (this is v20.20.2)`);
    expect(r.stderr).toContain("source scripts/ensure-node.sh");
    const ok = spawnSync(process.execPath, [join(ROOT, "bin/check-node.mjs")], { encoding: "utf8" });
    expect(ok.status).toBe(0);
    expect(ok.stderr).toBe("");
  });
});
