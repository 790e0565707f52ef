import { SandboxError } from "../types.js";

/**
 * A vendor sandbox SDK (`e2b`, `modal`, `@daytonaio/sdk`) is an optional dependency, loaded only when its provider is
 * chosen: an install without it (`npm ci --omit=optional`) gets one line naming the package to add, not a module
 * resolution stack. Not transient: retrying cannot install it.
 */
export async function loadVendorSdk<T>(pkg: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
      throw new SandboxError("invalid", `the sandbox provider needs the ${pkg} package, which is not installed (an install with --omit=optional): npm install ${pkg}`, { cause: err });
    }
    throw err;
  }
}
