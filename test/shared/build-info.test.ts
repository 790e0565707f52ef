import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readBuildInfo, versionLine } from "../../src/shared/build-info.js";
import { ROOT } from "../helpers/paths.js";

const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };

describe("build info", () => {
  it("the version is package.json's; OPEN_SWE_COMMIT names the commit (from src/ there is no build-time file)", () => {
    expect(readBuildInfo("  1a2b3c  ")).toEqual({ version, commit: "1a2b3c", node: process.versions.node });
    expect(readBuildInfo(undefined)).toEqual({ version, commit: null, node: process.versions.node });
  });

  it.each([
    [{ version: "0.2.0", commit: null, node: "24.1.0" }, "open-swe 0.2.0 (node 24.1.0)"],
    [{ version: "0.2.0", commit: "0123456789abcdef0123", node: "24.1.0" }, "open-swe 0.2.0 (commit 0123456789ab, node 24.1.0)"],
  ])("versionLine(%j)", (info, line) => {
    expect(versionLine(info)).toBe(line);
  });
});
