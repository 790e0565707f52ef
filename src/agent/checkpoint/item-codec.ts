import { createHash } from "node:crypto";
import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";

/** Between an item's serde type and its bytes in the stored form `type\0bytes`. */
export const ITEM_SEP = 0;

export interface EncodedItem {
  stored: Buffer;
  hash: string;
}

/**
 * A list element's stored form and content hash. Class instances (messages) are remembered by identity:
 * the history is the same message objects at every step, and serialising all of them again at every put
 * made a step's cost grow with the run. An entry is used only while the element's shape (its own values,
 * two levels down, by identity) is unchanged, so replacing a message's content or blocks is seen.
 */
export class ItemCodec {
  readonly #serde: SerializerProtocol;
  readonly #encoded = new WeakMap<object, { shape: unknown[]; stored: Buffer; hash: string }>();

  constructor(serde: SerializerProtocol) {
    this.#serde = serde;
  }

  /** The stored form of an unchanged class instance (a message) encoded before; synchronous, as most elements hit. */
  cached(element: object): EncodedItem | undefined {
    const cached = this.#encoded.get(element);
    return cached && sameShape(cached.shape, shapeOf(element)) ? cached : undefined;
  }

  async encode(element: object, split: (e: object) => Promise<unknown>): Promise<EncodedItem> {
    const [type, bytes] = await this.#serde.dumpsTyped(await split(element));
    const stored = Buffer.concat([Buffer.from(type), Buffer.from([ITEM_SEP]), Buffer.from(bytes)]);
    // 96 bits: a collision within one thread's few thousand items is not a concern.
    const hash = createHash("sha256").update(stored).digest("base64url").slice(0, 16);
    this.remember(element, { stored, hash });
    return { stored, hash };
  }

  /**
   * An element as it was read back, with the stored form and hash it was read from: the first put after a
   * thread is loaded (every run starts so) finds its whole history encoded, instead of serialising and
   * hashing every message again.
   */
  remember(element: unknown, item: EncodedItem): void {
    // Plain objects may hold lists to split (a Send's state) and are rebuilt every step; class instances (messages) are not.
    if (typeof element !== "object" || element === null || Array.isArray(element) || Object.getPrototypeOf(element) === Object.prototype) return;
    this.#encoded.set(element, { shape: shapeOf(element), ...item });
  }
}

/** An object's own values and those of its object-valued properties (and of their elements), by identity. */
function shapeOf(value: object): unknown[] {
  const out: unknown[] = [];
  for (const v of Object.values(value)) {
    out.push(v);
    if (typeof v !== "object" || v === null) continue;
    if (Array.isArray(v)) {
      out.push(v.length);
      for (const e of v) {
        out.push(e);
        if (typeof e === "object" && e !== null) out.push(...Object.values(e));
      }
    } else {
      out.push(...Object.values(v));
    }
  }
  return out;
}

function sameShape(a: unknown[], b: unknown[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
