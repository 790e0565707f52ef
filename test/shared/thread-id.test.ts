import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { ROOT, TSX_LOADER } from "../helpers/paths.js";
import { prRef, threadId, threadKey, type ThreadKey } from "../../src/shared/thread-id.js";

describe("thread ids", () => {
  const table: [ThreadKey, string][] = [
    [{ kind: "pr", owner: "Octo", repo: "Hello-World", number: 7 }, "github:octo/hello-world#7"],
    [{ kind: "reviewer", owner: "octo", repo: "hello-world", number: 7 }, "github:octo/hello-world#7/reviewer"],
    [{ kind: "issue", issueId: 1234567 }, "github-issue:1234567"],
  ];
  it.each(table)("%j keys as %s", (key, expected) => {
    expect(threadKey(key)).toBe(expected);
    expect(threadId(key)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("is case-insensitive in owner/repo and distinct per kind and number", () => {
    const a = threadId({ kind: "pr", owner: "Octo", repo: "Repo", number: 1 });
    expect(a).toBe(threadId({ kind: "pr", owner: "octo", repo: "repo", number: 1 }));
    expect(a).not.toBe(threadId({ kind: "pr", owner: "octo", repo: "repo", number: 2 }));
    expect(a).not.toBe(threadId({ kind: "reviewer", owner: "octo", repo: "repo", number: 1 }));
  });

  it("is the same in another process", () => {
    const other = execFileSync(
      process.execPath,
      [
        "--import",
        TSX_LOADER,
        "-e",
        `import(${JSON.stringify(pathToFileURL(join(ROOT, "src/shared/thread-id.ts")).href)}).then(m => process.stdout.write(m.threadId({kind:"pr",owner:"o",repo:"r",number:3})))`,
      ],
      { encoding: "utf8" },
    );
    expect(other).toBe(threadId({ kind: "pr", owner: "o", repo: "r", number: 3 }));
  });

  it("pins the namespace (changing it would orphan every thread)", () => {
    // Value computed independently with Python's uuid.uuid5 over the same namespace and key.
    expect(threadId({ kind: "pr", owner: "o", repo: "r", number: 1 })).toBe("03b1d2e7-e131-5b70-ac9e-3c76a60ca3ab");
  });

  it("prRef lower-cases", () => {
    expect(prRef("Octo", "Repo", 5)).toBe("octo/repo#5");
  });
});
