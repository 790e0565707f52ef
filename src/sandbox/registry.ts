import type { SandboxConfig } from "../config/sandbox-config.js";
import type { SandboxType } from "../config/sandbox-config.js";
import { DaytonaSandboxProvider } from "./providers/daytona.js";
import { E2bSandboxProvider } from "./providers/e2b.js";
import { githubApiRules } from "./providers/egress-policy.js";
import type { LocalProviderOptions } from "./providers/local-dir.js";
import { LocalSandboxProvider } from "./providers/local.js";
import { ModalSandboxProvider } from "./providers/modal.js";
import type { SandboxProvider } from "./types.js";

export type SandboxProviderFactory = (config: SandboxConfig) => SandboxProvider;

/** Adding a provider: one file under providers/ and one line here (the compiler checks the keys). */
export const sandboxProviders: Record<SandboxType, SandboxProviderFactory> = {
  local: (c) => new LocalSandboxProvider(localProviderOptions(c)),
  e2b: (c) => new E2bSandboxProvider(c),
  modal: (c) => new ModalSandboxProvider(c),
  daytona: (c) => new DaytonaSandboxProvider(c),
};

/** The provider named by SANDBOX_TYPE (or `type`, for the operator CLI's --provider). */
export function createSandboxProvider(config: SandboxConfig, type: SandboxType = config.type): SandboxProvider {
  return sandboxProviders[type](config);
}

export function localProviderOptions(c: SandboxConfig): LocalProviderOptions {
  return {
    root: c.root,
    execTimeoutMs: c.execTimeoutMs,
    maxOutputBytes: c.maxOutputBytes,
    egress: c.localEgress,
    hostUser: c.hostUser,
    overlay: c.localOverlay !== "off",
    commandServer: c.localCommandServer === "on",
    hostPath: c.hostPath,
    egressPolicy: { ...githubApiRules(c.gheHost, c.githubApiUrl), maxConnectionsPerSandbox: c.egressMaxConnections },
    limits: c.limits,
  };
}
