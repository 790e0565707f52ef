import { detectShellVerdict } from "/work/main/src/review/shell-verdict.js";
const src = (await import("node:fs")).readFileSync("test/security/verdict-guard-evasion.test.ts", "utf8");
const pick = (from: string, to: string) => { const m = src.slice(src.indexOf(from), to ? src.indexOf(to) : undefined); return eval(m.slice(m.indexOf("["), m.lastIndexOf("]") + 1)) as string[]; };
const ev = pick("const evasions", "/** Reads of"); const be = pick("const benign", "describe(");
console.log("old guard: evasions missed", ev.filter((c) => detectShellVerdict(c) === null).length, "of", ev.length);
for (const c of be) { const v = detectShellVerdict(c); if (v) console.log("old blocks benign:", v, JSON.stringify(c)); }
