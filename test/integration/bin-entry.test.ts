import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/paths.js";

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

/**
 * A checkout in miniature: the real bin/, the real node_modules (tsx), a TypeScript cli that says so
 * (a type annotation only tsx can run) and a compiled one that says so; every file's time set by hand.
 */
function checkout(o: { dist: boolean; src?: boolean }): { root: string; touch: (rel: string, s: number) => void } {
  const root = mkdtempSync(join(tmpdir(), "osw-bin-"));
  roots.push(root);
  mkdirSync(join(root, "bin"));
  for (const f of ["open-swe.mjs", "choose-entry.mjs"]) copyFileSync(join(ROOT, "bin", f), join(root, "bin", f));
  symlinkSync(join(ROOT, "node_modules"), join(root, "node_modules"));
  const touch = (rel: string, s: number) => utimesSync(join(root, rel), at(s), at(s));
  writeFileSync(join(root, "package.json"), '{ "type": "module" }\n');
  writeFileSync(join(root, "tsconfig.json"), "{}\n");
  touch("tsconfig.json", 0);
  if (o.src !== false) {
    mkdirSync(join(root, "src", "sandbox"), { recursive: true });
    writeFileSync(join(root, "src", "cli.ts"), 'const form: string = "tsx";\nconsole.log(form);\n');
    writeFileSync(join(root, "src", "sandbox", "x.ts"), "export {};\n");
    for (const p of ["src/cli.ts", "src/sandbox/x.ts", "src/sandbox", "src"]) touch(p, 10);
  }
  if (o.dist) {
    mkdirSync(join(root, "dist", "src"), { recursive: true });
    writeFileSync(join(root, "dist", "src", "cli.js"), 'console.log("dist");\n');
    touch("dist/src/cli.js", 20);
  }
  return { root, touch };
}

const run = (root: string) => spawnSync(process.execPath, [join(root, "bin", "open-swe.mjs")], { cwd: tmpdir(), encoding: "utf8", timeout: 60_000 });

describe("bin/open-swe.mjs runs dist/ when it is up to date, else the sources through tsx", () => {
  it.each([
    ["never built", { dist: false }, [], "tsx"],
    ["built after every source", { dist: true }, [], "dist"],
    ["a source edited after the build", { dist: true }, ["src/sandbox/x.ts"], "tsx"],
    ["a file added or removed after the build (its directory changed)", { dist: true }, ["src/sandbox"], "tsx"],
    ["the compiler settings changed after the build", { dist: true }, ["tsconfig.json"], "tsx"],
    ["an image: dist/ only", { dist: true, src: false }, [], "dist"],
  ] as const)("%s → %s", (_name, layout, touched, form) => {
    const { root, touch } = checkout(layout);
    for (const p of touched) touch(p, 30);
    const r = run(root);
    expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ status: 0, stdout: `${form}\n`, stderr: "" });
  });
});
