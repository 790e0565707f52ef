import { createHash, timingSafeEqual } from "node:crypto";

/** Constant-time string equality whatever the lengths (both sides hashed first). */
export function timingSafeStringEqual(a: string, b: string): boolean {
  const h = (s: string) => createHash("sha256").update(s, "utf8").digest();
  return timingSafeEqual(h(a), h(b));
}
