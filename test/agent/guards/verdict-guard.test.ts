import { describe, expect, it } from "vitest";
import { detectShellVerdict } from "../../../src/agent/guards/verdict-guard.js";

type Expected = ReturnType<typeof detectShellVerdict>;

const blocked: Array<[string, Expected]> = [
  // gh pr review: short, long, combined, =value
  ["gh pr review --approve", "APPROVE"],
  ["gh pr review 12 -a", "APPROVE"],
  ["gh pr review -r -b 'needs work'", "REQUEST_CHANGES"],
  ["gh pr review --request-changes --body x 7", "REQUEST_CHANGES"],
  ["gh pr review --approve=true", "APPROVE"],
  ["gh pr review -ab 'LGTM'", "APPROVE"],
  ["gh pr review -rb'fix it'", "REQUEST_CHANGES"],
  ["gh pr -R o/r review 5 --approve", "APPROVE"],
  ["gh pr review https://github.com/o/r/pull/5 -a", "APPROVE"],
  ["gh pr review 5", "UNKNOWN_REVIEW_POST"],
  ["gh pr review $PR $FLAGS", "UNKNOWN_REVIEW_POST"],
  // env prefixes, paths, wrappers
  ["GH_TOKEN=dummy gh pr review --approve", "APPROVE"],
  ["FOO=1 BAR='x y' /usr/bin/gh pr review -a", "APPROVE"],
  ["/usr/local/bin/gh pr review -r", "REQUEST_CHANGES"],
  ["env GH_TOKEN=x gh pr review -a", "APPROVE"],
  ["env -i PATH=/bin gh pr review -a", "APPROVE"],
  ["env -S 'gh pr review -a'", "APPROVE"],
  ["command gh pr review -a", "APPROVE"],
  ["sudo -u root -E gh pr review --approve", "APPROVE"],
  ["nohup gh pr review -a &", "APPROVE"],
  ["timeout 30 gh pr review -a", "APPROVE"],
  ["time gh pr review -a", "APPROVE"],
  ["\\gh pr review -a", "APPROVE"],
  ['"gh" "pr" "review" "--approve"', "APPROVE"],
  ["g''h pr rev\"\"iew --appr\\ove", "APPROVE"],
  // compound commands, subshells, substitutions
  ["git push && gh pr review -a", "APPROVE"],
  ["false || gh pr review -a", "APPROVE"],
  ["cd repo; gh pr review -r", "REQUEST_CHANGES"],
  ["(cd repo && gh pr review -a)", "APPROVE"],
  ["{ gh pr review -a; }", "APPROVE"],
  ["echo $(gh pr review --approve)", "APPROVE"],
  ["echo `gh pr review --approve`", "APPROVE"],
  ['git commit -m "$(gh pr review -a)"', "APPROVE"],
  ["if true; then gh pr review -a; fi", "APPROVE"],
  ["for i in 1 2; do gh pr review $i -a; done", "APPROVE"],
  ["gh pr view 5 | cat && gh pr review 5 -a 2>&1 >/dev/null", "APPROVE"],
  ["gh pr review \\\n  --approve \\\n  5", "APPROVE"],
  // nested shells, eval, xargs, find
  ["bash -c 'gh pr review --approve'", "APPROVE"],
  ['sh -lc "gh pr review -r"', "REQUEST_CHANGES"],
  ["zsh -c 'bash -c \"gh pr review -a\"'", "APPROVE"],
  ["/bin/bash -ec 'set -x; gh pr review -a'", "APPROVE"],
  ["eval 'gh pr review -a'", "APPROVE"],
  ['eval "gh pr review" "--approve"', "APPROVE"],
  ["X=--approve; eval gh pr review $X", "APPROVE"],
  ["echo 5 | xargs gh pr review --approve", "APPROVE"],
  ["echo --approve | xargs gh pr review 5", "APPROVE"],
  ["echo 5 | xargs -I{} gh pr review {} -a", "APPROVE"],
  ["echo 'gh pr review -a' | bash", "APPROVE"],
  ["bash <<'EOF'\ngh pr review --approve\nEOF", "APPROVE"],
  ["sh <<< 'gh pr review -r'", "REQUEST_CHANGES"],
  ["find . -maxdepth 0 -exec gh pr review 5 -a \\;", "APPROVE"],
  ["G=gh; $G pr review -a", "APPROVE"],
  ["X='gh pr review'; $X --approve", "APPROVE"],
  ["F='-a -b ok'; gh pr review 5 $F", "APPROVE"],
  ["$GH pr review -a", "APPROVE"],
  // gh api REST
  ["gh api repos/o/r/pulls/5/reviews -f event=APPROVE", "APPROVE"],
  ["gh api -X POST /repos/o/r/pulls/5/reviews -F event=REQUEST_CHANGES -f body=x", "REQUEST_CHANGES"],
  ["gh api --method=POST repos/{owner}/{repo}/pulls/5/reviews --raw-field event=APPROVE", "APPROVE"],
  ["gh api repos/o/r/pulls/5/reviews/99/events -f event=APPROVE", "APPROVE"],
  ["gh api repos/o/r/pulls/5/reviews -fevent=approve", "APPROVE"],
  ["gh api repos/o/r/pulls/5/reviews --field=event=APPROVE", "APPROVE"],
  ["gh api repos/o/r/pulls/5/reviews --input review.json", "UNKNOWN_REVIEW_POST"],
  ["gh api repos/o/r/pulls/5/reviews --input - < review.json", "UNKNOWN_REVIEW_POST"],
  ["cat review.json | gh api repos/o/r/pulls/5/reviews --input -", "UNKNOWN_REVIEW_POST"],
  ['echo \'{"event":"APPROVE"}\' | gh api repos/o/r/pulls/5/reviews --input -', "APPROVE"],
  ['gh api repos/o/r/pulls/5/reviews --input - <<EOF\n{"event": "REQUEST_CHANGES", "body": "no"}\nEOF', "REQUEST_CHANGES"],
  ['gh api repos/o/r/pulls/5/reviews -f event="$EVENT"', "UNKNOWN_REVIEW_POST"],
  ["gh api repos/o/r/pulls/5/reviews -F event=@event.txt", "UNKNOWN_REVIEW_POST"],
  ["gh api repos/$REPO/pulls/$N/reviews -f event=APPROVE", "APPROVE"],
  ['gh api "$ENDPOINT" -f event=APPROVE', "APPROVE"],
  ['curl -X POST "$URL" -d \'{"event":"REQUEST_CHANGES"}\'', "REQUEST_CHANGES"],
  ["EV=APPROVE; gh api repos/o/r/pulls/5/reviews -f event=$EV", "APPROVE"],
  // curl / wget / httpie
  ["curl -X POST -H 'Authorization: token x' https://api.github.com/repos/o/r/pulls/5/reviews -d '{\"event\":\"APPROVE\"}'", "APPROVE"],
  ['curl -sS https://api.github.com/repos/o/r/pulls/5/reviews --data \'{"body":"ok","event":"REQUEST_CHANGES"}\'', "REQUEST_CHANGES"],
  ['curl -sSXPOST https://api.github.com/repos/o/r/pulls/5/reviews/1/events --json \'{"event":"APPROVE"}\'', "APPROVE"],
  ["curl -X POST https://api.github.com/repos/o/r/pulls/5/reviews -d @review.json", "UNKNOWN_REVIEW_POST"],
  ["curl https://api.github.com/repos/o/r/pulls/5/reviews --data-binary @- < body.json", "UNKNOWN_REVIEW_POST"],
  ['curl -X POST https://api.github.com/repos/o/r/pulls/5/reviews -d "$BODY"', "UNKNOWN_REVIEW_POST"],
  ['wget --method=POST --body-data=\'{"event":"APPROVE"}\' -O- https://api.github.com/repos/o/r/pulls/5/reviews', "APPROVE"],
  ["wget --post-file=r.json https://api.github.com/repos/o/r/pulls/5/reviews", "UNKNOWN_REVIEW_POST"],
  ["http POST https://api.github.com/repos/o/r/pulls/5/reviews event=APPROVE", "APPROVE"],
  // GraphQL
  ["gh api graphql -f query='mutation { addPullRequestReview(input: {pullRequestId: \"PR_1\", event: APPROVE}) { clientMutationId } }'", "APPROVE"],
  ["gh api graphql -f query='mutation($id: ID!) { submitPullRequestReview(input: {pullRequestReviewId: $id, event: REQUEST_CHANGES}) { clientMutationId } }' -f id=R_1", "REQUEST_CHANGES"],
  ["gh api graphql -f query='mutation($e: PullRequestReviewEvent!) { submitPullRequestReview(input: {pullRequestReviewId: \"R\", event: $e}) { clientMutationId } }' -f e=APPROVE", "APPROVE"],
  ['gh api graphql -f query=\'mutation($e: PullRequestReviewEvent!) { submitPullRequestReview(input: {pullRequestReviewId: "R", event: $e}) { clientMutationId } }\' -f e="$E"', "UNKNOWN_REVIEW_POST"],
  ["gh api graphql -F query=@mutation.graphql", "UNKNOWN_REVIEW_POST"],
  ['curl -X POST https://api.github.com/graphql -d \'{"query":"mutation { submitPullRequestReview(input: {pullRequestReviewId: \\"R\\", event: APPROVE}) { clientMutationId } }"}\'', "APPROVE"],
  // wrappers and obfuscation
  ["docker exec sandbox gh pr review 5 --approve", "APPROVE"],
  ["flock /tmp/l sh -c 'gh pr review -a'", "APPROVE"],
  ["npx --yes gh pr review -r", "REQUEST_CHANGES"],
  ["exec -a reviewer gh pr review -a", "APPROVE"],
  ["su -c 'gh pr review -a' agent", "APPROVE"],
  ["alias lgtm='gh pr review --approve'; lgtm 5", "APPROVE"],
  ["git -c alias.lgtm='!gh pr review -a' lgtm", "APPROVE"],
  ["git config --global alias.lgtm '!gh pr review --approve'", "APPROVE"],
  ["bash <(echo 'gh pr review -a')", "APPROVE"],
  ["source <(printf 'gh pr review -r')", "REQUEST_CHANGES"],
  ["echo Z2ggcHIgcmV2aWV3IC1h | base64 -d | sh", "APPROVE"],
  ["bash <(echo Z2ggcHIgcmV2aWV3IC1h | base64 -d)", "APPROVE"],
  ["watch -n 5 gh pr review -a", "APPROVE"],
  ['while read pr; do gh pr review "$pr" --approve; done < prs.txt', "APPROVE"],
  ['gh api --method=POST /repos/o/r/pulls/5/reviews --input=- <<< \'{"event":"APPROVE"}\'', "APPROVE"],
  ['gh api repos/o/r/pulls/5/reviews -f event="APPR""OVE"', "APPROVE"],
  ['gh api repos/o/r/pulls/5/reviews -f "event=$(echo APPROVE)"', "APPROVE"],
  ["node -e \"octokit.rest.pulls.createReview({ owner, repo, pull_number: 5, event: 'APPROVE' })\"", "APPROVE"],
  ["python3 - <<'EOF'\nimport requests\nrequests.post(f'{api}/repos/o/r/pulls/5/reviews', json={'event': 'REQUEST_CHANGES'})\nEOF", "REQUEST_CHANGES"],
  ["python3 -c \"import requests; requests.post('https://api.github.com/repos/o/r/pulls/5/reviews', json={'event': 'APPROVE'})\"", "APPROVE"],
];

