/** What one checkpoint refers to: its channel values (blob fields) and the items its writes refer to. */
export interface CheckpointRefs {
  fields: string[];
  writeItems: Set<string>;
}

/** One thread namespace's references, as this process wrote or read them. */
export interface RefSpace {
  checkpoints: Map<string, CheckpointRefs>;
  /** Blob field → the item hashes its value refers to. */
  blobItems: Map<string, string[]>;
}

/**
 * What a saver wrote in each thread namespace since the thread was last read (getTuple starts every run,
 * and another process may have written in between): prune decides what to drop from this instead of
 * reading back, and deserialising, every checkpoint, channel value and write it just wrote. Bounded like
 * `KnownItems` (least recently used namespaces go first); a forgotten namespace is read from Redis again.
 */
export class WrittenRefs {
  readonly #spaces = new Map<string, RefSpace>();

  /** The namespace's references, created empty when absent. */
  space(key: string): RefSpace {
    let space = this.#spaces.get(key);
    if (space) {
      this.#spaces.delete(key);
    } else {
      space = { checkpoints: new Map(), blobItems: new Map() };
      if (this.#spaces.size >= 256) this.#spaces.delete(this.#spaces.keys().next().value!);
    }
    this.#spaces.set(key, space);
    return space;
  }

  /** The namespace's references when this process holds them; never creates one. */
  peek(key: string): RefSpace | undefined {
    return this.#spaces.get(key);
  }

  delete(key: string): void {
    this.#spaces.delete(key);
  }
}
