import { chmod, mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hostGit } from "../../src/sandbox/workspace/host-git.js";
import { DEFAULT_MAX_BUNDLE_BYTES, verifyAndPushBundle } from "../../src/sandbox/workspace/push.js";

const author = { GIT_AUTHOR_NAME: "Dev", GIT_AUTHOR_EMAIL: "dev@example.com", GIT_COMMITTER_NAME: "Dev", GIT_COMMITTER_EMAIL: "dev@example.com" };

describe("a push GitHub refuses for a missing `workflows` permission", () => {
  it("is reported as that, with what an admin has to grant", async () => {
    const tmp = await mkdtemp(join(tmpdir(), "osw-wfperm-"));
    const work = join(tmp, "work");
    await mkdir(join(work, ".github", "workflows"), { recursive: true });
    await writeFile(join(work, ".github", "workflows", "ci.yml"), "on: push\n");
    await hostGit(["init", "-q", "-b", "main", work]);
    await hostGit(["-C", work, "add", "-A"]);
    await hostGit(["-C", work, "commit", "-q", "-m", "initial"], { env: author });
    const base = (await hostGit(["-C", work, "rev-parse", "HEAD"])).trim();
    const remote = join(tmp, "remote.git");
    await hostGit(["clone", "-q", "--bare", work, remote]);
    // What github.com answers an app without the permission (its receive hook, verbatim wording).
    const hook = join(remote, "hooks", "pre-receive");
    await writeFile(hook, "#!/bin/sh\necho 'refusing to allow a GitHub App to create or update workflow `.github/workflows/ci.yml` without `workflows` permission' >&2\nexit 1\n");
    await chmod(hook, 0o755);
    const mirror = join(tmp, "mirror.git");
    await hostGit(["clone", "-q", "--mirror", remote, mirror]);

    await hostGit(["-C", work, "checkout", "-q", "-b", "open-swe/t1"]);
    await writeFile(join(work, ".github", "workflows", "ci.yml"), "on: pull_request\n");
    await hostGit(["-C", work, "commit", "-q", "-am", "ci"], { env: author });
    const file = join(tmp, "push.bundle");
    await hostGit(["-C", work, "bundle", "create", "-q", file, `${base}..refs/heads/open-swe/t1`]);
    const bundle = new Uint8Array(await readFile(file));

    const err = await verifyAndPushBundle({ mirror, bundle, branch: "open-swe/t1", expectedOld: base, remoteUrl: remote, allowWorkflowChanges: true, maxBytes: DEFAULT_MAX_BUNDLE_BYTES }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ reason: "workflow_permission" });
    expect((err as Error).message).toMatch(/lacks the `workflows` permission.*Permissions → Workflows: Read and write/);
  });
});