const allowed: string[] = [
  "gh pr review --comment -b 'looks fine'",
  "gh pr review 5 -c --body 'please approve once CI passes'",
  "gh pr review -cb 'x'",
  "gh pr review --approve=false --comment",
  "gh pr review --help",
  "gh pr review -b '-a' --comment",
  "gh pr view 5 --json reviews",
  "gh pr comment 5 --body 'I approve of this approach'",
  "gh pr checks 5",
  "gh pr diff 5 | grep -n approve",
  "gh api repos/o/r/pulls/5/reviews",
  "gh api repos/o/r/pulls/5/reviews --paginate --jq '.[] | select(.state == \"APPROVED\")'",
  "gh api -X GET repos/o/r/pulls/5/reviews -f per_page=100",
  'gh api repos/o/r/pulls/5/reviews -f event=COMMENT -f body="$SUMMARY"',
  "gh api -X PUT repos/o/r/pulls/5/reviews/9/dismissals -f message='stale'",
  "gh api repos/o/r/pulls/5/comments -f body='approve'",
  'gh api graphql -f query=\'{ repository(owner: "o", name: "r") { pullRequest(number: 5) { reviews(first: 10) { nodes { state } } } } }\'',
  'gh api graphql -f query=\'query($o: String!) { repository(owner: $o, name: "r") { id } }\' -f o="$OWNER"',
  "curl https://api.github.com/repos/o/r/pulls/5/reviews",
  "curl -s 'https://api.github.com/repos/o/r/pulls/5/reviews?per_page=100' | jq '.[].state'",
  "curl -G https://api.github.com/repos/o/r/pulls/5/reviews -d per_page=100",
  'curl -X POST https://api.github.com/repos/o/r/pulls/5/reviews -d \'{"event":"COMMENT","body":"nit"}\'',
  "curl -X POST https://example.com/approve -d 'event=APPROVE'",
  "wget -qO- https://api.github.com/repos/o/r/pulls/5/reviews",
  "git commit -m 'approve: gh pr review --approve is blocked now'",
  'git commit -m "fix: handle event=APPROVE in parser"',
  "git commit -m 'docs: $(gh pr review -a) stays literal'",
  "grep -rn 'gh pr review --approve' src/",
  "rg -e '--request-changes' -e 'event=APPROVE' .",
  "echo 'gh pr review --approve'",
  'echo "run: gh pr review -a" > notes.txt',
  "printf '%s\\n' 'gh api repos/o/r/pulls/5/reviews -f event=APPROVE'",
  "cat <<'EOF' > script.md\ngh pr review --approve\nEOF",
  "cat <<EOF | tee notes.md\ngh pr review -a\nEOF\nls",
  "# gh pr review --approve\nls -la",
  "npm test -- --grep approve",
  "bash scripts/review.sh --approve",
  "python3 -c 'print(\"approve\")'",
  "sed -i 's/approve/accept/' README.md",
  "gh issue comment 3 --body 'gh pr review -a'",
  "git log --grep='REQUEST_CHANGES'",
  "command -v gh",
  "ls /repos/o/r/pulls/5/reviews",
  'curl -X POST "$URL" -d \'{"event":"COMMENT"}\'',
  'gh api "$ENDPOINT" -f body=x',
  "",
  "git commit -m \"$(cat <<'EOF'\nfeat: approve flow\n\ngh pr review --approve\nEOF\n)\"",
  'gh pr review --comment --body "$(cat review.md)"',
  "docker run --rm node:20 npm test",
  "brew install gh curl",
  "apt-get install -y gh",
  "alias ll='ls -la'",
  "git config user.name 'Open SWE'",
  "curl -fsSL https://example.com/install.sh | sh",
  "source ~/.bashrc",
  "bash scripts/test.sh",
  "gh pr list --search 'review:approved'",
  "gh pr merge 5 --auto --squash",
  "gh api repos/o/r/pulls/5/requested_reviewers -f 'reviewers[]=alice'",
  "gh api repos/o/r/pulls/5/comments/123/replies -f body='event=APPROVE?'",
  'gh api graphql -f query=\'mutation { addPullRequestReviewThread(input: {pullRequestId: "P", body: "x", path: "a", line: 1}) { thread { id } } }\'',
  'gh api graphql -f query=\'mutation { addPullRequestReview(input: {pullRequestId: "P", body: "pending"}) { pullRequestReview { id } } }\'',
  'curl -s -H "Authorization: Bearer $GH_TOKEN" https://api.github.com/repos/o/r/pulls/5/reviews',
  "gh pr review --help | head -20",
  "X='gh pr review --approve'; echo \"$X\"",
  "M='gh pr review -a'; git commit -m \"$M\"",
];

