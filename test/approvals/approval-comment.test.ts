import { describe, expect, it } from "vitest";
import { approvalRequestComment, denialMessage, previewToolInput } from "../../src/approvals/approval-comment.js";
import { maskSecrets } from "../../src/approvals/mask-secrets.js";

describe("maskSecrets", () => {
  const cases: Array<[string, unknown, unknown]> = [
    ["a GitHub token in a command", { command: "GH_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123 gh pr list" }, { command: "GH_TOKEN=*** gh pr list" }],
    ["a bare GitHub token", "push with ghs_abcdefghijklmnopqrstu", "push with ***"],
    ["a fine-grained PAT", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "***"],
    ["an Anthropic key", "sk-ant-api03-abcdefghijklmnopqrstuv", "***"],
    ["a bearer header", { headers: { Accept: "json", "X-Trace": "Bearer abcdefghijklmnop" } }, { headers: { Accept: "json", "X-Trace": "Bearer ***" } }],
    ["a secret-named key", { url: "https://x", authorization: "whatever-it-is", apiKey: 12345678 }, { url: "https://x", authorization: "***", apiKey: "***" }],
    ["URL credentials", "git clone https://bob:hunter22@example.com/r.git", "git clone https://***@example.com/r.git"],
    ["a private key block", "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----", "***"],
    ["a password assignment", "mysql --host db PASSWORD='s3cret pass' -e 'select 1'", "mysql --host db PASSWORD=*** -e 'select 1'"],
    ["ordinary text is left alone", { command: "npm test -- --token-count 3", path: "src/auth.ts" }, { command: "npm test -- --token-count 3", path: "src/auth.ts" }],
  ];
  it.each(cases)("%s", (_label, input, expected) => expect(maskSecrets(input)).toEqual(expected));
});

describe("approval request comment", () => {
  it("names the tool, shows masked truncated input in a fence it cannot close, and the commands", () => {
    const body = approvalRequestComment({
      id: "1a2b3c4d",
      handle: "open-swe",
      requester: "dana",
      timeoutMinutes: 60,
      calls: [{ name: "execute", args: { command: "echo ```` && " + "x".repeat(900) + " sk-ant-abcdefghijklmnopqrstuvwxyz" } }],
    });
    expect(body).toContain("call `execute`");
    expect(body).toContain("`````json");
    expect(body).toContain("more characters]");
    expect(body).not.toContain("sk-ant-");
    expect(body).toContain("`@open-swe approve 1a2b3c4d`");
    expect(body).toContain("`@open-swe deny 1a2b3c4d [reason]`");
    expect(body).toContain("@dana or anyone with write access");
  });
  it("caps the whole input", () => {
    const preview = previewToolInput(Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, "v".repeat(400)])));
    expect(preview.length).toBeLessThan(2_100);
    expect(preview).toMatch(/… \[truncated\]$/);
  });
  it("says who denied and why, or that the timeout did", () => {
    expect(denialMessage({ by: "dana" }, "not now")).toBe("Denied by @dana: not now. Continue without this call.");
    expect(denialMessage({ timeoutMinutes: 5 })).toMatch(/^Denied automatically: nobody approved this call within 5 minutes/);
  });
});
