import { analyzeShellCommand } from "./src/review/shell-verdict.js";
const src = (await import("node:fs")).readFileSync("test/security/verdict-guard-evasion.test.ts", "utf8");
const m = src.slice(src.indexOf("const evasions"), src.indexOf("/** Reads of"));
const list = eval(m.slice(m.indexOf("["), m.lastIndexOf("]") + 1));
for (const c of list) { const f = analyzeShellCommand(c); console.log((f?.verdict ?? "null").padEnd(20), JSON.stringify(c).slice(0, 70).padEnd(72), f?.reason?.slice(0, 90) ?? ""); }