describe("detectShellVerdict", () => {
  it("has a table of at least 60 commands", () => {
    expect(blocked.length + allowed.length).toBeGreaterThanOrEqual(60);
  });

  it.each(blocked)("blocks %j as %s", (command, expected) => {
    expect(detectShellVerdict(command)).toBe(expected);
  });

  it.each(allowed.map((c) => [c]))("allows %j", (command) => {
    expect(detectShellVerdict(command)).toBeNull();
  });
});

describe("detectShellVerdict on hostile input", () => {
  it("never throws and always answers, on 3000 random command lines", () => {
    const alphabet = [
      "gh",
      " pr",
      " review",
      " -a",
      " --approve",
      " api",
      " repos/o/r/pulls/1/reviews",
      " -f event=APPROVE",
      "'",
      '"',
      "\\",
      "$(",
      ")",
      "`",
      "(",
      ";",
      "&&",
      "|",
      "<<",
      "EOF",
      "\n",
      "$X",
      "${",
      "}",
      "<(",
      " bash -c ",
      " eval ",
      " xargs ",
      "#",
      "=",
      "-",
      "{",
      "$'",
    ];
    let seed = 42;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let i = 0; i < 3000; i++) {
      const parts = Array.from({ length: 1 + rand(25) }, () => alphabet[rand(alphabet.length)]!);
      const v = detectShellVerdict(parts.join(""));
      expect([null, "APPROVE", "REQUEST_CHANGES", "UNKNOWN_REVIEW_POST"]).toContain(v);
    }
  });

  it("handles a very long command quickly, and bottoms out on deep nesting", () => {
    const long = `${"echo hello && ".repeat(5000)}gh pr review -a`;
    const started = Date.now();
    expect(detectShellVerdict(long)).toBe("APPROVE");
    expect(Date.now() - started).toBeLessThan(2000);
    let nested = "gh pr review -a";
    for (let i = 0; i < 12; i++) nested = `bash -c ${JSON.stringify(nested)}`;
    expect(detectShellVerdict(nested)).not.toBeNull();
    expect(detectShellVerdict(`${"(".repeat(50_000)}gh pr review -a`)).not.toBeNull();
    expect(detectShellVerdict(`${"$(".repeat(50_000)}ls`)).toBeNull();
  });
});
