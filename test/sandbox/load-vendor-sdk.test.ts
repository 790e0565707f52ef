import { describe, expect, it } from "vitest";
import { loadVendorSdk } from "../../src/sandbox/providers/load-vendor-sdk.js";
import { isSandboxError } from "../../src/sandbox/types.js";

describe("a vendor sandbox SDK is optional", () => {
  it("a missing package is one line naming it, not transient", async () => {
    // A real dynamic import of a package that is not installed: the same error Node gives for an omitted optional one.
    const err = await loadVendorSdk("not-installed-sdk", () => import(["not-installed", "sdk"].join("-"))).catch((e: unknown) => e);
    expect(isSandboxError(err, "invalid")).toBe(true);
    expect((err as Error).message).toBe("the sandbox provider needs the not-installed-sdk package, which is not installed (an install with --omit=optional): npm install not-installed-sdk");
    expect((err as { transient: boolean }).transient).toBe(false);
  });

  it("an installed package loads, and any other failure passes through as it was", async () => {
    await expect(loadVendorSdk("node:path", () => import("node:path"))).resolves.toHaveProperty("join");
    const boom = new Error("boom");
    await expect(loadVendorSdk("x", () => Promise.reject(boom))).rejects.toBe(boom);
  });
});
