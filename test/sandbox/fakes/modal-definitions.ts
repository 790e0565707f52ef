import { readFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import { dirname } from "node:path";

/** A ts-proto service definition as nice-grpc's server takes it; untyped once read out of the bundle. */
type Definition = any;

/**
 * Modal's gRPC service definitions exactly as the installed `modal` SDK ships them: the SDK bundles its
 * ts-proto code (messages with their protobuf encoders, `ModalClientDefinition`,
 * `TaskCommandRouterDefinition`) without exporting it, so we compile the SDK's own CommonJS bundle once
 * more with those two names exported. An SDK upgrade that changes the protocol changes the fake.
 */
export function shippedModalDefinitions(): { ModalClient: Definition; TaskCommandRouter: Definition } {
  const path = createRequire(import.meta.url).resolve("modal");
  const source = `${readFileSync(path, "utf8")}\nmodule.exports.__protoForTests = { ModalClient: ModalClientDefinition, TaskCommandRouter: TaskCommandRouterDefinition };\n`;
  const internal = Module as unknown as { _nodeModulePaths(dir: string): string[] };
  const mod = new Module(path) as Module & { _compile(code: string, filename: string): void };
  mod.filename = path;
  mod.paths = internal._nodeModulePaths(dirname(path));
  mod._compile(source, path);
  const defs = (mod.exports as { __protoForTests?: { ModalClient: Definition; TaskCommandRouter: Definition } }).__protoForTests;
  if (!defs?.ModalClient || !defs.TaskCommandRouter) throw new Error("the modal SDK bundle no longer defines its gRPC services by these names: the Modal fake needs updating");
  return defs;
}
