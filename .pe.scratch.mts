import { parseShell } from "./src/review/shell-words.js";
import { analyzeShellCommand } from "./src/review/shell-verdict.js";
const cases = [
 `case "$x" in a|b) gh pr view 1;; *) echo no;; esac`,
 `if [[ -n "$PR" && $PR =~ ^[0-9]+$ ]]; then gh pr view "$PR"; fi`,
 `(( i = 1 + 2 )); echo $((i*2)); gh pr list`,
 `function f { gh pr list; }; f`,
 `while IFS= read -r line; do echo "$line"; done < <(gh pr list)`,
 `x=\${y//a/b}; echo "\${x#*/}" "\${#x}" "\${arr[0]}"; gh pr list`,
 `gh pr list --json number,title --jq '.[] | "\\(.number) \\(.title)"'`,
 `[ -f x ] && gh pr view 1 || true`,
 `cd /tmp && { gh pr list 2>/dev/null || echo none; } | tee out.txt`,
 `time (gh pr list)`,
 `echo "a" "b" 'c' $'d' > /dev/null 2>&1 &`,
 `git diff HEAD~1 -- '*.ts' | grep -E '^\\+' | wc -l; gh pr checks`,
 `for ((i=0;i<3;i++)); do gh pr view $i; done`,
 `select x in a b; do break; done; gh pr list`,
 `coproc gh pr list`,
 `gh pr list > >(tee log.txt)`,
 `export PATH="$HOME/.local/bin:$PATH"; gh --version`,
 `cat > file.txt << 'EOF'\nline1 gh approve\nEOF\ngit add file.txt && git commit -m "approve docs"`,
 `npm ci && npm run build -- --prod && gh pr view 7 --json reviews`,
 `git commit -am "fix: don't approve" && git push origin HEAD`,
];
for (const c of cases) { const p = parseShell(c); const f = analyzeShellCommand(c); console.log(p.parseError ? "PARSE-ERR" : "ok       ", String(f?.verdict ?? null).padEnd(20), JSON.stringify(c).slice(0, 90)); }
