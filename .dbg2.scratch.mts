import { analyzeShellCommand } from "./src/review/shell-verdict.js";
import { parseShell } from "./src/review/shell-words.js";
const long = `${"echo hello && ".repeat(5000)}gh pr review -a`;
try { const p = parseShell(long); console.log(p.commands.length, p.parseError, p.commands.at(-1)); } catch (e) { console.log("threw", e); }
