import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isMountPoint, unmount } from "../../src/sandbox/overlay.js";
import { LocalSandboxProvider, type LocalSandbox } from "../../src/sandbox/providers/local.js";
import { ModalSandboxProvider } from "../../src/sandbox/providers/modal.js";
import { readSandboxConfig } from "../../src/config/sandbox-config.js";
import { hostGit } from "../../src/sandbox/workspace/host-git.js";
import { BOT_IDENTITY, coAuthoredByTrailer } from "../../src/sandbox/workspace/identity.js";
import { ensureMirror, resolveRef, resolveRefs } from "../../src/sandbox/workspace/mirror.js";
import { prepareWorkspace, reuseWorkspace } from "../../src/sandbox/workspace/prepare-workspace.js";
import { DEFAULT_MAX_BUNDLE_BYTES as MAX, PushRejectedError, createPushBundle, verifyAndPushBundle } from "../../src/sandbox/workspace/push.js";
import { shellQuote } from "../../src/shared/shell-quote.js";
import { fakeModalApi } from "./fakes/fake-modal.js";
import { startGitHttpServer } from "./fakes/git-http-server.js";

const TOKEN = `ghs_${"Zk3".repeat(12)}`;
const TOKEN_B64 = Buffer.from(`x-access-token:${TOKEN}`).toString("base64");
const author = { GIT_AUTHOR_NAME: "Dev", GIT_AUTHOR_EMAIL: "dev@example.com", GIT_COMMITTER_NAME: "Dev", GIT_COMMITTER_EMAIL: "dev@example.com" };

