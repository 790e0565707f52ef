import type { ExecOptions, Sandbox } from "./types.js";

/**
 * `sandbox` as a run's agent and tools see it while its workspace is still being put in place: every
 * operation waits for `ready` first, and fails with its error if it failed. A run's first model call needs
 * the repository's name and branches, not its files, so it does not wait for the checkout. Only the
 * agent and its tools hold this view; the thread's sandbox cache (read-only checks, keep-alive) holds the sandbox.
 */
export function sandboxWhenReady(sandbox: Sandbox, ready: () => Promise<unknown>): Sandbox {
  const after = async <T>(op: () => Promise<T>): Promise<T> => {
    await ready();
    return op();
  };
  const open = sandbox.openProcess?.bind(sandbox);
  return {
    id: sandbox.id,
    provider: sandbox.provider,
    workdir: sandbox.workdir,
    exec: (command, options) => after(() => sandbox.exec(command, options)),
    ...(open ? { openProcess: (command: string, options?: ExecOptions) => after(() => open(command, options)) } : {}),
    upload: (files) => after(() => sandbox.upload(files)),
    download: (paths) => after(() => sandbox.download(paths)),
    ping: () =>
      ready().then(
        () => sandbox.ping(),
        () => false,
      ),
    close: () => sandbox.close(),
  };
}
