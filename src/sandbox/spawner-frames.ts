import { deserialize, serialize } from "node:v8";
import type { SpawnChildOptions, SpawnChildResult } from "./spawn-child.js";

/** What may cross to the spawner: no callbacks, no signal. `extraFds` numbers are the worker's descriptors. */
export type SpawnerOptions = Omit<SpawnChildOptions, "signal" | "onSpawn" | "onChild" | "keepStdin">;

export type SpawnRequest = { type: "run"; id: number; file: string; args: readonly string[]; opts: SpawnerOptions } | { type: "abort"; id: number };
export type SpawnReply = { type: "spawned"; id: number; pid: number } | { type: "done"; id: number; result: SpawnChildResult } | { type: "failed"; id: number; message: string; code?: string };

/** One message: a 4-byte length, then its v8 serialisation (Buffers and Uint8Arrays pass as bytes). */
export function frame(message: SpawnRequest | SpawnReply): Buffer {
  const body = serialize(message);
  const head = Buffer.allocUnsafe(4);
  head.writeUInt32BE(body.length);
  return Buffer.concat([head, body]);
}

/** Splits a byte stream back into messages, whatever the chunking. */
export function frameReader<T>(onMessage: (m: T) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 4) {
      const size = pending.readUInt32BE(0);
      if (pending.length < 4 + size) break;
      const body = pending.subarray(4, 4 + size);
      pending = pending.subarray(4 + size);
      onMessage(deserialize(body) as T);
    }
  };
}