describe("workspace from a host mirror, and the host-side push", () => {
  let tmp: string;
  let mirrorRoot: string;
  let provider: LocalSandboxProvider;
  let git: Awaited<ReturnType<typeof startGitHttpServer>>;
  let remoteUrl: string;
  let mirror: string;
  let mainSha: string;
  const originBare = () => join(tmp, "origin", "acme", "app.git");

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), "osw-ws-"));
    mirrorRoot = join(tmp, "mirrors");
    provider = new LocalSandboxProvider({ root: join(tmp, "sandboxes"), execTimeoutMs: 30_000, maxOutputBytes: 1 << 20 });
    const seed = join(tmp, "seed");
    await mkdir(join(seed, ".github", "workflows"), { recursive: true });
    await mkdir(join(seed, "src"), { recursive: true });
    await writeFile(join(seed, "README.md"), "# app\n");
    await writeFile(join(seed, "src", "a.txt"), "one\n");
    await writeFile(join(seed, ".github", "workflows", "ci.yml"), "on: push\n");
    await hostGit(["init", "-q", "-b", "main", seed]);
    await hostGit(["-C", seed, "add", "-A"]);
    await hostGit(["-C", seed, "commit", "-q", "-m", "initial"], { env: author });
    await mkdir(join(tmp, "origin", "acme"), { recursive: true });
    await hostGit(["clone", "-q", "--bare", seed, originBare()]);
    git = await startGitHttpServer(join(tmp, "origin"), TOKEN);
    remoteUrl = `${git.url}/acme/app.git`;
    mirror = await ensureMirror({ mirrorRoot, repo: "acme/app", remoteUrl, token: TOKEN });
    mainSha = await resolveRef(mirror, "main");
  });
  afterAll(async () => {
    git.server.close();
    for (const s of await provider.list()) await provider.destroy(s.id);
    await rm(tmp, { recursive: true, force: true });
  });

  it("resolveRefs: the refs asked for, in one git process, exactly (no prefix matches), missing ones absent, tags peeled", async () => {
    await hostGit(["-C", mirror, "update-ref", "refs/pull/1/head", mainSha]);
    await hostGit(["-C", mirror, "tag", "-a", "-m", "v", "v1", mainSha], { env: author });
    const refs = await resolveRefs(mirror, ["refs/heads/main", "refs/heads/main", "refs/heads/gone", "refs/tags/v1", "refs/pull/1"]);
    expect([...refs]).toEqual([
      ["refs/heads/main", mainSha],
      ["refs/tags/v1", mainSha],
    ]);
    await hostGit(["-C", mirror, "update-ref", "-d", "refs/pull/1/head"]);
    await hostGit(["-C", mirror, "tag", "-d", "v1"]);
  });

  it("the mirror needs the token to fetch and never stores it", async () => {
    await expect(ensureMirror({ mirrorRoot: join(tmp, "other"), repo: "acme/app", remoteUrl })).rejects.toThrow(/git_failed|failed/);
    expect(git.refused).toBeGreaterThan(0);
    await ensureMirror({ mirrorRoot, repo: "acme/app", remoteUrl, token: TOKEN });
    const config = await hostGit(["-C", mirror, "config", "--list"]);
    expect(config).toContain(`remote.origin.url=${remoteUrl}`);
    expect(config).not.toContain(TOKEN);
  });

  it("clone → edit → commit → push through the local provider; no token anywhere in the sandbox", async () => {
    const sb = await provider.create({ network: false, labels: { thread: "t1" } });
    const ws = await prepareWorkspace({ sandbox: sb, mirrorRoot, mirror, ref: "main", branch: "open-swe/t1", publicUrl: "https://github.com/acme/app.git" });
    expect(ws).toMatchObject({ sha: mainSha, branch: "open-swe/t1", mode: "overlay", dir: "/workspace" });
    expect(await isMountPoint(sb.hostWorkspace)).toBe(true);
    const fresh = await sb.exec("git branch --show-current && git status --porcelain && git config user.name");
    expect(fresh.stdout).toBe("open-swe/t1\nopen-swe[bot]\n");

    const message = `Fix the greeting\n\n${coAuthoredByTrailer({ name: "Ada", email: "ada@example.com" })}\n`;
    const edit = await sb.exec(`echo two >> src/a.txt && git commit -qam ${shellQuote(message)} && git log -1 --format='%an <%ae>%n%B'`);
    expect(edit.exitCode, edit.stderr).toBe(0);
    expect(edit.stdout).toContain(`${BOT_IDENTITY.name} <${BOT_IDENTITY.email}>`);
    expect(edit.stdout).toContain("Co-authored-by: Ada <ada@example.com>");

    const bundle = await createPushBundle(sb, { branch: "open-swe/t1", since: mainSha, maxBytes: MAX });
    expect(bundle).not.toBeNull();
    const before = git.authorized;
    const pushed = await verifyAndPushBundle({ mirror, bundle: bundle!, branch: "open-swe/t1", expectedOld: mainSha, remoteUrl, token: TOKEN, maxBytes: MAX });
    expect(pushed).toMatchObject({ commits: 1, changedFiles: ["src/a.txt"] });
    expect(git.authorized).toBeGreaterThan(before);
    expect((await hostGit(["-C", originBare(), "rev-parse", "refs/heads/open-swe/t1"])).trim()).toBe(pushed.newSha);

    // The whole sandbox view (host /usr is the read-only system image), its env and git config.
    const search = (box: LocalSandbox, needle: string) =>
      box.exec(
        `grep -rlF --binary-files=text -e ${shellQuote(needle)} / --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev --exclude-dir=usr 2>/dev/null; ` +
          `env | grep -F -e ${shellQuote(needle)}; git config --list --show-origin 2>/dev/null | grep -F -e ${shellQuote(needle)}; ` +
          `grep -lF -e ${shellQuote(needle)} /proc/self/environ /proc/1/environ; true`,
      );
    for (const needle of [TOKEN, TOKEN_B64]) {
      expect((await search(sb, needle)).stdout).toBe("");
      // And on the host: the sandbox's directory (overlay upper layer, metadata), the mirror and the shared base.
      const host = await hostGit(["grep", "--no-index", "-l", "-F", "-e", needle, "--", join(tmp, "sandboxes"), mirrorRoot]).catch(() => "");
      expect(host).toBe("");
    }
    // Control: the same search does find a token that is there.
    const leaky = await provider.create({ network: false, env: { LEAK: TOKEN } });
    await leaky.exec(`echo ${TOKEN} > planted.txt`);
    expect((await search(leaky, TOKEN)).stdout).toMatch(/\/workspace\/planted\.txt[\s\S]*LEAK=/);
    await provider.destroy(leaky.id);
    expect((await sb.exec("git remote get-url origin")).stdout.trim()).toBe("https://github.com/acme/app.git");
  });

  it("refuses bundles that touch workflows, are not fast-forwards, or carry other refs; and a bad token", async () => {
    const sb = await provider.create({ network: false });
    await prepareWorkspace({ sandbox: sb, mirrorRoot, mirror, ref: "main", branch: "open-swe/t2", publicUrl: "https://github.com/acme/app.git" });
    await sb.exec("echo 'on: pull_request' > .github/workflows/ci.yml && git commit -qam 'ci'");
    const wf = (await createPushBundle(sb, { branch: "open-swe/t2", since: mainSha, maxBytes: MAX }))!;
    const push = (o: Partial<Parameters<typeof verifyAndPushBundle>[0]> & { bundle: Uint8Array }) =>
      verifyAndPushBundle({ mirror, branch: "open-swe/t2", expectedOld: mainSha, remoteUrl, token: TOKEN, maxBytes: MAX, ...o }).catch((e: unknown) => e);
    expect(await push({ bundle: wf })).toMatchObject({ reason: "workflow_change" });
    expect(await push({ bundle: wf, token: "ghs_wrong" })).toBeInstanceOf(Error);
    expect(await push({ bundle: wf, token: "ghs_wrong", allowWorkflowChanges: true })).toMatchObject({ reason: "remote_rejected" });
    expect(await push({ bundle: wf, allowWorkflowChanges: true })).toMatchObject({ commits: 1 });

    // A rewritten history: the branch no longer contains what the remote has.
    await sb.exec("git checkout -q --orphan rewrite && git commit -qm 'rewrite' && git branch -f open-swe/t2 rewrite");
    const orphan = await sb.exec(`git bundle create -q .git/x.bundle refs/heads/open-swe/t2`);
    expect(orphan.exitCode).toBe(0);
    const [x] = await sb.download([".git/x.bundle"]);
    expect(await push({ bundle: x!.content! })).toMatchObject({ reason: "not_fast_forward" });

    const y2 = await sb.exec(
      `git checkout -q -B open-swe/t2 ${mainSha} && echo x > new.txt && git add new.txt && git commit -qm new && ` +
        `git checkout -q -b sneaky && echo y > other.txt && git add other.txt && git commit -qm other && ` +
        `git bundle create -q .git/y.bundle refs/heads/open-swe/t2 refs/heads/sneaky ^${mainSha}`,
    );
    expect(y2.exitCode, y2.stderr).toBe(0);
    const [y] = await sb.download([".git/y.bundle"]);
    expect(await push({ bundle: y!.content! })).toMatchObject({ reason: "extra_refs" });
    expect(await push({ bundle: new TextEncoder().encode("not a bundle") })).toMatchObject({ reason: "bad_bundle" });
    expect(await push({ bundle: new Uint8Array() })).toBeInstanceOf(PushRejectedError);
  });

  it("a new overlay workspace is put on its branch by the host, without a sandbox command, and the sandbox owns it", async () => {
    const sb = await provider.create({ network: false });
    const exec = sb.exec.bind(sb);
    let commands = 0;
    sb.exec = (...args) => {
      commands += 1;
      return exec(...args);
    };
    const ws = await prepareWorkspace({ sandbox: sb, mirrorRoot, mirror, ref: "main", branch: "open-swe/deep/t6", publicUrl: "https://github.com/acme/app.git" });
    expect({ mode: ws.mode, commands }).toEqual({ mode: "overlay", commands: 0 });
    const r = await exec(
      "git symbolic-ref HEAD && git rev-parse HEAD && git status --porcelain && echo x >> README.md && git commit -qam edit && git rev-parse open-swe/deep/t6 && git rev-list --count HEAD",
    );
    expect(r.exitCode).toBe(0);
    const [head, sha, newSha, count] = r.stdout.trim().split("\n");
    expect({ head, sha }).toEqual({ head: "refs/heads/open-swe/deep/t6", sha: mainSha });
    expect(newSha).not.toBe(mainSha);
    expect(Number(count)).toBeGreaterThan(1);
    await provider.destroy(sb.id);
  });

  it("a reconnect after a host restart remounts the overlay with the thread's changes", async () => {
    const sb = await provider.create({ network: false });
    await prepareWorkspace({ sandbox: sb, mirrorRoot, mirror, ref: "main", branch: "open-swe/t3", publicUrl: "https://github.com/acme/app.git" });
    await sb.exec("echo draft > notes.txt");
    await unmount(sb.hostWorkspace);
    expect(existsSync(join(sb.hostWorkspace, "README.md"))).toBe(false);
    const again = (await provider.connect(sb.id)) as LocalSandbox;
    expect((await again.exec("cat notes.txt README.md && git branch --show-current")).stdout).toBe("draft\n# app\nopen-swe/t3\n");
    const reused = await prepareWorkspace({ sandbox: again, mirrorRoot, mirror, ref: "main", branch: "open-swe/t3", publicUrl: "https://github.com/acme/app.git" });
    expect(reused.mode).toBe("existing");
  });

  it("a thread's later run reuses its workspace as the agent left it, with the run's git identity set again", async () => {
    const sb = await provider.create({ network: false });
    const exec = sb.exec.bind(sb);
    const opts = { sandbox: sb, mirrorRoot, mirror, ref: "main", branch: "open-swe/t9", publicUrl: "https://github.com/acme/app.git" };
    expect(await reuseWorkspace(sb)).toBe(false);
    await prepareWorkspace(opts);
    const person = { name: "octo-app[bot]", email: "7+octo-app[bot]@users.noreply.github.com" };
    const tamper = "git config user.name mallory && git config user.email m@evil.example && echo draft > notes.txt";
    const seen = "git config user.name && git config user.email && cat notes.txt";
    expect((await exec(tamper)).exitCode).toBe(0);
    expect(await reuseWorkspace(sb, person)).toBe(true);
    expect((await exec(seen)).stdout).toBe(`${person.name}\n${person.email}\ndraft\n`);
    // Asked by prepareWorkspace itself, without a caller's answer: the bot's identity by default.
    expect((await exec(tamper)).exitCode).toBe(0);
    expect((await prepareWorkspace(opts)).mode).toBe("existing");
    expect((await exec(seen)).stdout).toBe(`${BOT_IDENTITY.name}\n${BOT_IDENTITY.email}\ndraft\n`);
    // The caller's answer is taken as it is: no second look, no command in the sandbox.
    let commands = 0;
    sb.exec = (...args) => {
      commands += 1;
      return exec(...args);
    };
    expect({ mode: (await prepareWorkspace({ ...opts, reused: true })).mode, commands }).toEqual({ mode: "existing", commands: 0 });
    await provider.destroy(sb.id);
  });

  it("network-on sandboxes with an overlay workspace are destroyed cleanly, whichever came first", async () => {
    for (const execFirst of [true, false]) {
      const sb = await provider.create({ network: true });
      if (execFirst) expect((await sb.exec("true")).exitCode).toBe(0);
      await prepareWorkspace({ sandbox: sb, mirrorRoot, mirror, ref: "main", branch: "open-swe/net", publicUrl: "https://github.com/acme/app.git" });
      expect((await sb.exec("git status --porcelain && echo clean")).stdout).toBe("clean\n");
      await provider.destroy(sb.id);
      expect(existsSync(join(tmp, "sandboxes", sb.id))).toBe(false);
      expect(await isMountPoint(sb.hostWorkspace)).toBe(false);
    }
  });

  it("falls back to a hard-linked clone without overlayfs, and uses a bundle for remote providers", async () => {
    const sb = await provider.create({ network: false });
    sb.mountBase = () => Promise.reject(new Error("overlay: permission denied"));
    const ws = await prepareWorkspace({ sandbox: sb, mirrorRoot, mirror, ref: "main", branch: "open-swe/t4", publicUrl: "https://github.com/acme/app.git" });
    expect(ws.mode).toBe("clone");
    expect((await sb.exec("git rev-parse HEAD && cat README.md")).stdout).toBe(`${mainSha}\n# app\n`);

    const modalLocal = new LocalSandboxProvider({ root: join(tmp, "modal"), execTimeoutMs: 30_000, maxOutputBytes: 1 << 20 });
    const modal = new ModalSandboxProvider(readSandboxConfig({ SANDBOX_TYPE: "modal" }), fakeModalApi(modalLocal));
    const remote = await modal.create({ network: false });
    const rw = await prepareWorkspace({ sandbox: remote, mirrorRoot, mirror, ref: mainSha, branch: "open-swe/t5", publicUrl: "https://github.com/acme/app.git" });
    expect(rw.mode).toBe("bundle");
    expect((await remote.exec("git rev-parse HEAD && git config user.name && git status --porcelain")).stdout).toBe(`${mainSha}\nopen-swe[bot]\n`);
    await modal.destroy(remote.id);
  });
});
