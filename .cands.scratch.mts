import { detectShellVerdict as oldD } from "/work/main/src/review/shell-verdict.js";
import { detectShellVerdict as newD } from "./src/review/shell-verdict.js";
const c = [
 `python3 -c "import requests; print(requests.get('https://api.github.com/repos/o/r/pulls/7/reviews').json())"`,
 `node -e "fetch('https://api.github.com/repos/o/r/pulls/7/reviews').then(r => r.json()).then(console.log)"`,
 `http api.github.com/repos/o/r/pulls/7/reviews "Authorization:Bearer $GH_TOKEN"`,
 `xh https://api.github.com/repos/o/r/pulls/7/reviews per_page==100`,
 `gh api graphql -f query="$(cat <<'EOF'\nquery { repository(owner: "o", name: "r") { pullRequest(number: 7) { reviews(first: 5) { nodes { state } } } } }\nEOF\n)"`,
 `gh api repos/o/r/pulls/7/reviews -f per_page=100 -X GET`,
 `curl -s -X POST https://api.github.com/graphql -H "Authorization: bearer $T" -d '{"query":"query { viewer { login } }"}'`,
 `gh api "repos/o/r/pulls/7/reviews?per_page=100"`,
 `gh api repos/o/r/pulls/$PR/reviews --jq '.[].state'`,
 `curl -s "https://api.github.com/repos/o/r/pulls/7/reviews" -H "Authorization: token $(cat ~/.token)"`,
 `gh pr view 7 --json reviews -q '.reviews[] | select(.state=="APPROVED") | .author.login'`,
 `gh api repos/o/r/pulls/7/reviews --method=GET -F per_page=100`,
 `git log --grep 'approve' --oneline | head`,
 `gh api graphql -F pr=7 -f query='query($pr: Int!) { repository(owner: "o", name: "r") { pullRequest(number: $pr) { reviewDecision } } }'`,
 `ruby -e 'require "net/http"; puts Net::HTTP.get(URI("https://api.github.com/repos/o/r/pulls/7/reviews"))'`,
 `curl -s https://api.github.com/repos/o/r/pulls/7/reviews | python3 -c "import json,sys; print([r['state'] for r in json.load(sys.stdin)])"`,
 `gh api repos/o/r/pulls/7/reviews > reviews.json && jq '.[] | select(.state == "APPROVED")' reviews.json`,
];
for (const x of c) console.log(String(oldD(x)).padEnd(20), String(newD(x)).padEnd(20), JSON.stringify(x).slice(0, 100));
