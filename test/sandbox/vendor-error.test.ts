import { describe, expect, it } from "vitest";
import { vendorError } from "../../src/sandbox/providers/vendor-common.js";

/** A nice-grpc `ClientError` as Modal's SDK throws it: the gRPC status number in `code`. */
function grpcError(code: number): Error {
  return Object.assign(new Error(`/modal.client.ModalClient/SandboxWaitV2 status ${code}`), { name: "ClientError", code });
}

describe("vendorError", () => {
  it.each([
    [grpcError(5), "not_found"],
    [grpcError(16), "auth"],
    [grpcError(7), "auth"],
    [grpcError(8), "quota"],
    [grpcError(3), "invalid"],
    [grpcError(4), "timeout"],
    [grpcError(14), "unavailable"],
    [grpcError(13), "unavailable"],
    [Object.assign(new Error("gone"), { name: "SandboxNotFoundError" }), "not_found"],
    [Object.assign(new Error("x"), { statusCode: 429 }), "quota"],
    [Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED" } }), "unreachable"],
    [Object.assign(new Error("odd"), { code: 5 }), "unavailable"],
  ])("%s → %s", (err, code) => {
    expect(vendorError("modal", "poll", err).code).toBe(code);
  });
});
