// Attack: a sandbox holding a leaked token posts a review verdict through the GitHub API. The egress
// proxy of every sandbox the app makes (the registry's wiring, GHE_HOST included) refuses the API
// hosts by name, before any DNS lookup, so this test sends nothing off the machine.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSandboxConfig } from "../../src/config/sandbox-config.js";
import { createSandboxProvider } from "../../src/sandbox/registry.js";
import type { Sandbox, SandboxProvider } from "../../src/sandbox/types.js";
import { viaProxy } from "../helpers/proxy-request.js";

describe("sandboxes cannot reach the GitHub API", () => {
  let root: string;
  let provider: SandboxProvider;
  let sb: Sandbox;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "osw-ghapi-"));
    provider = createSandboxProvider(readSandboxConfig({ SANDBOX_ROOT: root, GHE_HOST: "git.corp.example", GITHUB_API_URL: "http://ghes-api.corp.example:8080/api/v3" }));
    sb = await provider.create({ network: true });
  });
  afterAll(async () => {
    for (const s of await provider.list()) await provider.destroy(s.id);
    await rm(root, { recursive: true, force: true });
  });

  it.each([
    ["CONNECT api.github.com:443 HTTP/1.1\\r\\n\\r\\n", /api\.github\.com serves the GitHub API/],
    ["CONNECT uploads.github.com:443 HTTP/1.1\\r\\n\\r\\n", /uploads\.github\.com serves the GitHub API/],
    ["POST http://api.github.com/repos/o/r/pulls/1/reviews HTTP/1.1\\r\\nHost: api.github.com\\r\\nContent-Length: 2\\r\\n\\r\\n{}", /api\.github\.com serves the GitHub API/],
    ["CONNECT git.corp.example:443 HTTP/1.1\\r\\n\\r\\n", /git\.corp\.example serves the GitHub API/],
    ["POST http://git.corp.example/api/v3/repos/o/r/pulls/1/reviews HTTP/1.1\\r\\nHost: git.corp.example\\r\\nContent-Length: 2\\r\\n\\r\\n{}", /git\.corp\.example serves the GitHub API/],
    ["POST http://git.corp.example/%%61pi/graphql HTTP/1.1\\r\\nHost: git.corp.example\\r\\nContent-Length: 2\\r\\n\\r\\n{}", /git\.corp\.example serves the GitHub API/],
    ["CONNECT uploads.git.corp.example:443 HTTP/1.1\\r\\n\\r\\n", /serves the GitHub API/],
    // GITHUB_API_URL names another host (a GHES API over http, a proxy): closed as well.
    [
      "POST http://ghes-api.corp.example:8080/api/v3/repos/o/r/pulls/1/reviews HTTP/1.1\\r\\nHost: ghes-api.corp.example\\r\\nContent-Length: 2\\r\\n\\r\\n{}",
      /ghes-api\.corp\.example serves the GitHub API/,
    ],
  ])("%s is refused", async (request, reason) => {
    const r = await sb.exec(viaProxy(request));
    expect(r.stdout, JSON.stringify(r)).toMatch(/^HTTP\/1\.1 403 Forbidden/);
    expect(r.stdout).toMatch(reason);
  });
});
