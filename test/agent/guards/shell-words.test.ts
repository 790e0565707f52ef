import { describe, expect, it } from "vitest";
import { DYN, SPLIT } from "../../../src/agent/guards/shell-command.js";
import { parseShell } from "../../../src/agent/guards/shell-words.js";

const words = (script: string): string[][] => parseShell(script).commands.map((c) => c.words);

describe("parseShell (tree-sitter-bash → simple commands)", () => {
  it.each<[string, string[][]]>([
    ["g\\h 'p'\"r\" re''view", [["gh", "pr", "review"]]],
    ["$'\\x67\\u0068' $\"pr\"", [["gh", "pr"]]],
    [
      'X=1; echo "a $X $(echo b) c"',
      [
        ["echo", "b"],
        ["echo", "a 1 b c"],
      ],
    ],
    ["A='x y'; echo $A \"$A\"", [["echo", "x", "y", "x y"]]],
    ['echo $UNSET "$UNSET"', [["echo", `${DYN}${SPLIT}`, DYN]]],
    ["g\\\nh pr", [["gh", "pr"]]],
    ["time (gh pr list)", [["gh", "pr", "list"], ["time"]]],
    ["echo *.ts {a,b}", [["echo", `*.ts${DYN}${SPLIT}`, `${DYN}${SPLIT}`]]],
    ["a && b || c; d | e", [["a"], ["b"], ["c"], ["d"], ["e"]]],
    ["f() { gh pr view; }; f", [["gh", "pr", "view"], ["f"]]],
    ["GH_TOKEN=x gh api", [["GH_TOKEN=x", "gh", "api"]]],
  ])("%j", (script, expected) => {
    expect(words(script)).toEqual(expected);
  });

  it("feeds a here-doc to its command and pipes that into the next (tree-sitter nests the pipe in the redirect)", () => {
    const [cat, sh] = parseShell("cat <<EOF | sh\ngh pr $(echo review)\nEOF").commands.filter((c) => c.words[0] !== "echo");
    expect(cat?.stdin).toEqual({ kind: "text", text: "gh pr review\n" });
    expect(sh?.stdin).toEqual({ kind: "pipe", from: cat });
  });

  it("keeps a quoted here-doc literal and strips tabs for <<-", () => {
    expect(parseShell("cat <<'E'\n$(x) $Y\nE").commands[0]?.stdin).toEqual({ kind: "text", text: "$(x) $Y\n" });
    expect(parseShell("cat <<-E\n\t\tz\n\tE").commands[0]?.stdin).toEqual({ kind: "text", text: "z\n" });
  });

  it("puts back the lone `-` tree-sitter drops before a here-doc", () => {
    expect(parseShell("python3 - <<EOF\nprint(1)\nEOF").commands[0]?.words).toEqual(["python3", "-"]);
  });

  it("reports a parse error, also when tree-sitter silently drops text", () => {
    expect(parseShell("echo 'unterminated").parseError).toBe(true);
    expect(parseShell("gh pr review -a\n)").parseError).toBe(true);
    expect(parseShell("echo fine").parseError).toBe(false);
  });

  it("records redirect targets and assignments", () => {
    const parsed = parseShell("GIT_PAGER=less git log > out.txt; export E=1");
    expect(parsed.commands[0]?.writes).toEqual(["out.txt"]);
    expect(parsed.assignments).toEqual([
      ["GIT_PAGER", "less"],
      ["E", "1"],
    ]);
  });
});
