import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { LocalProviderOptions } from "../../src/sandbox/providers/local-dir.js";
import { LocalSandboxProvider, type LocalSandbox } from "../../src/sandbox/providers/local.js";

export interface LocalSandboxFixture {
  readonly root: string;
  readonly provider: LocalSandboxProvider;
  readonly sb: LocalSandbox;
}

/**
 * One real local sandbox (bubblewrap) for the enclosing `describe`: created in `beforeAll` under a fresh
 * temporary root; in `afterAll` every sandbox of its provider is destroyed and the root removed.
 */
export function useLocalSandbox(name: string, options: Partial<Omit<LocalProviderOptions, "root">> = {}, create: { network?: boolean } = {}): LocalSandboxFixture {
  let root: string | undefined;
  let provider: LocalSandboxProvider | undefined;
  let sb: LocalSandbox | undefined;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), `osw-${name}-`));
    provider = new LocalSandboxProvider({ execTimeoutMs: 10_000, maxOutputBytes: 1 << 20, ...options, root });
    sb = await provider.create({ network: create.network ?? false });
  });
  afterAll(async () => {
    // Every sandbox the tests made with this provider goes, overlay mounts before their directories.
    if (provider) for (const s of await provider.list()) await provider.destroy(s.id);
    if (root) await rm(root, { recursive: true, force: true });
  });
  const set = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the local sandbox's ${what} is used before beforeAll ran`);
    return value;
  };
  return {
    get root() {
      return set(root, "root");
    },
    get provider() {
      return set(provider, "provider");
    },
    get sb() {
      return set(sb, "sandbox");
    },
  };
}
