import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fromBinary, type DescService } from "@bufbuild/protobuf";
import { fileDesc } from "@bufbuild/protobuf/codegenv2";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";

/**
 * envd's `process.Process` service exactly as the installed `e2b` SDK ships it: the SDK embeds each
 * envd .proto as a serialized FileDescriptorProto (`fileDesc("<base64>")`) in its bundle; we read that
 * one back rather than keep our own copy, so an SDK upgrade that changes the protocol changes the fake.
 */
export function shippedEnvdProcessService(): DescService {
  const bundle = readFileSync(createRequire(import.meta.url).resolve("e2b"), "utf8");
  for (const m of bundle.matchAll(/fileDesc\)?\("([A-Za-z0-9+/=]+)"/g)) {
    if (fromBinary(FileDescriptorProtoSchema, Buffer.from(m[1]!, "base64")).name !== "process/process.proto") continue;
    const file = fileDesc(m[1]!);
    const service = file.services.find((s) => s.typeName === "process.Process");
    if (service) return service;
  }
  throw new Error("the e2b SDK bundle no longer embeds process/process.proto: the envd fake needs updating");
}
