import { analyzeShellCommand } from "./src/review/shell-verdict.js";
import { parseShell } from "./src/review/shell-words.js";
for (const c of process.argv.slice(2)) { console.log(JSON.stringify(c), JSON.stringify(analyzeShellCommand(c))); const p = parseShell(c); console.log(JSON.stringify(p.commands.map(x => [x.words, x.stdin?.kind === 'text' ? x.stdin.text : x.stdin?.kind])), p.parseError); }
