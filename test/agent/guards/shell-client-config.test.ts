import { describe, expect, it } from "vitest";
import { clientConfig, type Client, type ClientConfig, type WrittenFile } from "../../../src/agent/guards/shell-client-config.js";
import { programFamily } from "../../../src/agent/guards/shell-verdict.js";

const rc = (path: string, text: string | null): WrittenFile => ({ path, text });

describe("clientConfig: what a command set up for a client before calling it", () => {
  const rows: Array<[string, Client, string, WrittenFile[], string[], ClientConfig["kind"]]> = [
    ["nothing written", "curl", "curl https://x", [], [], "none"],
    ["a readable .curlrc", "curl", "echo silent > ~/.curlrc; curl https://x", [rc("~/.curlrc", "silent\n")], [], "args"],
    ["a .curlrc copied in", "curl", "cp a ~/.curlrc; curl https://x", [], [], "unseen"],
    ["a .curlrc written then copied over", "curl", "echo silent > ~/.curlrc; cp a ~/.curlrc; curl x", [rc("~/.curlrc", "silent\n")], [], "unseen"],
    ["a .curlrc with unreadable text", "curl", "cat a > ~/.curlrc; curl x", [rc("~/.curlrc", null)], [], "unseen"],
    ["CURL_HOME moved", "curl", "CURL_HOME=. curl x", [], ["CURL_HOME"], "unseen"],
    ["HOME moved", "wget", "HOME=/tmp wget x", [], ["HOME"], "unseen"],
    ["another client's variable", "curl", "WGETRC=x curl x", [], ["WGETRC"], "none"],
    ["a readable .wgetrc", "wget", "echo 'method = POST' > ~/.wgetrc; wget x", [rc("~/.wgetrc", "method = POST\n")], [], "args"],
    ["any gh config", "gh", "echo 'editor: vim' > ~/.config/gh/config.yml; gh pr list", [rc("~/.config/gh/config.yml", "editor: vim\n")], [], "unseen"],
    ["httpie default_options", "httpie", "echo '{}' > ~/.config/httpie/config.json; http x", [rc("~/.config/httpie/config.json", '{"default_options":["--form"]}')], [], "args"],
    ["httpie config that is not JSON", "httpie", "echo x > ~/.config/httpie/config.json; http x", [rc("~/.config/httpie/config.json", "x")], [], "unseen"],
  ];
  it.each(rows)("%s", (_what, client, raw, writes, assigned, kind) => {
    expect(clientConfig(client, raw, writes, new Set(assigned)).kind).toBe(kind);
  });

  it("reads a config's lines as the options they stand for", () => {
    expect(clientConfig("curl", "> .curlrc", [rc(".curlrc", 'data = "{\\"event\\":\\"APPROVE\\"}"\nsilent\n')], new Set())).toEqual({
      kind: "args",
      args: ["--data", '{"event":"APPROVE"}', "--silent"],
    });
    expect(clientConfig("wget", "> .wgetrc", [rc(".wgetrc", "post_data = a=b\n# c = d\n")], new Set())).toEqual({ kind: "args", args: ["--post-data=a=b"] });
  });
});

describe("programFamily: a versioned build is the program", () => {
  it.each([
    ["python3.11", "python"],
    ["python3", "python"],
    ["python3.12-dbg", "python"],
    ["node22", "node"],
    ["perl5.36", "perl"],
    ["perl5.36.0", "perl"],
    ["pypy3", "pypy"],
    ["php8.2", "php"],
    ["lua5.4", "lua"],
    ["bash5.2", "bash"],
    ["python3.11-config", "python3.11-config"],
    ["gh", "gh"],
    ["x86_64-linux-gnu-gcc", "x86_64-linux-gnu-gcc"],
  ])("%s → %s", (name, family) => {
    expect(programFamily(name)).toBe(family);
  });
});
